"""A replay's winning lines, readable and playable (#39, item 5): the point of no return is
marked in the move list and on the score chart; the analysis' line and a line from any step
are shown as the move list words moves, and stepped on the board."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import sign_up, start_casual, wait_until

pytestmark = pytest.mark.e2e

CODE = "KL1-D1N-AAAAAAG"


def board_cards(page: Any) -> list[str]:
    return list(page.eval_on_selector_all(".board .card.up", "ns => ns.map(n => n.dataset.card)"))


def test_the_winning_lines_of_a_replay_read_and_play_on_the_board(page: Any) -> None:
    from games import engine
    from games.engine import solver
    from games.models import Game

    sign_up(page)
    game_id = start_casual(page, CODE)
    for body in ({"action": "draw"}, {"action": "draw"}):
        page.evaluate("b => klondike.act(b)", body)
    page.evaluate("klondike.act({action: 'resign'})")
    after_one = engine.replay(CODE, ["draw"]).state
    line = solver.solve(after_one, budget_s=20)
    assert isinstance(line, solver.Solved)
    Game.objects.filter(pk=game_id).update(
        analysis={
            "status": "point_of_no_return",
            "point_of_no_return": 1,
            "notation": "draw",
            "winning_line": [engine.format_action(a) for a in line.actions],
            "winning_line_after": 0,
            "effective_actions": 2,
            "solver_calls": 3,
            "message": "after draw (action 1) the deal can no longer be won",
        }
    )
    page.goto(f"/replay/{game_id}")
    page.wait_for_selector(".move-list li")

    # The point of no return: step 2, in the move list and on the chart.
    marked = page.eval_on_selector_all(
        "[data-moves] li", "ns => ns.map(n => n.classList.contains('no-return'))"
    )
    assert marked[:3] == [False, True, False], marked
    assert page.is_visible("[data-moves] li.no-return .badge")
    assert page.locator(".chart-no-return").count() == 1

    # The analysis' line: words, not notation, then stepped on the board.
    page.click("[data-show-winning-line]")
    page.wait_for_selector("[data-line-section]:not([hidden]) [data-line-moves] li")
    labels = page.eval_on_selector_all("[data-line-moves] li", "ns => ns.map(n => n.innerText)")
    assert len(labels) == len(line.actions)
    assert all("→" in x or x in ("Draw", "Waste back to the stock") for x in labels), labels
    assert not any(
        engine.format_action(a) in labels for a in line.actions if "-" in engine.format_action(a)
    )
    start = board_cards(page)
    page.click("[data-forward]")
    wait_until(page, "document.querySelector('[data-line-moves] li.current') !== null")
    assert board_cards(page) != start or page.text_content("[data-step]") != "0"
    page.click("[data-last]")
    wait_until(page, "document.querySelectorAll('.board .found .card').length >= 8")

    # Back to the game, then a line from a step the player reached, searched by the server.
    page.click("[data-line-here]")  # "Back to the game"
    page.wait_for_selector("[data-line-section][hidden]", state="attached")
    page.click("[data-moves] li:nth-child(2) button")
    page.click("[data-line-here]")
    page.wait_for_selector("[data-line-section]:not([hidden]) [data-line-moves] li", timeout=30_000)
    title = page.text_content("[data-line-title]")
    assert "2" in title, title
