"""No response during play carries a face-down card, the stock's order, or a hidden code."""

from __future__ import annotations

import re

import pytest

from games import engine
from games.models import Game
from games.services import game_state
from tests.games.conftest import FACE_DOWN, STOCK

pytestmark = pytest.mark.django_db

CARD_RE = re.compile(r"\b(?:10|[2-9AJQKT])[SHDC]\b", re.IGNORECASE)


def _hidden_cards(game_id: int) -> set[str]:
    """The identities the caller must not know now: face-down cards and the stock."""
    view = engine.full_view(game_state(Game.objects.get(pk=game_id)))
    hidden = {c for col in view["tableau"] for c in col["down"]}
    return hidden | set(view["stock"])


def _body(response) -> str:
    raw = b"".join(response.streaming_content) if response.streaming else response.content
    return raw.decode(errors="replace")


def _assert_no_leak(response, hidden: set[str], named: set[str] = frozenset()) -> None:
    body = _body(response)
    # A card the client itself named in its request may be echoed back in an error.
    leaked = {m.upper() for m in CARD_RE.findall(body)} & (hidden - named)
    assert not leaked, (response.status_code, body[:300])


def test_every_endpoint_during_play_keeps_hidden_cards_secret(start, act, auth_client):
    game = start()
    gid = game["id"]
    _assert_no_leak(
        auth_client.post("/api/v1/games", {"code": game["code"]}, format="json"),
        _hidden_cards(gid),
    )
    plays = [
        {"action": "move", "from_": "t1", "to": "f"},
        {"action": "draw"},
        {"action": "draw"},
        {"action": "move", "from_": "t6", "to": "t1"},  # illegal: error bodies are scanned too
        {"action": "move", "from_": "t5", "to": "t4", "card": "7D"},  # names a face-down card
        {"action": "double_tap", "from_": "t3", "card": "3D"},  # names a face-down card
        {"action": "move", "from_": "waste", "to": "t2", "card": "AS"},  # names a stock card
        {"action": "undo"},
        {"action": "tap", "from_": "t7"},
        {"action": "recycle"},
    ]
    for body in plays:
        response = act(game, **body)
        _assert_no_leak(response, _hidden_cards(gid), {body.get("card", "")})
        if response.status_code == 200:
            game = response.json()
    hidden = _hidden_cards(gid)
    for response in (
        act(game, seq=0, action="draw"),  # stale seq
        auth_client.get(f"/api/v1/games/{gid}"),
        auth_client.get("/api/v1/games?mine=1"),
        auth_client.get(f"/api/v1/games/{gid}/hint"),
        auth_client.get(f"/api/v1/games/{gid}/replay"),
        auth_client.get(f"/api/v1/games/{gid}/replay.txt"),
        auth_client.get("/api/v1/games/export"),
        auth_client.get("/api/v1/me"),
    ):
        _assert_no_leak(response, hidden)


def test_error_for_a_named_card_does_not_say_where_it_is(start, act):
    game = start()
    face_down_here = act(game, action="move", from_="t5", to="t4", card="7D").json()
    elsewhere = act(game, action="move", from_="t5", to="t4", card="7C").json()
    # The message writes the card as players do (7♦), the details in notation (7D).
    assert face_down_here["error"]["message"].replace("7♦", "X") == elsewhere["error"][
        "message"
    ].replace("7♣", "X")
    assert face_down_here["error"]["details"] == {**elsewhere["error"]["details"], "card": "7D"}


def test_fixture_knows_the_hidden_cards(start):
    game = start()
    assert set(FACE_DOWN) | set(STOCK) == _hidden_cards(game["id"])
    assert sum(col.count(None) for col in game["state"]["tableau"]) == 21
