"""A winning line from any position of a replay (games/lines.py, #39 item 5): it wins from
there, it is the analysis' own at the step the analysis names, and nothing of an open daily
deal leaks through it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import time_machine

from games import engine
from games.models import Game
from tests.games.conftest import CODE

pytestmark = pytest.mark.django_db


def _resigned(start, act, *bodies):
    game = start()
    for body in (*bodies, {"action": "resign"}):
        game = act(game, **body).json()
    return game


def _line(client, game, step):
    return client.get(f"/api/v1/games/{game['id']}/replay/line?step={step}")


def test_a_line_from_a_reached_position_wins_from_there(start, act, api_client):
    game = _resigned(start, act, {"action": "move", "from_": "t1", "to": "f"}, {"action": "draw"})
    answer = _line(api_client, game, 2)  # anyone: the replay is public
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["step"] == 2 and body["status"] == "winnable" and body["line"]
    state = engine.replay(CODE, ["t1-f3", "draw"]).state
    actions = [engine.parse_action(_notation(a)) for a in body["line"]]
    assert engine.replay(state, actions).state.is_won


def _notation(action):
    """An action of the API's form in the engine's notation (the test's own small reader)."""
    if action["action"] in ("draw", "recycle"):
        return action["action"]
    count = action.get("count", 1)
    return f"{action['from']}-{action['to']}" + (f"x{count}" if count > 1 else "")


def test_the_analysis_line_is_the_answer_at_its_step(start, act, api_client):
    game = _resigned(start, act, {"action": "draw"})
    Game.objects.filter(pk=game["id"]).update(
        analysis={
            "status": "still_winnable",
            "winning_line": ["t1-f3", "t7-f2"],
            "winning_line_after": 0,
            "point_of_no_return": None,
        }
    )
    body = _line(api_client, game, 1).json()
    assert body == {
        "step": 1,
        "status": "winnable",
        "line": [
            {"action": "move", "from": "t1", "to": "f3", "count": 1},
            {"action": "move", "from": "t7", "to": "f2", "count": 1},
        ],
    }


@pytest.mark.parametrize("step", ["-1", "x", "", "100001"])
def test_a_bad_step_is_a_clear_400(start, act, api_client, step):
    game = _resigned(start, act)
    answer = api_client.get(f"/api/v1/games/{game['id']}/replay/line?step={step}")
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "invalid"


def test_past_the_log_or_in_play_is_404(start, act, auth_client):
    game = _resigned(start, act)
    assert _line(auth_client, game, 3).status_code == 404  # the log has one entry
    playing = start()
    assert _line(auth_client, playing, 0).status_code == 404


def test_no_line_while_a_daily_board_is_open_not_even_to_its_owner(auth_client):
    with time_machine.travel(datetime(2026, 11, 30, 12, tzinfo=UTC), tick=False):
        game = auth_client.post("/api/v1/daily/2026-11-30/D1N/start").json()
        auth_client.post(
            f"/api/v1/games/{game['id']}/actions", {"action": "resign", "seq": 0}, format="json"
        )
        assert auth_client.get(f"/api/v1/games/{game['id']}/replay").status_code == 200
        answer = _line(auth_client, game, 0)
        assert answer.status_code == 404
        assert answer.json()["error"]["code"] == "not_found"
