"""How many e-mails a mailbox gets: at most one of each kind a minute per (mailbox, account),
MAILS_PER_DAY a day per (mailbox, account), and mails for MAILBOX_ACCOUNTS_PER_DAY accounts
a day per mailbox. Counted in the database (`accounts.models.MailSent`), so that the limits
hold across every process and node, in embedded mode too, where each process has a cache of
its own.

A stranger who types someone's address therefore neither floods it (through any number of
accounts or `+` variants: the mailbox is the canonical form; at most MAILBOX_ACCOUNTS_PER_DAY
x MAILS_PER_DAY a day) nor holds its owner's link: the owner's minute and day are their own,
and an account the mailbox had mail for today keeps its place among the day's accounts.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta

from django.db import connection, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from accounts.errors import MailLimitedError
from accounts.models import MailSent, User
from accounts.validators import email_canonical

# At most one e-mail of a kind per (mailbox, account) in this many seconds ...
MAIL_INTERVAL_S = 60
# ... this many a day per (mailbox, account), of every kind ...
MAILS_PER_DAY = 5
# ... and mails for this many accounts a day per mailbox.
MAILBOX_ACCOUNTS_PER_DAY = 3
_DAY = timedelta(days=1)


def _mailbox_lock(mailbox: str) -> None:
    """Serialize the senders to one mailbox until the transaction ends. SQLite's transactions
    are serialized already (`transaction_mode` IMMEDIATE); PostgreSQL takes an advisory lock
    named by the mailbox."""
    if connection.vendor == "postgresql":
        key = int.from_bytes(hashlib.sha256(mailbox.encode()).digest()[:8], "big", signed=True)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])


def _seconds_until(moment: datetime, now: datetime) -> int:
    return max(1, int((moment - now).total_seconds() + 0.999))


@transaction.atomic
def mail_send_reserve(
    *, user: User, email: str, kind: MailSent.Kind, now: datetime | None = None
) -> None:
    """Count an e-mail of `kind` to `email` for `user`, if the limits let it go; the caller
    sends it (after the commit: a rolled-back request sends and counts nothing).

    :raises MailLimitedError: this account had one of this kind to this mailbox in the last
        MAIL_INTERVAL_S seconds, or MAILS_PER_DAY of any kind in the last day, or the mailbox
        had mail for MAILBOX_ACCOUNTS_PER_DAY other accounts in the last day (429
        `throttled`, `retry_after`: when the one that blocks is old enough).
    """
    mailbox = email_canonical(email)
    now = now or timezone.now()
    _mailbox_lock(mailbox)
    MailSent.objects.filter(sent_at__lt=now - _DAY).delete()
    today = MailSent.objects.filter(email_canonical=mailbox, sent_at__gt=now - _DAY)
    mine = today.filter(user=user)
    last = (
        mine.filter(kind=kind, sent_at__gt=now - timedelta(seconds=MAIL_INTERVAL_S))
        .order_by("-sent_at")
        .values_list("sent_at", flat=True)
        .first()
    )
    if last is not None:
        seconds = _seconds_until(last + timedelta(seconds=MAIL_INTERVAL_S), now)
        raise MailLimitedError(
            ngettext(
                "An e-mail went to this address a moment ago and no new one was sent: ask "
                "again in %(seconds)d second.",
                "An e-mail went to this address a moment ago and no new one was sent: ask "
                "again in %(seconds)d seconds.",
                seconds,
            )
            % {"seconds": seconds},
            retry_after=seconds,
        )
    mine_today = list(mine.order_by("-sent_at").values_list("sent_at", flat=True)[:MAILS_PER_DAY])
    if len(mine_today) >= MAILS_PER_DAY:
        raise _day_full(_seconds_until(mine_today[-1] + _DAY, now))
    if not mine_today:
        # Each other account's last mail: the account leaves the day's when it is a day old.
        others = list(
            today.values("user_id").annotate(last=Max("sent_at")).values_list("last", flat=True)
        )
        if len(others) >= MAILBOX_ACCOUNTS_PER_DAY:
            raise _day_full(_seconds_until(min(others) + _DAY, now))
    MailSent.objects.create(email_canonical=mailbox, user=user, kind=kind, sent_at=now)


def _day_full(seconds: int) -> MailLimitedError:
    return MailLimitedError(
        gettext(
            "This address has had as many e-mails from us as it gets in a day, and no new one "
            "was sent: ask again tomorrow."
        ),
        retry_after=seconds,
    )
