"""A resigned game gets its analysis: the point of no return and a winning line."""

from __future__ import annotations

import pytest

from games import engine
from games.models import Game
from games.services import game_action_apply, game_analyse, game_start

pytestmark = pytest.mark.django_db

# From tests/games/engine/test_solver.py: in deal 15 under Vegas draw 3, the third draw
# (log index 7) buries the waste card that had to be played.
PLANT_LOG = ["t7-t1", "t5-t7", "draw", "undo", "t4-t3", "draw", "draw", "draw"]


def _play(user, code, log):
    game = game_start(user=user, code=code)
    for seq, notation in enumerate([*log, "resign"]):
        game, _ = game_action_apply(
            game_id=game.pk, user=user, seq=seq, action=engine.parse_action(notation)
        )
    return game


def test_resigning_analyses_the_game_and_the_replay_shows_it(auth_client, settings):
    user = auth_client.user
    game = _play(user, "KL1-D3V-AAAAAAP", PLANT_LOG)
    analysis = game_analyse(game_id=game.pk)
    assert analysis["status"] == "point_of_no_return"
    assert analysis["point_of_no_return"] == 7 and analysis["notation"] == "draw"
    assert analysis["winning_line"]
    replay = auth_client.get(f"/api/v1/games/{game.pk}/replay").json()
    assert replay["analysis"] == analysis
    # Idempotent: a second run keeps what was stored.
    assert game_analyse(game_id=game.pk) == analysis


def test_the_task_runs_when_a_game_ends(auth_client, django_capture_on_commit_callbacks):
    from games.tasks import analyse_game

    user = auth_client.user
    with django_capture_on_commit_callbacks() as callbacks:
        game = _play(user, "KL1-D3V-AAAAAAP", PLANT_LOG)
    assert callbacks  # analyse_game was sent after the commit
    analyse_game(game.pk)  # as the worker (or eager Celery) runs it
    assert Game.objects.get(pk=game.pk).analysis["status"] == "point_of_no_return"


def test_games_in_play_and_won_games_are_not_analysed(auth_client):
    game = game_start(user=auth_client.user, code="KL1-D1N-AAAAAAG")
    assert game_analyse(game_id=game.pk) is None
    assert auth_client.get(f"/api/v1/games/{game.pk}/replay").status_code == 404


@pytest.mark.django_db(transaction=True)
def test_an_analysis_never_runs_inside_the_request(auth_client, settings, monkeypatch):
    """Embedded mode: after the request, on the background thread. Scaled mode: on a
    worker's `analysis` queue, sent after the commit."""
    import threading

    from games import tasks

    ran_on: list[str] = []
    sent: list[tuple[int, ...]] = []
    real = tasks.analyse_game

    def recorded(game_id):
        ran_on.append(threading.current_thread().name)
        return real(game_id)

    if settings.EMBEDDED:
        monkeypatch.setattr(tasks, "analyse_game", recorded)
    else:
        monkeypatch.setattr(real, "delay_on_commit", lambda *args: sent.append(args))
    game = auth_client.post("/api/v1/games", {"code": "KL1-D3V-AAAAAAP"}, format="json").json()
    response = auth_client.post(
        f"/api/v1/games/{game['id']}/actions", {"seq": 0, "action": "resign"}, format="json"
    )
    assert response.status_code == 200
    assert ran_on == [] or ran_on[0] != threading.current_thread().name
    if settings.EMBEDDED:
        tasks._analysis_thread.submit(lambda: None).result(timeout=120)
        assert ran_on and ran_on[0].startswith("analysis")
        assert Game.objects.get(pk=game["id"]).analysis is not None
    else:
        assert sent == [(game["id"],)]
