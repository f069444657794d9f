"""The mailbox's limits hold across server processes (`accounts.mail_limits`, counted in the
database): two gunicorn servers on one embedded database, each with a cache of its own. Before,
the one-a-minute limit was a key in each process's local-memory cache, so every worker sent
its own link to one address each minute."""

from __future__ import annotations

from pathlib import Path

from accounts import mail_limits
from tests.servers import call, embedded_env, free_port, serving

__all__ = ["embedded_env"]  # the fixture, used by name

PASSWORD = "correct-horse-battery"
RESEND = "/api/v1/me/email/verification"


def _mails_to(folder: Path, address: str) -> int:
    """The e-mails the file back end wrote to `address` (embedded mode: KLONDIKE_VAR_DIR/mail)."""
    if not folder.exists():
        return 0
    return sum(f.read_text().count(f"To: {address}\n") for f in folder.iterdir())


def test_the_mailbox_limits_hold_across_processes(embedded_env, tmp_path):
    ports = [free_port(), free_port()]
    mail = tmp_path / "mail"
    with (
        serving(embedded_env, ports[0], tmp_path / "a.log"),
        serving(embedded_env, ports[1], tmp_path / "b.log"),
    ):
        tokens = []
        for i in range(mail_limits.MAILBOX_ACCOUNTS_PER_DAY + 1):
            body = {"username": f"box{i}", "password": PASSWORD, "email": f"box+{i}@mail.test"}
            status, answer = call(ports[i % 2], "POST", "/api/v1/auth/register", None, body)
            assert status == 201, answer
            tokens.append(answer["token"])
        # One link for each of the mailbox's accounts of the day, none past them.
        sent = sum(_mails_to(mail, f"box+{i}@mail.test") for i in range(len(tokens)))
        assert sent == mail_limits.MAILBOX_ACCOUNTS_PER_DAY
        for port in ports:  # the minute is each account's, in every process
            for token in tokens:
                status, answer = call(port, "POST", RESEND, token)
                assert status == 429, answer
                assert answer["error"]["code"] == "throttled", answer
        sent = sum(_mails_to(mail, f"box+{i}@mail.test") for i in range(len(tokens)))
        assert sent == mail_limits.MAILBOX_ACCOUNTS_PER_DAY
