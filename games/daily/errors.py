"""The daily app's errors, each rendered in the API's error format by `config.errors`."""

from __future__ import annotations

from config.errors import ConflictError, NotFoundError


class DailyNotFoundError(NotFoundError):
    """An unknown mode, a future day, or a day closed to new starts."""


class AlreadyPlayedError(ConflictError):
    code = "already_played"


class ReportRefusedError(ConflictError):
    """A report of one's own entry."""

    code = "report_refused"


class AlreadyReportedError(ConflictError):
    """A second report of one entry by one player."""

    code = "already_reported"
