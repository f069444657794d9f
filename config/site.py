"""The site's own links: built from SITE_URL (config/env.py), never from the request's Host,
whose port (and, where ALLOWED_HOSTS allows several, name) the client chooses."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings


def site_link(path: str) -> str:
    """The absolute link to `path` (which starts with a slash) on this site."""
    return f"{settings.SITE_URL}{path}"


def site_domain() -> str:
    """The site's host and port as links carry them (`klondike.example`, `127.0.0.1:8480`)."""
    return urlsplit(settings.SITE_URL).netloc


def site_uses_https() -> bool:
    return urlsplit(settings.SITE_URL).scheme == "https"
