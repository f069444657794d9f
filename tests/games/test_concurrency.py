"""Concurrent and retried requests never duplicate or drop an action (real PostgreSQL)."""

from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection, connections
from rest_framework.test import APIClient

from games import engine
from games.models import Action, Game
from games.services import game_start, game_state

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_twenty_parallel_requests_with_one_seq_apply_once(make_user):
    user, key = make_user()
    game = game_start(user=user, code="KL1-D1N-AAAAAAG")
    barrier = threading.Barrier(20)

    def fire(_: int) -> int:
        try:
            client = _client(key)
            barrier.wait()
            response = client.post(
                f"/api/v1/games/{game.pk}/actions", {"seq": 0, "action": "draw"}, format="json"
            )
            return response.status_code
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=20) as pool:
        codes = list(pool.map(fire, range(20)))
    assert sorted(codes) == [200] + [409] * 19
    game.refresh_from_db()
    assert game.seq == 1
    assert list(Action.objects.filter(game=game).values_list("seq", "notation")) == [(1, "draw")]


def _play(key: str, game_id: int, seed: int, actions: int) -> None:
    """Play random legal actions (plus undos), then resign, through the HTTP API."""
    rnd = random.Random(seed)
    client = _client(key)
    try:
        seq = 0
        for _ in range(actions):
            state = game_state(Game.objects.get(pk=game_id))
            if state.is_over:
                return
            choices: list[engine.Action] = list(state.legal_moves())
            if state.can_undo and rnd.random() < 0.1:
                choices = [engine.Undo()]
            body = {"seq": seq, **engine.action_to_dict(rnd.choice(choices))}
            response = client.post(f"/api/v1/games/{game_id}/actions", body, format="json")
            assert response.status_code == 200, response.content
            seq = response.json()["seq"]
        response = client.post(
            f"/api/v1/games/{game_id}/actions", {"seq": seq, "action": "resign"}, format="json"
        )
        assert response.status_code in (200, 409), response.content
    finally:
        connections.close_all()


def test_two_hundred_concurrent_games_replay_to_their_stored_outcome(make_user):
    players = [make_user() for _ in range(20)]
    games = []
    for i in range(200):
        user, key = players[i % len(players)]
        code = str(engine.DealCode(draw=1 if i % 2 else 3, preset="NVCR"[i % 4], number=i))
        games.append((key, game_start(user=user, code=code).pk))

    with ThreadPoolExecutor(max_workers=8) as pool:
        for future in [
            pool.submit(_play, key, game_id, seed, 12) for seed, (key, game_id) in enumerate(games)
        ]:
            future.result()

    for game in Game.objects.filter(pk__in=[g for _, g in games]).select_related("deal"):
        log = list(game.actions.order_by("seq").values_list("seq", "notation"))
        assert [s for s, _ in log] == list(range(1, game.seq + 1))  # no gap, no duplicate
        rules = engine.Rules.from_preset(game.draw, game.preset)
        result = engine.replay(
            (engine.Deal.from_dict(game.deal.layout), rules), [n for _, n in log]
        )
        assert result.outcome.status == game.status
        assert result.outcome.score == game.score
        assert result.outcome.moves == game.moves
        assert result.outcome.undos == game.undos
        assert engine.public_view(result.state) == engine.public_view(game_state(game))
