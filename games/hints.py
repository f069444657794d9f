"""Hints: the next move of a proven winning line, or a heuristic move, with its reason in the
player's words (`games.hint_reasons`), served so that hints can never starve play.

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
A hint that follows the kept line of the last one costs no search at all (where the line
draws next, a move the player can see may go first: the engine tries the line's own moves in
another order, by replay); so does the first hint of a game dealt "winnable only", whose kept
line starts as the solver's proof of its deal (`games.pool.ProvenDeal`, kept by
`games.services.game_start_winnable`).

A winnable position of a one-pass preset often needs seconds of search, not half of one. So a
search that ran out of time without a verdict (not one that proved the position lost) goes on
outside the request, once per position: `hint_line_search`, for HINT_BACKGROUND_BUDGET_S, on
the `analysis` queue or embedded mode's background thread (`games.tasks`), which bound it: it
holds neither a slot of the host's request-time searches nor the player's mark. It keeps the
line it finds as the game's kept line, so that the next hint follows a proven winning line.
While it runs, a hint of that position says `searching`, so that the page can ask again once
it is done instead of leaving the player with the heuristic move.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.utils.translation import gettext

from accounts.authentication import user_check_active
from config.cache import cache_add, cache_delete, cache_get, cache_set
from config.env import VAR_DIR
from config.errors import ForbiddenError
from config.hooks import Hook
from config.slots import HostSlots
from games import engine, search_process
from games.engine import solver
from games.engine.solver.hints import NO_LINE_YET
from games.errors import GameOverError, HintBusyError
from games.hint_reasons import hint_reason_message
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
# A game's position whose background search is queued or running (the search keeps its line
# for that game only). It outlives the search's budget by a queue's wait, in case the search
# never runs or its process dies; the search clears it when it ends.
BACKGROUND_KEY = "hint-background:v1"
BACKGROUND_TTL_S = 2 * settings.HINT_BACKGROUND_BUDGET_S + 10

# Sends the background search of a hint's position (game id, position digest) to run outside
# the request: a task on the `analysis` queue, or embedded mode's background thread
# (`games.tasks.hint_line_search_queue`, connected in `games.apps`).
hint_line_search_queue: Hook[[int, str]] = Hook("games.hints.hint_line_search_queue")

search_slots = HostSlots("solver-search", settings.SOLVER_SEARCHES_AT_ONCE, VAR_DIR / "locks")


def game_hint(*, game: Game) -> dict[str, Any]:
    """The next action of a solution from the current position, or a heuristic move, or
    `null` when nothing productive is left; `searching`: a longer search of this position is
    under way outside the request, so that a hint asked again once it is done may come from a
    winning line; `reason`: why (the engine's code), and `reason_message`: that in the
    request's language.

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
    position = position_digest(game, state)
    no_line_key = f"{NO_LINE_KEY}:{position}"
    background_key = _background_key(game.pk, position)
    searched = False
    if hint.source != "solver" and cache_get(no_line_key) is None:
        with _one_search_per_player(game.user_id), search_slots.take() as slot:
            if slot:
                hint = search_process.hint(state, budget_s=HINT_BUDGET_S)
                searched = True
    # Cache entries, not records: writing them here keeps the read a read.
    if hint.line:
        hint_line_keep(game_id=game.pk, line_text=engine.format_actions(hint.line))
    elif searched:
        cache_set(no_line_key, 1, NO_LINE_TTL_S)
        if NO_LINE_YET in hint.reason:  # out of time, not a proof of loss: search on, longer
            # Marked first: the search may end (and clear the mark) before the queueing returns.
            cache_set(background_key, 1, BACKGROUND_TTL_S)
            if not _line_search_queue(game.pk, position):
                cache_delete(background_key)
    searching = hint.source != "solver" and cache_get(background_key) is not None
    return {
        "move": engine.action_to_dict(hint.action) if hint.action is not None else None,
        "source": hint.source,
        "searching": searching,
        "reason": hint.reason_code,
        "reason_message": hint_reason_message(hint.reason_code),
    }


def hint_line_keep(*, game_id: int, line_text: str) -> None:
    """Keep a winning line (notation) of the game's current position for its next hint to
    follow, for HINT_LINE_TTL_S. Best effort: with the cache unreachable, nothing is kept and
    that hint searches. The line stays on the server: it would give away face-down cards."""
    cache_set(_hint_line_key(game_id), line_text, HINT_LINE_TTL_S)


def hint_line_search(*, game_id: int, position: str) -> str:
    """Search a hint's position again for HINT_BACKGROUND_BUDGET_S, after the hint's own search
    ran out of time, and keep the winning line it finds as the game's kept line. For a task
    outside the request (`hint_line_search_queue`), bounded as the other slow work is (one
    background thread in embedded mode, the `analysis` workers when scaled): it takes neither
    a slot of the host's request-time searches (holding one for seconds would leave every
    other player's hint without a search) nor the player's search mark, and searches in the
    search process's background lane, below play's CPU priority. Idempotent.

    `position`: the `position_digest` searched for. Returns what came of it: "stale" (no
    search: the game is gone, over, a ranked daily attempt, or no longer at `position`),
    "lost" (proven; the position keeps its no-line mark), "no line"
    (out of time again: nothing more), "kept" (a line, kept), "not kept" (a line, but the
    player has since left it, or a later hint found one). A line clears the position's no-line
    mark either way.
    """
    try:
        return _line_search(game_id, position)
    finally:
        cache_delete(_background_key(game_id, position))  # whatever came of it, it is over


def _line_search(game_id: int, position: str) -> str:
    """`hint_line_search` but for clearing the position's mark of a search under way."""
    state = _playable_state(game_id, position)
    if state is None:
        return "stale"
    hint = search_process.hint(state, budget_s=settings.HINT_BACKGROUND_BUDGET_S, lane="background")
    if not hint.line:
        return "no line" if NO_LINE_YET in hint.reason else "lost"
    cache_delete(f"{NO_LINE_KEY}:{position}")
    # The player may have moved meanwhile. Keep the line only where the next hint continues it
    # (solver.hint): the same position, or the one its first action leads to; and never over a
    # line a later hint found.
    now = _playable_state(game_id, None)
    if now is None or solver.line_rest(now, _hint_line_get(_hint_line_key(game_id))):
        return "not kept"
    if not solver.line_rest(now, hint.line):
        return "not kept"
    hint_line_keep(game_id=game_id, line_text=engine.format_actions(hint.line))
    return "kept"


def _line_search_queue(game_id: int, position: str) -> bool:
    """Queue `hint_line_search` of the game's position; False when it could not be. Best
    effort: a queue that cannot take it (Redis away, the background thread gone) is logged,
    and the hint's answer stands."""
    try:
        hint_line_search_queue(game_id, position)
    except Exception:
        logger.exception("could not queue the background search of game %s's hint", game_id)
        return False
    return True


def _playable_state(game_id: int, position: str | None) -> engine.GameState | None:
    """The game's current state, if it is a casual game in play (at `position`, unless None)."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.is_over or game.daily_id is not None:
        return None
    state = game_state(game)
    if position is not None and position_digest(game, state) != position:
        return None
    return state


def _hint_line_key(game_id: int) -> str:
    return f"{HINT_LINE_KEY}:{game_id}"


def _background_key(game_id: int, position: str) -> str:
    return f"{BACKGROUND_KEY}:{game_id}:{position}"


@contextlib.contextmanager
def _one_search_per_player(user_id: int) -> Iterator[None]:
    """Hold the player's search mark for the block (best effort: without a cache, the rate
    and the host's bound still hold).

    :raises HintBusyError: the player has a hint being searched already.
    """
    key = f"{SEARCHING_KEY}:{user_id}"
    mine = cache_add(key, 1, SEARCHING_TTL_S, what="hint search mark")
    if mine is False:
        raise HintBusyError(
            gettext("Your last hint is still being worked out; ask again in a moment."),
            retry_after=1,
        )
    try:
        yield
    finally:
        if mine:
            cache_delete(key)


def position_digest(game: Game, state: engine.GameState) -> str:
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
