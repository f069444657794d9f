"""Playing over the API: create, act, undo, resign; the server computes everything."""

from __future__ import annotations

import pytest

from games.models import Action, Game
from tests.games.conftest import CODE

pytestmark = pytest.mark.django_db


def test_create_from_code(start):
    game = start()
    assert game["code"] == CODE
    assert game["kind"] == "casual"
    assert game["rules"] == {
        "draw": 1, "preset": "N", "passes": None, "foundation_return": True,
        "auto_finish": False, "scoring": "normal",
    }  # fmt: skip
    assert game["status"] == "playing"
    assert (game["seq"], game["moves"], game["score"], game["score_display"]) == (0, 0, 0, "0")
    assert game["can_undo"] is False
    assert game["finished_at"] is None
    state = game["state"]
    assert state["stock"] == 24 and state["waste"] == []
    assert state["foundations"] == [[], [], [], []]
    assert state["tableau"][0] == ["AD"]
    assert state["tableau"][6] == [None] * 6 + ["AH"]


def test_code_is_case_insensitive(start):
    assert start({"code": CODE.lower()})["code"] == CODE


def test_random_deal(start):
    game = start({"draw": 3, "preset": "V"})
    assert game["code"].startswith("KL1-D3V-")
    assert game["score"] == -52 and game["score_display"] == "-$52"
    assert game["rules"]["passes"] == 1


def test_play_moves_score_and_log(start, act, auth_client):
    game = start()
    game = act(game, action="move", from_="t1", to="f").json()  # AD to its foundation
    assert game["state"]["foundations"][2] == ["AD"]
    assert (game["seq"], game["moves"], game["score"]) == (1, 1, 10)
    game = act(game, action="tap", from_="t7").json()  # AH to f2, flips 4D
    assert game["state"]["foundations"][1] == ["AH"]
    assert game["state"]["tableau"][6][-1] == "4D"
    assert game["score"] == 10 + 10 + 5
    game = act(game, action="double_tap", from_="t5", card="9D").json()  # 9D onto 10C, flips 7D
    assert game["state"]["tableau"][3][-2:] == ["10C", "9D"]
    assert game["score"] == 30
    game = act(game, action="draw").json()
    assert game["state"]["waste"] == ["QH"] and game["state"]["stock"] == 23
    assert game["can_undo"] is True
    game = act(game, action="undo").json()
    assert game["state"]["waste"] == [] and game["moves"] == 5 and game["seq"] == 5

    log = list(Action.objects.filter(game_id=game["id"]).order_by("seq"))
    # The log records the resolved moves, never the taps.
    assert [a.notation for a in log] == ["t1-f3", "t7-f2", "t5-t4", "draw", "undo"]
    assert [a.score_after for a in log] == [10, 25, 30, 30, 30]
    assert [a.seq for a in log] == [1, 2, 3, 4, 5]


def test_the_game_lists_its_legal_actions_and_none_once_over(start, act):
    game = start()
    # KL1-D1N-AAAAAAG: AD and AH go home, 9D onto 10C; the stock draws.
    assert game["legal"] == {
        "stock": "draw", "moves": {"t1": {"f3": 1}, "t5": {"t4": 1}, "t7": {"f2": 1}}
    }  # fmt: skip
    game = act(game, action="tap", from_="t1").json()
    # t1 is empty now, and KD may go there
    assert game["legal"]["moves"] == {"t3": {"t1": 1}, "t5": {"t4": 1}, "t7": {"f2": 1}}
    game = act(game, action="resign").json()
    assert game["legal"] == {"stock": None, "moves": {}}


def test_resign_finishes_the_game(start, act):
    game = start()
    game = act(game, action="move", from_="t1", to="f3").json()
    game = act(game, action="resign").json()
    assert game["status"] == "resigned"
    assert game["finished_at"] is not None
    assert game["moves"] == 1  # resigning is not a move
    stored = Game.objects.get(pk=game["id"])
    assert stored.elapsed_ms == game["elapsed_ms"]
    assert stored.finished_at is not None


def test_get_own_game_and_list(start, auth_client):
    first = start()
    second = start({"draw": 1, "preset": "C"})
    got = auth_client.get(f"/api/v1/games/{first['id']}").json()
    assert got["state"] == first["state"]
    listing = auth_client.get("/api/v1/games?mine=1").json()
    assert listing["count"] == 2
    assert [g["id"] for g in listing["results"]] == [second["id"], first["id"]]  # newest first
    assert "state" not in listing["results"][0]


def test_game_in_play_is_hidden_from_others(start, api_client, make_user):
    game = start()
    _, key = make_user("snoop")
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    for path in ("", "/replay", "/replay.txt", "/hint"):
        response = api_client.get(f"/api/v1/games/{game['id']}{path}")
        assert response.status_code == 404, path
        assert response.json()["error"]["code"] == "not_found"
    moved = api_client.post(
        f"/api/v1/games/{game['id']}/actions", {"seq": 0, "action": "draw"}, format="json"
    )
    assert moved.status_code == 404


def test_hint_is_a_legal_move(start, act, auth_client):
    game = start()
    hint = auth_client.get(f"/api/v1/games/{game['id']}/hint").json()
    assert hint["move"] is not None
    applied = act(game, **{k: v for k, v in hint["move"].items()})
    assert applied.status_code == 200, applied.content


def test_the_next_hint_follows_the_line_of_the_last(start, act, auth_client, monkeypatch):
    from games.engine import solver

    game = start()
    first = auth_client.get(f"/api/v1/games/{game['id']}/hint").json()
    assert first["source"] == "solver"
    played = act(game, **first["move"]).json()

    def no_search(*args, **kwargs):
        raise AssertionError("the hint searched again instead of following its line")

    monkeypatch.setattr(solver, "solve", no_search)
    follow = auth_client.get(f"/api/v1/games/{played['id']}/hint").json()
    assert follow["source"] == "solver"
    assert act(played, **follow["move"]).status_code == 200


@pytest.mark.parametrize("entry", ["undo\n", "not notation\n", 42])
def test_a_bad_kept_hint_line_means_a_fresh_search(start, auth_client, entry):
    from django.core.cache import cache

    from games.hints import HINT_LINE_KEY

    game = start()
    cache.set(f"{HINT_LINE_KEY}:{game['id']}", entry)
    hint = auth_client.get(f"/api/v1/games/{game['id']}/hint")
    assert hint.status_code == 200 and hint.json()["move"] is not None
    assert hint.json()["move"]["action"] != "undo"


def test_a_move_on_a_game_not_kept_in_memory_costs_two_round_trips(start, act, sql_sent):
    """A game is kept in memory only once committed, which this test's transaction never is:
    each move reads the game (test_kept_games has the one-statement move)."""
    from django.db import connection

    game = start()
    game = act(game, action="draw").json()  # warms the token cache
    with sql_sent() as sent:
        assert act(game, action="move", from_="t1", to="f").status_code == 200
    # The test wraps each request's transaction in a savepoint; production sends BEGIN/COMMIT.
    sql = [s for s in sent if "SAVEPOINT" not in s]
    if connection.vendor == "postgresql":  # a read, then one statement that writes both
        assert [s.split()[0] for s in sql] == ["SELECT", "WITH"], sql
    else:  # SQLite has no INSERT in a WITH: the same two writes in a transaction
        assert [s.split()[0] for s in sql] == ["SELECT", "UPDATE", "INSERT"], sql


def test_undo_reaches_back_100_actions_though_the_row_keeps_4_steps(start, act):
    """The game row's snapshot keeps only the last steps of the undo history
    (games.services); an undo past them rebuilds it from the log, so undos agree with a game
    that kept its whole history in memory."""
    from games.engine import UNDO, GameState, action_to_dict, public_view

    local = GameState.from_code(CODE)
    game = start()
    for _ in range(130):  # draws and recycles: always legal, past the 100-step limit
        action = next(m for m in local.legal_moves() if type(m).__name__ in ("Draw", "Recycle"))
        local.apply(action)
        game = act(game, **_body(action_to_dict(action))).json()
    snapshot = Game.objects.get(pk=game["id"]).snapshot
    assert len(snapshot) < 1000
    for _ in range(100):
        assert game["can_undo"] is True
        local.apply(UNDO)
        game = act(game, action="undo").json()
        assert game["state"] == public_view(local) and game["score"] == local.score
    assert game["can_undo"] is local.can_undo is False
    refused = act(game, action="undo")
    assert refused.status_code == 422 and "at most 100" in refused.json()["error"]["message"]


def _body(action: dict) -> dict:
    return {("from_" if k == "from" else k): v for k, v in action.items()}


def test_an_action_that_lost_the_race_writes_nothing(start, act, monkeypatch):
    """The optimistic commit: if another action lands between this one's read and its
    commit, this one writes nothing and says seq_mismatch with the log's new length."""
    from games import services

    game = start()
    read = services.game_state

    def read_then_race(game_row):
        state = read(game_row)
        monkeypatch.setattr(services, "game_state", read)  # the rival runs normally
        assert act(game, action="draw").status_code == 200  # lands first
        return state

    monkeypatch.setattr(services, "game_state", read_then_race)
    lost = act(game, action="move", from_="t1", to="f")
    assert lost.status_code == 409, lost.content
    assert lost.json()["error"]["code"] == "seq_mismatch"
    assert lost.json()["error"]["expected"] == 1
    stored = Game.objects.get(pk=game["id"])
    assert stored.seq == 1 and stored.foundations == 0
    assert [a.notation for a in Action.objects.filter(game_id=game["id"])] == ["draw"]


def test_a_move_to_a_client_that_takes_no_json_is_refused(start, auth_client):
    game = start()
    url = f"/api/v1/games/{game['id']}/actions"
    refused = auth_client.post(
        url, {"seq": 0, "action": "draw"}, format="json", HTTP_ACCEPT="text/html"
    )
    assert refused.status_code == 406
    indented = auth_client.post(
        url, {"seq": 0, "action": "draw"}, format="json", HTTP_ACCEPT="application/json; indent=2"
    )
    assert indented.status_code == 200 and indented.content.startswith(b'{\n  "id"')


def test_a_move_is_answered_with_the_format_override_turned_off(start, act, settings):
    """DRF's URL_FORMAT_OVERRIDE may be None (no `?format=`): the move's negotiation then has
    no query parameter to look for, and must not fail on it."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "URL_FORMAT_OVERRIDE": None}
    assert act(start(), action="draw").status_code == 200


def test_a_check_says_whether_an_action_is_legal_and_writes_nothing(start, act, auth_client):
    game = start()
    check = f"/api/v1/games/{game['id']}/actions/check"
    legal = auth_client.post(check, {"seq": 0, "action": "tap", "from": "t1"}, format="json")
    assert legal.status_code == 200
    assert legal.json() == {
        "legal": True,
        "reason": None,
        "message": None,
        "details": {},
        "rule": None,
    }
    body = {"seq": 0, "action": "move", "from": "t6", "to": "t3"}  # 3♠ on K♦
    refused = auth_client.post(check, body, format="json").json()
    posted = act(game, action="move", from_="t6", to="t3")
    assert posted.status_code == 422
    error = posted.json()["error"]
    assert refused == {
        "legal": False,
        **{k: error[k] for k in ("reason", "message", "details", "rule")},
    }
    assert Action.objects.filter(game_id=game["id"]).count() == 0
    stale = auth_client.post(check, {**body, "seq": 3}, format="json")
    assert stale.status_code == 409 and stale.json()["error"]["code"] == "seq_mismatch"
