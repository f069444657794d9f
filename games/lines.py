"""Winning lines for a replay: what the solver would play from any position the player
reached, so that a replay can show it on its board ("show from here").

A replay is public once it is visible at all, so the line is too; but an open daily deal's
replay is redacted, and a line from one of its positions would be a solution of the deal
everybody is still playing: none is given until its board is final. A search costs up to
LINE_BUDGET_S of a core, so it runs in the search process, below play's CPU priority, in a
slot of the host's searches (`games.hints`); when they are all taken the answer is
`unknown` at once, and the page may ask again. What a search found is kept for an hour: a
replay is watched more than once, and a position's verdict never changes.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from config.cache import cache_get, cache_set
from games import engine, search_process
from games.engine.solver.hints import LOST
from games.errors import GameNotFoundError
from games.hints import position_digest, search_slots
from games.models import Game
from games.selectors import daily_board_open, game_log
from games.services import game_setup

LINE_BUDGET_S = 2.0
LINE_KEY = "replay-line:v1"
LINE_TTL_S = 3600


def replay_line(*, game: Game, step: int) -> dict[str, Any]:
    """A winning line from the position after the first `step` actions of the game's log:
    `{step, status, line}`, `status` "winnable" (with the line, in the API's action form),
    "lost" (proven), or "unknown" (not found within the budget, or no search could run now).

    The caller checks that the replay is visible (`games.selectors.game_replay_visible`).

    :raises GameNotFoundError: the game's daily board is still open, or `step` is past its log.
    """
    if daily_board_open(game):
        raise GameNotFoundError(gettext("No winning line while the daily board is open."))
    log = [row.notation for row in game_log(game=game)]
    if step > len(log):
        raise GameNotFoundError(gettext("This game has no such step."))
    analysis = game.analysis or {}
    if analysis.get("winning_line") and analysis.get("winning_line_after") == step - 1:
        # The analysis' own line wins from there: the same line the replay names, at once.
        return _answer(step, "winnable", "\n".join(analysis["winning_line"]))
    state = engine.replay(game_setup(game), log[:step]).state
    key = f"{LINE_KEY}:{position_digest(game, state)}"
    kept = cache_get(key)
    if kept is None:
        kept = _search(state)
        if kept is not None:
            cache_set(key, kept, LINE_TTL_S)
    status, line = kept if kept is not None else ("unknown", "")
    return _answer(step, status, line)


def _answer(step: int, status: str, line: str) -> dict[str, Any]:
    """The API's answer: `line` (notation, one action a line) in the API's action form."""
    actions = engine.parse_actions(line) if line else []
    return {"step": step, "status": status, "line": [engine.action_to_dict(a) for a in actions]}


def _search(state: engine.GameState) -> tuple[str, str] | None:
    """(status, line in notation) of a search of `state`; None when none could run or it
    found nothing within the budget (nothing to keep)."""
    if state.is_won:
        return ("winnable", "")
    with search_slots.take() as slot:
        if not slot:
            return None
        hint = search_process.hint(state, budget_s=LINE_BUDGET_S, lane="background")
    if hint.source == "solver" and hint.line:
        return ("winnable", engine.format_actions(hint.line))
    if LOST in hint.reason:  # proven lost; else out of time
        return ("lost", "")
    return None
