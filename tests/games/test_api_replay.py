"""Replays (JSON and text), the NDJSON export, and who may see them."""

from __future__ import annotations

import json

import pytest

from games import engine
from tests.games.conftest import CODE

pytestmark = pytest.mark.django_db


def _finished_game(start, act):
    game = start()
    for body in (
        {"action": "move", "from_": "t1", "to": "f"},
        {"action": "draw"},
        {"action": "undo"},
        {"action": "tap", "from_": "t7"},
        {"action": "resign"},
    ):
        game = act(game, **body).json()
    return game


def test_replay_rebuilds_every_position(start, act, auth_client):
    game = _finished_game(start, act)
    replay = auth_client.get(f"/api/v1/games/{game['id']}/replay").json()
    assert replay["code"] == CODE
    assert replay["rules"]["preset"] == "N"
    assert replay["deal"] == engine.Deal.from_number(6).to_dict()
    assert [a["notation"] for a in replay["actions"]] == [
        "t1-f3", "draw", "undo", "t7-f2", "resign",
    ]  # fmt: skip
    assert replay["actions"][0]["action"] == {
        "action": "move", "from": "t1", "to": "f3", "count": 1,
    }  # fmt: skip
    assert [a["seq"] for a in replay["actions"]] == [1, 2, 3, 4, 5]
    assert all(a["at_ms"] >= 0 for a in replay["actions"])
    assert replay["result"] == {
        "status": "resigned", "won": False, "score": 25, "score_display": "25",
        "moves": 4, "undos": 1, "elapsed_ms": game["elapsed_ms"],
    }  # fmt: skip
    # A client can rebuild every position from the replay alone.
    rebuilt = engine.replay(
        (engine.Deal.from_dict(replay["deal"]), engine.Rules.from_dict(replay["rules"])),
        [a["notation"] for a in replay["actions"]],
    )
    assert rebuilt.scores == [a["score_after"] for a in replay["actions"]]
    assert engine.public_view(rebuilt.state) == game["state"]


def test_replay_text(start, act, auth_client):
    game = _finished_game(start, act)
    response = auth_client.get(f"/api/v1/games/{game['id']}/replay.txt")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    text = response.content.decode()
    assert f"# deal {CODE}" in text
    assert [engine.format_action(a) for a in engine.parse_actions(text)] == [
        "t1-f3", "draw", "undo", "t7-f2", "resign",
    ]  # fmt: skip


def test_finished_game_replay_is_public(start, act, api_client):
    game = _finished_game(start, act)
    assert api_client.get(f"/api/v1/games/{game['id']}/replay").status_code == 200
    assert api_client.get(f"/api/v1/games/{game['id']}").status_code == 200


def test_replay_of_own_game_in_play_is_404(start, auth_client):
    game = start()
    response = auth_client.get(f"/api/v1/games/{game['id']}/replay")
    assert response.status_code == 404


def test_export_streams_finished_games_as_ndjson(start, act, auth_client):
    first = _finished_game(start, act)
    start()  # in play: not exported
    second = _finished_game(start, act)
    response = auth_client.get("/api/v1/games/export")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/x-ndjson"
    assert response.streaming
    lines = b"".join(response.streaming_content).decode().splitlines()
    documents = [json.loads(line) for line in lines]
    assert [d["id"] for d in documents] == [first["id"], second["id"]]
    assert documents[0]["actions"][0]["notation"] == "t1-f3"


def test_export_needs_login(api_client):
    assert api_client.get("/api/v1/games/export").status_code == 401


def test_replay_query_count(start, act, auth_client, django_assert_max_num_queries):
    game = _finished_game(start, act)
    with django_assert_max_num_queries(2):
        auth_client.get(f"/api/v1/games/{game['id']}/replay")
