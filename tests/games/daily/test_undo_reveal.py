"""In a ranked attempt an undo may not hide a card the player has seen (docs/daily.md, "One
ranked attempt"): the undo of an action that turned a card face up is 422 `undo_reveal` and
stores nothing; the game resource says so first (`can_undo`, `undo_refusal`). Casual games
keep the rules' undo."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from django.utils import translation
from rest_framework.test import APIClient

from config import memo
from games import engine, services
from games.engine.replay import face_up_cards
from games.models import Action, DailyDeal, Game
from tests.games.daily.conftest import DAY

pytestmark = pytest.mark.django_db

Act = Callable[..., Any]


@pytest.fixture
def ranked(daily: DailyDeal, make_user: Callable[..., Any]) -> tuple[APIClient, dict[str, Any]]:
    """A client and its fresh ranked attempt at today's D1N challenge."""
    _, key = make_user()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    response = client.post(f"/api/v1/daily/{DAY.isoformat()}/D1N/start", format="json")
    assert response.status_code == 201, response.content
    return client, response.json()


def _post(client: APIClient, game: dict[str, Any], action: engine.Action) -> Any:
    body = {"seq": game["seq"], **engine.action_to_dict(action)}
    return client.post(f"/api/v1/games/{game['id']}/actions", body, format="json")


def _play(client: APIClient, game: dict[str, Any], *actions: engine.Action) -> dict[str, Any]:
    for action in actions:
        response = _post(client, game, action)
        assert response.status_code == 200, response.content
        game = response.json()
    return game


def _state(game_id: int) -> engine.GameState:
    """The game's whole state, rebuilt from its log (the referee's own view)."""
    game = Game.objects.select_related("deal").get(pk=game_id)
    log = list(Action.objects.filter(game=game).order_by("seq").values_list("notation", flat=True))
    return engine.replay(services.game_setup(game), log).state


def _stored(game_id: int) -> tuple[Any, ...]:
    game = Game.objects.get(pk=game_id)
    rows = Action.objects.filter(game_id=game_id).count()
    return game.seq, game.moves, game.undos, game.score, bytes(game.snapshot), rows


def _refused_undo(client: APIClient, game: dict[str, Any]) -> dict[str, Any]:
    """Undo, refused as `undo_reveal` with nothing stored; returns the error."""
    before = _stored(game["id"])
    response = _post(client, game, engine.Undo())
    assert response.status_code == 422, response.content
    error = response.json()["error"]
    assert (error["code"], error["reason"], error["details"]) == ("illegal_move", "undo_reveal", {})
    assert _stored(game["id"]) == before
    return error


def _move(state: engine.GameState, *, reveals: bool) -> engine.Action:
    """A legal move (not a draw or recycle) that turns a card up, or one that does not."""
    for move in state.legal_moves():
        if isinstance(move, engine.Move):
            trial = state.copy()
            if (trial.apply(move).flipped is not None) == reveals:
                return move
    raise LookupError("no such move here")


def _draws_to(state: engine.GameState, *, reveals: bool) -> int:
    """How many draws from `state` lead to a position with such a move."""
    trial = state.copy()
    for draws in range(25):
        try:
            _move(trial, reveals=reveals)
        except LookupError:
            trial.apply(engine.Draw())
            continue
        return draws
    raise LookupError("not within the first pass")


def test_the_undo_of_a_flip_is_refused_and_stores_nothing(ranked) -> None:
    client, game = ranked
    state = _state(game["id"])
    game = _play(client, game, *[engine.Draw()] * _draws_to(state, reveals=True))
    flip = _move(_state(game["id"]), reveals=True)
    game = _play(client, game, flip)
    assert (game["can_undo"], game["undo_refusal"]) == (False, "undo_reveal")
    with translation.override("en"):
        message = _refused_undo(client, game)["message"]
    assert message == "In a ranked game an undo can't hide a card you have already seen"
    assert game["undo_refusal_message"] == message
    memo.clear_all()  # the same from the database, not this process's kept row
    _refused_undo(client, game)
    shown = client.get(f"/api/v1/games/{game['id']}").json()
    assert (shown["can_undo"], shown["undo_refusal"]) == (False, "undo_reveal")
    assert shown["seq"] == game["seq"] and shown["state"] == game["state"]
    _play(client, game, engine.Draw())  # the game goes on at the same seq


def test_the_undo_of_a_first_pass_draw_is_refused(ranked) -> None:
    client, game = ranked
    assert (game["can_undo"], game["undo_refusal"]) == (False, None)  # nothing to undo yet
    game = _play(client, game, engine.Draw())
    assert (game["can_undo"], game["undo_refusal"]) == (False, "undo_reveal")
    _refused_undo(client, game)


def test_the_undo_of_a_move_that_revealed_nothing_is_allowed(ranked) -> None:
    client, game = ranked
    game = _play(client, game, *[engine.Draw()] * _draws_to(_state(game["id"]), reveals=False))
    before = game
    game = _play(client, game, _move(_state(game["id"]), reveals=False))
    assert (game["can_undo"], game["undo_refusal"]) == (True, None)
    game = _play(client, game, engine.Undo())
    assert game["state"] == before["state"]
    assert Game.objects.get(pk=game["id"]).undos == 1


def test_after_a_recycle_draws_and_the_recycle_undo_and_the_first_pass_stays(ranked) -> None:
    """Six draws of the second pass and the recycle undo, past the steps the game row's
    snapshot keeps (the log is replayed for them), then the first pass's last draw is
    refused."""
    client, game = ranked
    stock = game["state"]["stock"]
    game = _play(client, game, *[engine.Draw()] * stock, engine.Recycle())
    assert (game["can_undo"], game["undo_refusal"]) == (True, None)
    game = _play(client, game, *[engine.Draw()] * 6)
    assert services.SNAPSHOT_UNDO_STEPS < 7
    for _ in range(7):
        assert (game["can_undo"], game["undo_refusal"]) == (True, None)
        game = _play(client, game, engine.Undo())
    assert game["passes_used"] == 0 and game["state"]["stock"] == 0
    assert (game["can_undo"], game["undo_refusal"]) == (False, "undo_reveal")
    _refused_undo(client, game)
    memo.clear_all()
    _refused_undo(client, game)


def test_a_casual_game_keeps_the_rules_undo(start, act) -> None:
    game = start()  # KL1-D1N-AAAAAAG: t7 ends 4D AH
    for action in ({"action": "tap", "from_": "t7"}, {"action": "draw"}):
        game = act(game, **action).json()
        assert (game["can_undo"], game["undo_refusal"]) == (True, None)
    for _ in range(2):
        response = act(game, action="undo")
        assert response.status_code == 200, response.content
        game = response.json()
    assert game["state"]["tableau"][6][-1] == "AH"


def _known(view: dict[str, Any]) -> set[str]:
    cards = {*view["waste"], *(c for pile in view["foundations"] for c in pile)}
    return cards | {c for col in view["tableau"] for c in col if c is not None}


def _face_down(game: dict[str, Any]) -> int:
    return sum(card is None for col in game["state"]["tableau"] for card in col)


def test_the_explorer_learns_nothing_by_undoing(ranked) -> None:
    """The attack of the issue: play ahead, undo back toward the start, play again. Every
    undo that would hide a card is refused, so what the player has seen is always what the
    game shows, plus a recycled stock (all of it drawn in the first pass)."""
    client, game = ranked
    rnd = random.Random(7)
    seen = _known(game["state"])
    down = _face_down(game)
    refusals = set()
    for _ in range(3):
        for _ in range(25):
            state = _state(game["id"])
            if state.is_over or not state.legal_moves():
                break
            game = _play(client, game, rnd.choice(state.legal_moves()))
            seen |= _known(game["state"])
            down = _face_down(game)
        while True:  # back to the start, as far as the server lets
            response = _post(client, game, engine.Undo())
            if response.status_code != 200:
                refusals.add(response.json()["error"]["reason"])
                break
            game = response.json()
            seen |= _known(game["state"])
            assert _face_down(game) == down, "an undo turned a tableau card face down again"
        state = _state(game["id"])
        recycled = {str(engine.CARDS[x]) for x in state.raw().stock} if state.passes_used else set()
        assert seen == _known(game["state"]) | recycled
        assert {str(engine.CARDS[x]) for x in face_up_cards(state.raw())} == _known(game["state"])
    assert refusals <= {"undo_reveal", "nothing_to_undo"} and "undo_reveal" in refusals
