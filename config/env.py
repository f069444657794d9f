"""Every setting that comes from the environment is read here, and only here.

`.env.example` lists each variable with its meaning; keep the two in step.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str | None = None) -> str | None:
    """Return the variable as text, or `default` when it is unset or empty."""
    value = os.environ.get(name, "").strip()
    return value or default


def env_bool(name: str, default: bool) -> bool:
    """Return the variable as a boolean; a value that is not one is a start-up error."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use 1/0, true/false, yes/no).")


def env_int(name: str, default: int) -> int:
    """Return the variable as an integer; a value that is not one is a start-up error."""
    raw = env_str(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer.") from None


def env_float(name: str, default: float) -> float:
    """Return the variable as a number; a value that is not one is a start-up error."""
    raw = env_str(name)
    if raw is None:
        return default
    try:
        return float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a number.") from None


def env_list(name: str, default: list[str]) -> list[str]:
    """Return a comma-separated variable as a list of non-empty items."""
    raw = env_str(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def _var_secret(name: str) -> str:
    """The secret kept in the file VAR_DIR/name, made on first use (mode 0600).

    A new secret is written to a private temporary file, then hard-linked to its name; the link
    fails if the name exists, so of processes starting at once all end with the one secret.
    """
    path = VAR_DIR / name
    if not path.exists():
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=VAR_DIR)  # mode 0600
        try:
            with os.fdopen(fd, "w") as file:
                file.write(secrets.token_urlsafe(50) + "\n")
                file.flush()
                os.fsync(file.fileno())
            with contextlib.suppress(FileExistsError):  # another process made it first
                os.link(tmp, path)
        finally:
            os.unlink(tmp)
    value = path.read_text().strip()
    if not value:
        raise ImproperlyConfigured(f"{path} is empty. Delete it; the next start makes a new one.")
    return value


# Django's own deploy check (security.W009): a shorter key, or one of fewer different
# characters, can be guessed; a key Django's startproject made for development says so.
SECRET_MIN_LENGTH = 50
SECRET_MIN_DISTINCT = 5
_INSECURE_PREFIX = "django-insecure-"


def secret_weakness(value: str) -> str:
    """Why `value` cannot serve as a secret with debug off ("" when it can): it is published in
    this project's files, or fails Django's deploy check (length, variety, prefix)."""
    if value in PUBLISHED_SECRETS:
        return "a value published in this project's files, which keeps nothing secret"
    if len(value) < SECRET_MIN_LENGTH or len(set(value)) < SECRET_MIN_DISTINCT:
        return (
            f"too weak: {len(value)} characters, {len(set(value))} different; a secret needs "
            f"at least {SECRET_MIN_LENGTH} characters, {SECRET_MIN_DISTINCT} of them different"
        )
    if value.startswith(_INSECURE_PREFIX):
        return f"a development key (it starts with {_INSECURE_PREFIX!r})"
    return ""


def _refuse_weak(name: str, value: str | None, advice: str) -> None:
    """A secret that is published is a start-up error; with debug off, so is a weak one (a
    secret key can be brute-forced against the cards of a resigned daily attempt)."""
    if value is None:
        return
    weakness = secret_weakness(value)
    if value in PUBLISHED_SECRETS or (weakness and not DEBUG):
        raise ImproperlyConfigured(f"{name} is {value!r}, {weakness}. {advice}")


DEBUG = env_bool("DJANGO_DEBUG", default=False)
# SQLite database, static files and, in debug mode, the secret key made on first run.
VAR_DIR = BASE_DIR / Path(env_str("KLONDIKE_VAR_DIR", "var") or "var").expanduser()

_NEW_KEY = "python3 -c 'import secrets; print(secrets.token_urlsafe(50))'"
# Secrets that are written in this repository (or were), and so protect nothing.
PUBLISHED_SECRETS = frozenset(
    {
        "change-me-to-a-long-random-string",  # .env.example
        "insecure-development-key-only-used-when-DJANGO_DEBUG-is-on",  # the old debug key
        "test-only-insecure-secret-key-not-for-production",  # the old `make test` key
        "klondike-tests",  # tests/conftest.py's DAILY_SECRET
        "collectstatic-only",  # the Dockerfile's build step, before
        "r3al-" + "Qx7!pZ" * 9,  # test keys before they were drawn at random
        "pr0duction-" + "x9Q!" * 15,
        "scraper-" + "k3Y!" * 12,  # tests/config/test_metrics.py's METRICS_TOKEN, before
    }
)

# Production has no default secret: a missing, published or weak key stops start-up here. In
# debug mode a missing key is a random one kept in VAR_DIR/secret-key (a weak one is let be).
SECRET_KEY = env_str("DJANGO_SECRET_KEY")
_refuse_weak(
    "DJANGO_SECRET_KEY",
    SECRET_KEY,
    f"Set it to a long random string of your own ({_NEW_KEY})"
    + (", or unset it: debug mode then makes one." if DEBUG else "."),
)
if SECRET_KEY is None:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is not set. Set it to a long random string "
            f"({_NEW_KEY}), or set DJANGO_DEBUG=1 for local development."
        )
    SECRET_KEY = _var_secret("secret-key")
# Keys retired by a rotation, newest first (docs/operations.md, "Rotating the secrets"): still
# accepted for what they signed (sessions, e-mail links), never used to sign. A published or
# weak one is refused as the key is: it would let anyone forge what it is accepted for.
SECRET_KEY_FALLBACKS = env_list("DJANGO_SECRET_KEY_FALLBACKS", [])
for _retired in SECRET_KEY_FALLBACKS:
    _refuse_weak(
        "A key in DJANGO_SECRET_KEY_FALLBACKS",
        _retired,
        "List only keys this deployment really used, or none.",
    )

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

# Behind TLS (the production default when debug is off): secure cookies, HSTS, redirects.
HTTPS = env_bool("DJANGO_HTTPS", default=not DEBUG)


def _site_url(value: str | None) -> str:
    """The site's origin, `scheme://host[:port]`, which every link the service writes starts
    with (e-mail links, a share page's og:url and og:image): never the request's Host, whose
    port any client may choose. Unset: `make run`'s origin in debug mode, else the scheme
    (DJANGO_HTTPS) and the first of DJANGO_ALLOWED_HOSTS that names one host."""
    if value is None:
        if DEBUG:
            return "http://127.0.0.1:8000"
        hosts = [h for h in ALLOWED_HOSTS if h and "*" not in h and not h.startswith(".")]
        if not hosts:
            raise ImproperlyConfigured(
                "SITE_URL is not set and DJANGO_ALLOWED_HOSTS names no single host: set "
                "SITE_URL to the site's origin (https://klondike.example)."
            )
        return f"{'https' if HTTPS else 'http'}://{hosts[0]}"
    parts = urlsplit(value.rstrip("/"))
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path or parts.query:
        raise ImproperlyConfigured(
            f"SITE_URL is {value!r}: it is an origin, scheme://host[:port] with no path "
            "(https://klondike.example)."
        )
    return f"{parts.scheme}://{parts.netloc}"


SITE_URL = _site_url(env_str("SITE_URL"))

DATABASE_URL = env_str("DATABASE_URL")
REDIS_URL = env_str("REDIS_URL")

DAILY_MODES = env_list("DAILY_MODES", ["D1N", "D3N"])
# Keys the daily deal numbers (HMAC of date|mode), so nobody can predict a day's deal. Unset:
# derived from SECRET_KEY, so one secret serves both and the daily one never reveals the key.
_GIVEN_DAILY_SECRET = env_str("DAILY_SECRET")
_refuse_weak(
    "DAILY_SECRET",
    _GIVEN_DAILY_SECRET,
    f"Set it to a long random string of your own ({_NEW_KEY}), "
    "or unset it to derive it from DJANGO_SECRET_KEY.",
)
DAILY_SECRET: str = _GIVEN_DAILY_SECRET or (
    hmac.new(SECRET_KEY.encode(), b"klondike daily deals", hashlib.sha256).hexdigest()
)
# Seconds the solver may spend proving one candidate daily deal winnable.
DAILY_SOLVE_BUDGET_S = env_float("DAILY_SOLVE_BUDGET_S", 5.0)
LOG_LEVEL = env_str("LOG_LEVEL", "INFO") or "INFO"

# Scoped API throttle rates, as DRF writes them ("10/min").
THROTTLE_LOGIN = env_str("THROTTLE_LOGIN", "10/min")
THROTTLE_REGISTER = env_str("THROTTLE_REGISTER", "5/min")
THROTTLE_MOVES = env_str("THROTTLE_MOVES", "600/min")

# Proxies in front of the service that set X-Forwarded-For (DRF's NUM_PROXIES): 0 means the
# connection's own address is the client's, and a client's X-Forwarded-For is ignored.
TRUSTED_PROXIES = env_int("TRUSTED_PROXIES", 0)
if TRUSTED_PROXIES < 0:
    raise ImproperlyConfigured("TRUSTED_PROXIES is a count of proxies: 0 or more.")

# Solver searches (hints) one host runs at once, across all its server processes; a hint
# asked while they are all busy answers at once without searching.
SOLVER_SEARCHES_AT_ONCE = env_int("SOLVER_SEARCHES_AT_ONCE", 1)
if SOLVER_SEARCHES_AT_ONCE < 1:
    raise ImproperlyConfigured("SOLVER_SEARCHES_AT_ONCE is at least 1.")
# Password hashes (a login, a sign-up, a new password: PBKDF2 at Django's million iterations,
# about half a second of a core each) one host runs at once, across all its server processes;
# past that, one answers 503 at once. A login flood from many addresses then takes this many
# cores at most, never the moves'.
PASSWORD_HASHES_AT_ONCE = env_int("PASSWORD_HASHES_AT_ONCE", 1)
if PASSWORD_HASHES_AT_ONCE < 1:
    raise ImproperlyConfigured("PASSWORD_HASHES_AT_ONCE is at least 1.")
# More scoped rates: hints, game creation (casual games and ranked starts) and exports, per
# player.
THROTTLE_HINTS = env_str("THROTTLE_HINTS", "60/min")
THROTTLE_GAMES = env_str("THROTTLE_GAMES", "30/min")
THROTTLE_EXPORT = env_str("THROTTLE_EXPORT", "6/min")
# Share pages and their image cards (frontend/share.py), per client address.
THROTTLE_SHARE = env_str("THROTTLE_SHARE", "60/min")
# Reports of other players' entries, per player.
THROTTLE_REPORTS = env_str("THROTTLE_REPORTS", "10/hour")

# The owner's connection to the same PostgreSQL database, for `manage.py migrate` and the test
# suite only (never the web, worker or beat processes). A process that has it connects as the
# owner, and the migrations grant DATABASE_URL's role the service's privileges. Ignored without
# DATABASE_URL.
DATABASE_MIGRATE_URL = env_str("DATABASE_MIGRATE_URL")
# PostgreSQL connections per process in Django's psycopg pool, shared by the process's threads;
# 0 (the default): no pool, each thread keeps its own connection for a minute at a time
# (config/settings.py, docs/scaling.md "Connections"). A request that finds every connection
# of the pool lent waits up to DATABASE_POOL_TIMEOUT_S seconds, then fails.
DATABASE_POOL_SIZE = env_int("DATABASE_POOL_SIZE", 0)
if DATABASE_POOL_SIZE < 0:
    raise ImproperlyConfigured("DATABASE_POOL_SIZE is a number of connections: 0 or more.")
DATABASE_POOL_TIMEOUT_S = env_float("DATABASE_POOL_TIMEOUT_S", 10.0)

# Failed logins (API and admin alike) lock out an account from one client address, and
# separately the address,
# after LOGIN_FAILURE_LIMIT failures within LOGIN_LOCKOUT_MINUTES, until that much time has
# passed since the failures that reached the limit (django-axes, counted in the database).
LOGIN_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 10)
LOGIN_LOCKOUT_MINUTES = env_int("LOGIN_LOCKOUT_MINUTES", 15)
if LOGIN_FAILURE_LIMIT < 1 or LOGIN_LOCKOUT_MINUTES < 1:
    raise ImproperlyConfigured("LOGIN_FAILURE_LIMIT and LOGIN_LOCKOUT_MINUTES must be 1 or more.")

# API tokens (one per login, per device) expire this many days after they were last used:
# each use extends a token to this many days from then, at most once a day.
TOKEN_TTL_DAYS = env_int("TOKEN_TTL_DAYS", 30)
if TOKEN_TTL_DAYS < 1:
    raise ImproperlyConfigured("TOKEN_TTL_DAYS must be 1 or more.")

# Outgoing e-mail (password reset links). EMAIL_HOST set: sent over SMTP with these settings.
# Unset: no mail leaves the machine; each message is written as a file under VAR_DIR/mail.
EMAIL_HOST = env_str("EMAIL_HOST")
EMAIL_PORT = env_int("EMAIL_PORT", 587)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "") or ""
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "") or ""
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", default=True)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", default=False)
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise ImproperlyConfigured(
        "EMAIL_USE_TLS (STARTTLS, usually port 587) and EMAIL_USE_SSL (implicit TLS, usually "
        "port 465) exclude each other: set one of them to 0."
    )
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Klondike Daily <noreply@localhost>")

# Prometheus metrics (config/metrics.py; docs/operations.md, "What to watch"). Each web node
# serves them at /metrics to a scraper that sends `Authorization: Bearer <METRICS_TOKEN>`;
# everyone else, and everyone while it is unset, gets the site's 404. A secret, refused as
# DJANGO_SECRET_KEY is when published or (debug off) weak.
METRICS_TOKEN = env_str("METRICS_TOKEN")
_refuse_weak(
    "METRICS_TOKEN",
    METRICS_TOKEN,
    f"Set it to a long random string of your own ({_NEW_KEY}), or unset it: no metrics.",
)
# Where the processes of one gunicorn master, or of one Celery worker, write their metrics for
# a scrape to sum (prometheus-client's multiprocess mode, which reads this same variable). One
# directory per master or worker; config/gunicorn.py makes one when it is unset.
PROMETHEUS_MULTIPROC_DIR = env_str("PROMETHEUS_MULTIPROC_DIR")
if PROMETHEUS_MULTIPROC_DIR is None:
    # prometheus-client takes the variable's mere presence, empty too, for multiprocess mode
    # (and would then write its files into the working directory).
    os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
# host:port where a Celery worker serves its own metrics (its jobs' durations) to the scraper,
# under the same token; unset: it serves none. Its pool's processes count in
# PROMETHEUS_MULTIPROC_DIR, which must then be set.
CELERY_METRICS_BIND = env_str("CELERY_METRICS_BIND")
if CELERY_METRICS_BIND and not (METRICS_TOKEN and PROMETHEUS_MULTIPROC_DIR):
    raise ImproperlyConfigured(
        "CELERY_METRICS_BIND needs METRICS_TOKEN (the scraper's secret) and "
        "PROMETHEUS_MULTIPROC_DIR (a directory of the worker's own)."
    )
