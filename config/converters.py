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
