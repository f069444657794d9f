"""A move's hot path (games.services): the game's row kept in this process's memory as of its
last committed action, the token kept too, and the database checking both in the commit.

Transactional tests: a row is kept only once its transaction commits, which the other tests'
rolled-back transactions never do.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.db import connection, transaction
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.exceptions import AuthenticationFailed

from games import engine, services
from games.errors import GameNotFoundError
from games.models import Action, Game

pytestmark = pytest.mark.django_db(transaction=True)


def _log(game: dict) -> list[str]:
    return list(Action.objects.filter(game_id=game["id"]).values_list("notation", flat=True))


def test_a_move_on_a_game_kept_in_memory_is_one_statement(start, act, sql_sent):
    game = act(start(), action="draw").json()
    with sql_sent() as sent:
        assert act(game, action="move", from_="t1", to="f").status_code == 200
    if connection.vendor == "postgresql":  # no read: one statement writes the game and the log
        assert [s.split()[0] for s in sent] == ["WITH"], sent
    else:  # SQLite has no INSERT in a WITH: the two writes in a transaction
        assert [s.split()[0] for s in sent] == ["BEGIN", "UPDATE", "INSERT"], sent


def test_a_game_is_not_kept_from_a_transaction_that_rolled_back(auth_client):
    with transaction.atomic():
        game = services.game_start(user=auth_client.user, code="KL1-D1N-AAAAAAG")
        assert services._live_game(game_id=game.pk, user=auth_client.user, seq=0) is None
        transaction.set_rollback(True)
    assert services._live_game(game_id=game.pk, user=auth_client.user, seq=0) is None


def test_a_kept_row_another_worker_has_moved_past_writes_nothing(start, act):
    """Another process applied an action: this one's kept row is one action old. A request
    built on that old row is refused by the commit's own seq check."""
    game = start()
    old_row = services._kept_games.get(game["id"])
    assert old_row is not None
    moved = act(game, action="draw").json()
    services._kept_games.put(game["id"], old_row)  # as a worker that never saw the draw
    stale = act(game, action="move", from_="t1", to="f")  # seq 0, as the old row says
    assert stale.status_code == 409, stale.content
    assert stale.json()["error"] == {
        "code": "seq_mismatch",
        "message": stale.json()["error"]["message"],
        "expected": 1,
    }
    assert _log(game) == ["draw"]
    assert act(moved, action="move", from_="t1", to="f").status_code == 200  # the right seq


def test_a_game_ended_behind_the_kept_row_takes_no_more_actions(start, act):
    game = start()
    assert services._kept_games.get(game["id"]) is not None
    Game.objects.filter(pk=game["id"]).update(  # e.g. the daily board closing elsewhere
        status=Game.Status.RESIGNED, finished_at=Game.objects.get(pk=game["id"]).started_at
    )
    refused = act(game, action="draw")
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "game_over"
    assert _log(game) == []


def test_a_token_revoked_after_it_was_kept_in_memory_moves_nothing(start, act, auth_client):
    game = act(start(), action="draw").json()  # the token is now kept in this process
    assert auth_client.post("/api/v1/auth/logout").status_code in (200, 204)
    refused = act(game, action="draw")
    assert refused.status_code == 401, refused.content
    assert refused.json()["error"]["code"] == "authentication_failed"
    assert _log(game) == ["draw"]


def test_a_token_revoked_after_it_was_kept_in_memory_checks_nothing(start, act, auth_client):
    """The check of an action answers from the same kept token as a move: revoked, 401."""
    game = act(start(), action="draw").json()  # the token is now kept in this process
    assert auth_client.post("/api/v1/auth/logout").status_code in (200, 204)
    body = {"seq": 1, "action": "move", "from": "t6", "to": "t3"}
    refused = auth_client.post(f"/api/v1/games/{game['id']}/actions/check", body, format="json")
    assert refused.status_code == 401, refused.content
    assert refused.json()["error"]["code"] == "authentication_failed"


def test_a_token_expired_after_it_was_kept_in_memory_moves_nothing(start, act, auth_client):
    """The statement's own check: this process keeps the token with a later expiry than the
    database now has (as when another process's copy, or the clock, differs)."""
    game = act(start(), action="draw").json()  # the token is now kept in this process
    AuthToken.objects.filter(user=auth_client.user).update(
        expiry=timezone.now() - timedelta(seconds=1)
    )
    refused = act(game, action="draw")
    assert refused.status_code == 401, refused.content
    assert refused.json()["error"]["code"] == "authentication_failed"
    assert _log(game) == ["draw"]


def test_the_move_statement_refuses_a_token_that_expired_or_is_another_accounts(
    start, act, auth_client, make_user
):
    game = act(start(), action="draw").json()
    digest = AuthToken.objects.get(user=auth_client.user).digest
    move = {"game_id": game["id"], "user": auth_client.user, "seq": 1, "action": engine.Draw()}
    expired = time_machine.travel(timezone.now() + timedelta(days=31))
    with expired, pytest.raises(AuthenticationFailed):
        services.game_action_apply(token_digest=digest, **move)
    other, _ = make_user()
    with pytest.raises(GameNotFoundError):  # a live token, but not this game's owner's
        services.game_action_apply(token_digest=AuthToken.objects.get(user=other).digest, **move)
    assert _log(game) == ["draw"]
    services.game_action_apply(token_digest=digest, **move)  # the owner's live token
    assert _log(game) == ["draw", "draw"]


def test_a_deactivated_account_kept_in_memory_moves_nothing(start, act, auth_client):
    game = act(start(), action="draw").json()
    type(auth_client.user).objects.filter(pk=auth_client.user.pk).update(is_active=False)
    refused = act(game, action="draw")
    assert refused.status_code == 401, refused.content
    assert _log(game) == ["draw"]


def test_an_undo_within_the_kept_steps_needs_no_replay(start, act, monkeypatch):
    game = start()
    for _ in range(services.SNAPSHOT_UNDO_STEPS):
        game = act(game, action="draw").json()

    def no_replay(game_row):
        raise AssertionError("the undo replayed the log")

    monkeypatch.setattr(services, "_log_notations", no_replay)
    for _ in range(services.SNAPSHOT_UNDO_STEPS):
        game = act(game, action="undo").json()
    assert game["state"]["stock"] == 24 and game["state"]["waste"] == []
    monkeypatch.undo()
    assert act(game, action="undo").status_code == 422  # nothing left: the rule, not a replay
