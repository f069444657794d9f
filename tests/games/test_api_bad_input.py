"""Each bad action is a 4xx in the error format, and nothing is stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from games.engine.errors import ILLEGAL_MOVE_REASONS
from games.models import Action, Deal, Game
from games.refusals import refusal_rule

pytestmark = pytest.mark.django_db


def _unchanged(game_id, seq=0):
    stored = Game.objects.get(pk=game_id)
    assert stored.seq == seq
    assert Action.objects.filter(game_id=game_id).count() == seq


def _error(response, status, code):
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["code"] == code, error
    assert error["message"]
    return error


BAD_BODIES = {
    "unknown action": {"action": "fly"},
    "action not a string": {"action": 5},
    "no action": {},
    "unknown pile": {"action": "move", "from": "t8", "to": "t1"},
    "pile not a string": {"action": "move", "from": 3, "to": "t1"},
    "missing from": {"action": "move", "to": "t1"},
    "zero count": {"action": "move", "from": "t5", "to": "t4", "count": 0},
    "negative count": {"action": "move", "from": "t5", "to": "t4", "count": -2},
    "huge count": {"action": "move", "from": "t5", "to": "t4", "count": 10**9},
    "count as string": {"action": "move", "from": "t5", "to": "t4", "count": "1"},
    "count as bool": {"action": "move", "from": "t5", "to": "t4", "count": True},
    "card malformed": {"action": "double_tap", "from": "t5", "card": "1Z"},
    "tap from stock": {"action": "tap", "from": "stock"},
    # Each action checks its own fields as strictly as `move`: a draw with malformed fields
    # was applied (200).
    "draw with a move's fields": {"action": "draw", "from": {}, "to": 1369, "card": "0",
                                  "count": 99},
    "undo with a card": {"action": "undo", "card": "AS"},
    "recycle with a pile": {"action": "recycle", "from": "waste"},
    "resign with a count": {"action": "resign", "count": 1},
    "tap with a count": {"action": "tap", "from": "t1", "count": 1},
    "double tap with a target": {"action": "double_tap", "from": "t1", "to": "t2"},
    # The schema's `oneOf` of action shapes takes no other field: a misspelt one was ignored.
    "an unknown field": {"action": "move", "from": "t1", "to": "f", "cuont": 1},
}  # fmt: skip


@pytest.mark.parametrize("body", BAD_BODIES.values(), ids=BAD_BODIES.keys())
def test_malformed_actions_are_400(start, auth_client, body):
    game = start()
    response = auth_client.post(
        f"/api/v1/games/{game['id']}/actions", {"seq": 0, **body}, format="json"
    )
    _error(response, 400, "invalid")
    _unchanged(game["id"])


# 2**64 and above reach the parser as a float: the schema's maximum is 2**63 - 1.
@pytest.mark.parametrize("seq", [None, "0", -1, 1.5, True, 2**63, 474113406385466507264])
def test_bad_seq_is_400(start, auth_client, seq):
    game = start()
    body = {"action": "draw"} if seq is None else {"seq": seq, "action": "draw"}
    response = auth_client.post(f"/api/v1/games/{game['id']}/actions", body, format="json")
    _error(response, 400, "invalid")
    _unchanged(game["id"])


@pytest.mark.parametrize("raw", ["{nope", "[]", '"draw"', "null"])
def test_malformed_json_is_400(start, auth_client, raw):
    game = start()
    response = auth_client.generic(
        "POST", f"/api/v1/games/{game['id']}/actions", raw, content_type="application/json"
    )
    _error(response, 400, "invalid")
    _unchanged(game["id"])


ILLEGAL = {
    "card not in that spot": (
        {"action": "move", "from": "t5", "to": "t4", "card": "7C"},
        "not_face_up",
        {"card": "7C", "pile": "t5"},
    ),
    "moving a face-down card": (
        {"action": "move", "from": "t7", "to": "t1", "count": 2},
        "face_up_only",
        {"pile": "t7", "face_up": 1, "count": 2},
    ),
    "run longer than the face-up cards": (
        {"action": "move", "from": "t4", "to": "t2", "count": 3},
        "face_up_only",
        {"pile": "t4", "face_up": 1, "count": 3},
    ),
    "wrong colour": ({"action": "move", "from": "t6", "to": "t5"}, "column_build", None),
    "non-king to empty column": (
        {"action": "move", "from": "t5", "to": "t1"},
        "column_build",
        None,
    ),
    "tap to foundation not legal": ({"action": "tap", "from": "t2"}, "foundation_order", None),
    "recycle with stock left": ({"action": "recycle"}, "stock_not_empty", {}),
    "undo at the start": ({"action": "undo"}, "nothing_to_undo", {}),
    "to the stock": ({"action": "move", "from": "t1", "to": "stock"}, "not_a_target", None),
    "from an empty waste": (
        {"action": "move", "from": "waste", "to": "t1"},
        "pile_empty",
        {"pile": "waste"},
    ),
}


@pytest.mark.parametrize(("body", "reason", "details"), ILLEGAL.values(), ids=ILLEGAL.keys())
def test_illegal_moves_are_422_naming_the_rule(start, auth_client, body, reason, details):
    game = start()
    response = auth_client.post(
        f"/api/v1/games/{game['id']}/actions", {"seq": 0, **body}, format="json"
    )
    error = _error(response, 422, "illegal_move")
    assert "§" not in error["message"]  # a player's sentence; the section is `rule`
    assert error["rule"] == refusal_rule(reason)
    assert error["reason"] == reason
    if details is not None:
        assert error["details"] == details
    _unchanged(game["id"])


def test_every_refusal_reason_is_documented():
    text = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
    assert [r for r in sorted(ILLEGAL_MOVE_REASONS) if f"`{r}`" not in text] == []


def test_stale_and_repeated_seq_are_409_with_expected(start, act):
    game = start()
    assert act(game, action="draw").status_code == 200
    repeated = act(game, action="draw")  # same seq again: a retried request
    error = _error(repeated, 409, "seq_mismatch")
    assert error["expected"] == 1
    future = act(game, seq=5, action="draw")
    assert _error(future, 409, "seq_mismatch")["expected"] == 1
    _unchanged(game["id"], seq=1)


def test_actions_on_a_finished_game_are_409(start, act):
    game = start()
    game = act(game, action="resign").json()
    for body in ({"action": "draw"}, {"action": "undo"}, {"action": "resign"}):
        _error(act(game, **body), 409, "game_over")
    _unchanged(game["id"], seq=1)


def test_another_users_game_is_404(start, api_client, make_user):
    game = start()
    _, key = make_user("mallory")
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    response = api_client.post(
        f"/api/v1/games/{game['id']}/actions", {"seq": 0, "action": "draw"}, format="json"
    )
    _error(response, 404, "not_found")
    _unchanged(game["id"])


def test_unknown_game_is_404(auth_client):
    response = auth_client.post("/api/v1/games/999999/actions", {"seq": 0, "action": "draw"})
    assert response.status_code in (404, 415)
    response = auth_client.post(
        "/api/v1/games/999999/actions", {"seq": 0, "action": "draw"}, format="json"
    )
    _error(response, 404, "not_found")


CREATE_BAD = {
    "wrong shape code": {"code": "KL1-D2N-AAAAAAA"},
    "code too short": {"code": "KL1-D1N-AAA"},
    "code bad letters": {"code": "KL1-D1N-AAAAAA1"},
    "code scheme": {"code": "KL9-D1N-AAAAAAA"},
    "code not string": {"code": 12},
    "code and draw": {"code": "KL1-D1N-AAAAAAA", "draw": 1, "preset": "N"},
    "nothing": {},
    "draw only": {"draw": 1},
    "draw 2": {"draw": 2, "preset": "N"},
    "draw as string": {"draw": "1", "preset": "N"},
    "preset unknown": {"draw": 1, "preset": "X"},
    "preset long": {"draw": 1, "preset": "NN"},
    # One of the schema's two shapes, each closed: a misspelt `winnable` dealt a random deal.
    "an unknown field": {"draw": 1, "preset": "N", "winable": True},
}


@pytest.mark.parametrize("body", CREATE_BAD.values(), ids=CREATE_BAD.keys())
def test_bad_create_is_400_and_stores_nothing(auth_client, body):
    response = auth_client.post("/api/v1/games", body, format="json")
    _error(response, 400, "invalid")
    assert Game.objects.count() == 0
    assert Deal.objects.count() == 0


def test_wrong_shape_code_message_says_what_is_wrong(auth_client):
    response = auth_client.post("/api/v1/games", {"code": "KL1-D2N-AAAAAAA"}, format="json")
    assert "draw" in response.json()["error"]["message"].lower()


def test_list_with_bad_page_is_400(auth_client):
    _error(auth_client.get("/api/v1/games?page=abc"), 400, "invalid")
    _error(auth_client.get("/api/v1/games?page=99"), 404, "not_found")


def test_an_id_too_large_for_the_database_is_404(auth_client):
    # Found by schemathesis: a 22-digit id overflowed SQLite's integer and gave a 500.
    huge = "1286624905106402312192"
    for path in (f"/api/v1/games/{huge}", f"/api/v1/games/{huge}/replay"):
        _error(auth_client.get(path), 404, "not_found")
    _error(
        auth_client.post(
            f"/api/v1/games/{huge}/actions", {"seq": 0, "action": "draw"}, format="json"
        ),
        404,
        "not_found",
    )
