"""Every setting that comes from the environment is read here, and only here.

`.env.example` lists each variable with its meaning; keep the two in step.
"""

from __future__ import annotations

import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

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


DEBUG = env_bool("DJANGO_DEBUG", default=False)

# Production has no default secret: a missing key with debug off stops start-up here.
SECRET_KEY = env_str("DJANGO_SECRET_KEY")
if SECRET_KEY is None:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is not set. Set it to a long random string "
            "(python -c 'import secrets; print(secrets.token_urlsafe(50))'), "
            "or set DJANGO_DEBUG=1 for local development."
        )
    SECRET_KEY = "insecure-development-key-only-used-when-DJANGO_DEBUG-is-on"

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

# Behind TLS (the production default when debug is off): secure cookies, HSTS, redirects.
HTTPS = env_bool("DJANGO_HTTPS", default=not DEBUG)

DATABASE_URL = env_str("DATABASE_URL")
REDIS_URL = env_str("REDIS_URL")

DAILY_MODES = env_list("DAILY_MODES", ["D1N", "D3N"])
# Keys the daily deal numbers (HMAC of date|mode), so nobody can predict a day's deal.
DAILY_SECRET = env_str("DAILY_SECRET") or SECRET_KEY
# Seconds the solver may spend proving one candidate daily deal winnable.
DAILY_SOLVE_BUDGET_S = env_float("DAILY_SOLVE_BUDGET_S", 5.0)
LOG_LEVEL = env_str("LOG_LEVEL", "INFO") or "INFO"

# Scoped API throttle rates, as DRF writes them ("10/min").
THROTTLE_LOGIN = env_str("THROTTLE_LOGIN", "10/min")
THROTTLE_REGISTER = env_str("THROTTLE_REGISTER", "5/min")
THROTTLE_MOVES = env_str("THROTTLE_MOVES", "600/min")
