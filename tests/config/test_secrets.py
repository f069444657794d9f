"""The secret key and the daily secret (config/env.py), read in a fresh interpreter each time.

Whoever knows the daily secret can compute every day's deals, so neither secret may ever be a
value written in the project's files.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# The debug key every server had before it was made per checkout.
OLD_DEBUG_KEY = "insecure-development-key-only-used-when-DJANGO_DEBUG-is-on"
EXAMPLE_KEY = re.search(
    r"^DJANGO_SECRET_KEY=(.*)$", (ROOT / ".env.example").read_text(), re.MULTILINE
)[1]
PUBLISHED = [
    EXAMPLE_KEY,
    OLD_DEBUG_KEY,
    "test-only-insecure-secret-key-not-for-production",  # `make test`'s key before
    "klondike-tests",  # tests/conftest.py's daily secret
]
# A key of this run only: any key written in the project's files is published, and refused.
REAL_KEY = secrets.token_urlsafe(50)

# Starts the service's settings, then computes today's first D1N candidate twice: with the
# daily secret as configured, and with the old debug key as the daily secret.
PROBE = f"""
import json, django
django.setup()
from django.conf import settings
from django.utils import timezone
from games import clock
from games.daily.services.deals import daily_first_candidate
day = clock.today(timezone.now())
conf = {{
    "secret_key": settings.SECRET_KEY,
    "daily_secret": settings.DAILY_SECRET,
    "database": str(settings.DATABASES["default"]["NAME"]),
    "static_root": str(settings.STATIC_ROOT),
    "todays_candidate": daily_first_candidate(day=day, mode="D1N"),
}}
settings.DAILY_SECRET = {OLD_DEBUG_KEY!r}
conf["old_debug_key_candidate"] = daily_first_candidate(day=day, mode="D1N")
print(json.dumps(conf))
"""


def _env(var_dir: Path, **overrides: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_", "REDIS_", "DAILY_", "KLONDIKE_VAR_DIR"))
    }
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DJANGO_HTTPS": "0",
            "KLONDIKE_VAR_DIR": str(var_dir),
        }
    )
    env.update(overrides)
    return env


def _start(var_dir: Path, **overrides: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=_env(var_dir, **overrides),
        capture_output=True,
        text=True,
    )


def _probe(var_dir: Path, **overrides: str) -> dict[str, object]:
    out = _start(var_dir, **overrides)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def _refused(out: subprocess.CompletedProcess[str]) -> str:
    assert out.returncode != 0, out.stdout
    assert "ImproperlyConfigured" in out.stderr
    return out.stderr


@pytest.mark.parametrize("key", [None, "", "   "], ids=["unset", "empty", "blank"])
def test_debug_off_without_a_secret_key_refuses_to_start(tmp_path, key):
    overrides = {} if key is None else {"DJANGO_SECRET_KEY": key}
    message = _refused(_start(tmp_path, DJANGO_DEBUG="0", **overrides))
    assert "DJANGO_SECRET_KEY is not set" in message
    assert "secrets.token_urlsafe" in message  # says how to make one


@pytest.mark.parametrize("key", PUBLISHED)
def test_debug_off_refuses_each_published_secret_key(tmp_path, key):
    message = _refused(_start(tmp_path, DJANGO_DEBUG="0", DJANGO_SECRET_KEY=key))
    assert f"DJANGO_SECRET_KEY is {key!r}, a value published" in message
    assert "secrets.token_urlsafe" in message


@pytest.mark.parametrize("secret", PUBLISHED)
def test_debug_off_refuses_each_published_daily_secret(tmp_path, secret):
    out = _start(tmp_path, DJANGO_DEBUG="0", DJANGO_SECRET_KEY=REAL_KEY, DAILY_SECRET=secret)
    assert f"DAILY_SECRET is {secret!r}, a value published" in _refused(out)


def test_debug_off_refuses_the_metrics_token_the_tests_once_wrote(tmp_path):
    # tests/config/test_metrics.py's token, before it was drawn at random: it started the service.
    token = "scraper-" + "k3Y!" * 12
    out = _start(tmp_path, DJANGO_DEBUG="0", DJANGO_SECRET_KEY=REAL_KEY, METRICS_TOKEN=token)
    assert f"METRICS_TOKEN is {token!r}, a value published" in _refused(out)


def test_debug_on_refuses_a_published_secret_key_too(tmp_path):
    # The daily secret is derived from the key, so a published key would publish the deals.
    out = _start(tmp_path, DJANGO_DEBUG="1", DJANGO_SECRET_KEY=EXAMPLE_KEY)
    assert "or unset it: debug mode then makes one" in _refused(out)


def test_debug_off_with_a_real_key_derives_a_private_daily_secret(tmp_path):
    conf = _probe(tmp_path, DJANGO_DEBUG="0", DJANGO_SECRET_KEY=REAL_KEY)
    assert conf["secret_key"] == REAL_KEY
    assert conf["daily_secret"] not in [*PUBLISHED, REAL_KEY, ""]
    # Derived, not random: every process of one deployment computes the same deals.
    again = _probe(tmp_path, DJANGO_DEBUG="0", DJANGO_SECRET_KEY=REAL_KEY)
    assert again["daily_secret"] == conf["daily_secret"]
    assert again["todays_candidate"] == conf["todays_candidate"]
    other = _probe(tmp_path, DJANGO_DEBUG="0", DJANGO_SECRET_KEY=REAL_KEY + "2")
    assert other["daily_secret"] != conf["daily_secret"]
    assert not (tmp_path / "secret-key").exists()  # debug off never makes a key


def test_debug_off_uses_a_given_daily_secret(tmp_path):
    daily = secrets.token_hex(32)
    conf = _probe(tmp_path, DJANGO_DEBUG="0", DJANGO_SECRET_KEY=REAL_KEY, DAILY_SECRET=daily)
    assert conf["daily_secret"] == daily


WEAK = {
    "one character": "x",
    "49 characters": secrets.token_urlsafe(50)[:49],
    "4 different characters": "abcd" * 13,
    "Django's development prefix": "django-insecure-" + secrets.token_urlsafe(50),
    "the Dockerfile's old build key": "collectstatic-only",
    "a test's daily secret": "another secret",
}


@pytest.mark.parametrize("weak", WEAK.values(), ids=WEAK.keys())
def test_debug_off_refuses_a_weak_secret_key_or_daily_secret(tmp_path, weak):
    """A 1-character key, a test's key and `DAILY_SECRET='another secret'` started the service
    with debug off; a short key can be brute-forced against a resigned attempt's cards."""
    message = _refused(_start(tmp_path, DJANGO_DEBUG="0", DJANGO_SECRET_KEY=weak))
    assert f"DJANGO_SECRET_KEY is {weak!r}, " in message and "secrets.token_urlsafe" in message
    out = _start(tmp_path, DJANGO_DEBUG="0", DJANGO_SECRET_KEY=REAL_KEY, DAILY_SECRET=weak)
    assert f"DAILY_SECRET is {weak!r}, " in _refused(out)


def test_a_retired_key_is_a_fallback_and_a_weak_or_published_one_is_refused(tmp_path):
    """A rotation keeps the old key as a fallback (docs/operations.md): it is accepted, never
    signs, and never moves the daily secret, which follows the new key alone."""
    old = secrets.token_urlsafe(50)
    probe = PROBE.replace(
        "print(json.dumps(conf))",
        'conf["fallbacks"] = settings.SECRET_KEY_FALLBACKS\nprint(json.dumps(conf))',
    )
    env = _env(
        tmp_path, DJANGO_DEBUG="0", DJANGO_SECRET_KEY=REAL_KEY, DJANGO_SECRET_KEY_FALLBACKS=old
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    conf = json.loads(out.stdout.strip().splitlines()[-1])
    assert (conf["secret_key"], conf["fallbacks"]) == (REAL_KEY, [old])
    assert (
        conf["daily_secret"]
        == _probe(tmp_path, DJANGO_DEBUG="0", DJANGO_SECRET_KEY=REAL_KEY)["daily_secret"]
    )
    for retired in (EXAMPLE_KEY, "short"):
        out = _start(
            tmp_path,
            DJANGO_DEBUG="0",
            DJANGO_SECRET_KEY=REAL_KEY,
            DJANGO_SECRET_KEY_FALLBACKS=f"{old},{retired}",
        )
        assert f"A key in DJANGO_SECRET_KEY_FALLBACKS is {retired!r}, " in _refused(out)


def test_debug_on_lets_a_weak_key_be(tmp_path):
    conf = _probe(tmp_path, DJANGO_DEBUG="1", DJANGO_SECRET_KEY="dev")
    assert conf["secret_key"] == "dev"


# Where this project's files give a secret a value: an environment line or a YAML entry, a
# Python assignment or keyword argument, a shell variable.
_SECRET_VALUE = re.compile(
    r"""(?:DJANGO_SECRET_KEY|DAILY_SECRET|SECRET_KEY)["']?\s*[=:]\s*["']([^"'$\n{}]+)["']"""
    r"""|^(?:DJANGO_SECRET_KEY|DAILY_SECRET)=([^"'$\s{}]+)""",
    re.MULTILINE,
)


def test_every_secret_written_in_the_project_is_refused_with_debug_off():
    from config.env import secret_weakness

    files = (
        subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
        .stdout.decode()
        .split("\0")
    )
    written = {}
    for name in filter(None, files):
        path = ROOT / name
        if path.suffix in (".mo", ".png", ".ico", ".woff2") or not path.is_file():
            continue
        for match in _SECRET_VALUE.finditer(path.read_text(errors="replace")):
            written[match[1] or match[2]] = name
    assert {"change-me-to-a-long-random-string", "klondike-tests", "another secret"} <= set(written)
    for value, name in written.items():
        assert secret_weakness(value), (value, name)


def test_debug_on_makes_the_secret_key_once_under_the_var_dir(tmp_path):
    first = _probe(tmp_path, DJANGO_DEBUG="1")
    key_file = tmp_path / "secret-key"
    assert key_file.read_text().strip() == first["secret_key"]
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert len(str(first["secret_key"])) >= 50
    assert first["secret_key"] not in PUBLISHED
    assert first["daily_secret"] not in [*PUBLISHED, first["secret_key"]]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary file
    # The database and static files follow the same directory.
    assert first["database"] == str(tmp_path / "klondike.sqlite3")
    assert first["static_root"] == str(tmp_path / "static")

    second = _probe(tmp_path, DJANGO_DEBUG="1")
    assert second["secret_key"] == first["secret_key"]
    assert second["daily_secret"] == first["daily_secret"]
    assert second["todays_candidate"] == first["todays_candidate"]


def test_the_documented_development_key_does_not_reproduce_todays_deal(tmp_path):
    conf = _probe(tmp_path, DJANGO_DEBUG="1")
    assert conf["todays_candidate"] != conf["old_debug_key_candidate"]


def test_debug_on_processes_starting_at_once_share_one_secret_key(tmp_path):
    read_key = "from config import env; print(env.SECRET_KEY)"
    starts = [
        subprocess.Popen(
            [sys.executable, "-c", read_key],
            cwd=ROOT,
            env=_env(tmp_path, DJANGO_DEBUG="1"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(8)
    ]
    keys = set()
    for start in starts:
        stdout, stderr = start.communicate(timeout=60)
        assert start.returncode == 0, stderr
        keys.add(stdout.strip())
    assert keys == {(tmp_path / "secret-key").read_text().strip()}
    assert [p.name for p in tmp_path.iterdir()] == ["secret-key"]  # no temporary file left


def test_an_empty_secret_key_file_is_refused_with_what_to_do(tmp_path):
    (tmp_path / "secret-key").write_text("\n")
    message = _refused(_start(tmp_path, DJANGO_DEBUG="1"))
    assert "secret-key is empty. Delete it" in message
