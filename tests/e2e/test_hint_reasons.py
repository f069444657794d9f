"""A hint on the page says why, in the server's words, after its move (issue #39)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import sign_up, start_casual, wait_until

pytestmark = pytest.mark.e2e

# Deal 5 of D1N: its solver line draws first, while 8♦ could go from column 7 onto 9♠ in
# column 3 and turn a card up; the hint is that move.
CODE = "KL1-D1N-AAAAAAF"
LINE = "[data-board-status]"


def test_the_hint_line_shows_the_reason_after_the_move(page: Any) -> None:
    from games import engine, hints
    from games.engine import solver

    sign_up(page)
    game_id = start_casual(page, CODE)
    proof = solver.solve(engine.GameState.from_code(CODE), budget_s=600, max_nodes=5000)
    assert isinstance(proof, solver.Solved) and proof.actions[0] == engine.DRAW
    # The kept line, as for a game dealt "winnable only": the hint needs no search.
    hints.hint_line_keep(game_id=game_id, line_text=engine.format_actions(proof.actions))
    page.click("[data-hint]")
    wait_until(page, f"document.querySelector('{LINE}').textContent.startsWith('Hint:')")
    text = page.eval_on_selector(LINE, "element => element.textContent")
    assert text == "Hint: 8 of diamonds to column 3 — frees a face-down card"
    # The move highlighted is the one named; the server's answer says the same.
    answer = page.request.get(f"/api/v1/games/{game_id}/hint").json()
    assert answer["move"]["from"] == "t7" and answer["move"]["to"] == "t3"
    assert answer["reason_message"] == "frees a face-down card"
