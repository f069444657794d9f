"""Hints: the next move of a proven winning line, or a heuristic move, served so that hints
can never starve play.

A search costs up to HINT_BUDGET_S of a core, so:
- a player has one hint search at a time (a second is 429 `throttled`), and a rate
  (the `hints` throttle scope, in the view);
- the host runs at most `SOLVER_SEARCHES_AT_ONCE` searches at once, across all its server
  processes (`config.slots.HostSlots`); when they are all taken, the hint answers at once
  from the kept line or the heuristic, without searching;
- a search that found no line is not tried again on the same position for NO_LINE_TTL_S: it
  would find the same nothing;
- a search runs in a process of its own below play's CPU priority (nice 10), so that a
  move's request, which needs a core for a few milliseconds, always comes first.
A hint that follows the kept line of the last one costs no search at all; so does the first
hint of a game dealt "winnable only", whose kept line starts as the solver's proof of its deal
(`games.pool.ProvenDeal`, kept by `games.services.game_start_winnable`).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.utils.translation import gettext

from accounts.authentication import user_check_active
from config.api import ApplicationError, ForbiddenError
from config.cache import CACHE_ERRORS, cache_failed, cache_get, cache_paused, cache_set
from config.env import VAR_DIR
from config.slots import HostSlots
from games import engine, search_process
from games.engine import solver
from games.errors import GameOverError
from games.models import Game
from games.services import game_state

logger = logging.getLogger(__name__)

HINT_BUDGET_S = 0.5
# A game's last winning line from a hint, or the proof of its winnable deal, so that the next
# hint follows it (solver.hint).
HINT_LINE_KEY = "hint-line:v1"
HINT_LINE_TTL_S = 3600
# A position whose search found no line (rules included in the key).
NO_LINE_KEY = "hint-no-line:v1"
NO_LINE_TTL_S = 3600
# A player's hint search in progress; it outlives any search, in case its process dies.
SEARCHING_KEY = "hint-searching:v1"
SEARCHING_TTL_S = 10

_search_slots = HostSlots("solver-search", settings.SOLVER_SEARCHES_AT_ONCE, VAR_DIR / "locks")


class HintBusyError(ApplicationError):
    status_code = 429
    code = "throttled"


def game_hint(*, game: Game) -> dict[str, Any]:
    """The next action of a solution from the current position, or a heuristic move, or
    `null` when nothing productive is left.

    :raises AuthenticationFailed: the account was deactivated.
    :raises GameOverError: the game is over.
    :raises ForbiddenError: a ranked daily attempt (no hints there).
    :raises HintBusyError: the player's last hint is still being searched.
    """
    user_check_active(user_id=game.user_id)
    if game.daily_id is not None:
        raise ForbiddenError(gettext("No hints in a ranked daily attempt."))
    if game.is_over:
        raise GameOverError(gettext("This game is over: there is nothing to hint."))
    state = game_state(game)
    # The hint without a search: the kept line's next action when the line still wins from
    # here (then it takes neither the player's search mark nor a slot of the host), else a
    # heuristic move, which a search replaces when one may run.
    hint = solver.hint(state, budget_s=0, line=_hint_line_get(_hint_line_key(game.pk)))
    no_line_key = f"{NO_LINE_KEY}:{_position_digest(game, state)}"
    searched = False
    if hint.source != "solver" and cache_get(no_line_key) is None:
        with _one_search_per_player(game.user_id), _search_slots.take() as slot:
            if slot:
                hint = search_process.hint(state, budget_s=HINT_BUDGET_S)
                searched = True
    # Cache entries, not records: writing them here keeps the read a read.
    if hint.line:
        hint_line_keep(game_id=game.pk, line_text=engine.format_actions(hint.line))
    elif searched:
        cache_set(no_line_key, 1, NO_LINE_TTL_S)
    return {
        "move": engine.action_to_dict(hint.action) if hint.action is not None else None,
        "source": hint.source,
    }


def hint_line_keep(*, game_id: int, line_text: str) -> None:
    """Keep a winning line (notation) of the game's current position for its next hint to
    follow, for HINT_LINE_TTL_S. Best effort: with the cache unreachable, nothing is kept and
    that hint searches. The line stays on the server: it would give away face-down cards."""
    cache_set(_hint_line_key(game_id), line_text, HINT_LINE_TTL_S)


def _hint_line_key(game_id: int) -> str:
    return f"{HINT_LINE_KEY}:{game_id}"


@contextlib.contextmanager
def _one_search_per_player(user_id: int) -> Iterator[None]:
    """Hold the player's search mark for the block (best effort: without a cache, the rate
    and the host's bound still hold).

    :raises HintBusyError: the player has a hint being searched already.
    """
    key = f"{SEARCHING_KEY}:{user_id}"
    mine = None
    if not cache_paused():
        try:
            mine = cache.add(key, 1, SEARCHING_TTL_S)
        except CACHE_ERRORS:
            cache_failed("hint search mark")
    if mine is False:
        raise HintBusyError(
            gettext("Your last hint is still being worked out; ask again in a moment."),
            retry_after=1,
        )
    try:
        yield
    finally:
        if mine:
            with contextlib.suppress(*CACHE_ERRORS):  # it expires on its own
                cache.delete(key)


def _position_digest(game: Game, state: engine.GameState) -> str:
    """A short key of the position under the game's rules."""
    text = repr((game.draw, game.preset, state.position_key()))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _hint_line_get(key: str) -> list[engine.PlainAction]:
    """The kept line of a game's last solver hint; empty when there is none, the cache is
    unreachable, or the entry is not a line of plain actions (then the hint searches)."""
    text = cache_get(key)
    try:
        line = engine.parse_actions(text) if isinstance(text, str) else []
    except engine.NotationError:
        return []
    plain = [a for a in line if isinstance(a, engine.PlainAction)]
    return plain if len(plain) == len(line) else []
