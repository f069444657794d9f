"""The games app's errors, each rendered in the API's error format by `config.errors`."""

from __future__ import annotations

from rest_framework import status

from config.errors import ApplicationError, ConflictError, NotFoundError


class GameNotFoundError(NotFoundError):
    """No such game, or one the caller may not see (never reveal that it exists)."""


class IllegalMoveApiError(ApplicationError):
    status_code = status.HTTP_422_UNPROCESSABLE_ENTITY
    code = "illegal_move"


class SeqMismatchError(ConflictError):
    code = "seq_mismatch"


class GameOverError(ConflictError):
    code = "game_over"


class ReplayMismatchError(ApplicationError):
    """The full replay of a finished game disagrees with the live snapshot: a server bug."""

    status_code = status.HTTP_500_INTERNAL_SERVER_ERROR
    code = "replay_mismatch"


class DailyDealOpenError(ConflictError):
    code = "daily_deal_open"


class HintBusyError(ApplicationError):
    status_code = 429
    code = "throttled"
