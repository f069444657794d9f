"""URL converters."""

from __future__ import annotations


class IdConverter:
    """A database id in a path: up to 18 digits, so it always fits a 64-bit integer column
    (a longer number is simply no route, hence a 404, never a database overflow)."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


class NameConverter:
    """A name in a path (a username): any characters but a slash and control characters, so
    a NUL byte, which no database text column holds, is no route (404), never a database
    error."""

    regex = "[^/\x00-\x1f\x7f]{1,150}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value
