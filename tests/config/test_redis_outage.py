"""Redis down or hanging is not an outage: the API answers from the database (scaled run).

Each test points the cache and the Celery broker, with the settings' own options (their socket
timeouts), at a Redis that does not answer: a closed port, or a listener that accepts
connections and never replies. Register, login, `me`, a game and its moves, the daily page,
the leaderboards and logout must answer as usual, each within about a second, and health says
503 with `cache: "down"`.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.conf import settings
from django.core.cache import caches
from django.test import override_settings
from rest_framework.test import APIClient

from config import cache as shared
from tests.games.daily.conftest import DAY, at
from tests.servers import free_port

pytestmark = pytest.mark.redis

WITHIN_S = 1.0  # each request; a Redis call costs at most REDIS_TIMEOUT_S (0.25 s)


@contextlib.contextmanager
def _silent_redis() -> Iterator[int]:
    """The port of a listener that accepts connections and never answers: a hung Redis."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.05)
    stop = threading.Event()
    held: list[socket.socket] = []

    def accept() -> None:
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                held.append(server.accept()[0])

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        for conn in [*held, server]:
            conn.close()


def _dead_redis() -> contextlib.AbstractContextManager[int]:
    """A port that nothing listens on: a Redis that is down."""
    return contextlib.nullcontext(free_port())


@contextlib.contextmanager
def _redis_at(port: int) -> Iterator[None]:
    """The cache and the Celery broker at 127.0.0.1:`port` for the block, then the real ones."""
    from config.celery import app

    url = f"redis://127.0.0.1:{port}/0"
    real_broker = app.conf.broker_url

    def use_broker(broker_url: str) -> None:
        app.conf.broker_url = broker_url
        app._pool = None  # the producer pools were made for the other URL
        app.amqp._producer_pool = None

    # Django rebuilds `caches` when CACHES changes (django.test.signals.clear_cache_handlers),
    # on the way in and on the way out.
    with override_settings(CACHES={"default": {**settings.CACHES["default"], "LOCATION": url}}):
        use_broker(url)
        try:
            with pytest.raises(shared.CACHE_ERRORS):
                caches["default"].get("anything")  # the override took effect
            assert f":{port}/" in app.connection_for_write().as_uri()
            yield
        finally:
            use_broker(real_broker)
            caches["default"].client.get_client().connection_pool.disconnect()
    shared.cache_answered()  # this process's pause was about the other Redis
    caches["default"].set("outage:after", 1, 5)  # the real cache is back
    assert caches["default"].get("outage:after") == 1


REDIS_OUTAGES = {"down": _dead_redis, "hanging": _silent_redis}


@pytest.fixture(params=["down", "hanging"])
def outage(request: pytest.FixtureRequest) -> Iterator[str]:
    """Redis down, or hanging, for the test."""
    with REDIS_OUTAGES[request.param]() as port, _redis_at(port):
        yield request.param


@pytest.fixture(params=["pause", "no pause"])
def pause(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """With the process's pause after a cache error (as deployed), or without one, so that
    every call to the cache meets the outage on its own."""
    if request.param == "no pause":
        monkeypatch.setattr(shared, "CACHE_PAUSE_S", 0.0)
    return str(request.param)


@pytest.fixture
def boards(make_user: Callable[..., Any]) -> Iterator[dict[str, str]]:
    """At noon of DAY (time standing still), the day's boards made, and the tokens of two
    players who finished their ranked attempt: `ranked`'s is in the board's generation,
    `unranked`'s is not yet (its rank would come from Redis)."""
    from games.daily.services import attempts as daily_attempts
    from games.daily.services import deals as daily_deals
    from games.daily.services import rankings as daily_rankings
    from games.models import Game

    with time_machine.travel(at(DAY, 12), tick=False):
        daily_deals.daily_prepare(day=DAY, now=at(DAY, 12))  # the solver runs here
        tokens = {}
        for name in ("ranked", "unranked"):
            user, tokens[name] = make_user(f"{name}_player")
            game, _ = daily_attempts.daily_start(user=user, day=DAY, mode="D1N")
            Game.objects.filter(pk=game.pk).update(
                status="resigned",
                score=5,
                leaderboard_score=5,
                moves=3,
                elapsed_ms=60_000,
                finished_at=game.started_at + timedelta(minutes=1),
            )
            if name == "ranked":
                daily_rankings.daily_rank(daily_id=game.daily_id)
        yield tokens


class Calls:
    """An API client that records each answer's status and time."""

    def __init__(self) -> None:
        self.client = APIClient()
        self.log: list[tuple[str, int, float]] = []

    def __call__(self, method: str, path: str, body: Any = None, token: str = "") -> Any:
        if token:
            self.client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        else:
            self.client.credentials()
        started = time.monotonic()
        if method == "get":
            response = self.client.get(path)
        else:
            response = self.client.post(path, body, format="json")
        self.log.append((f"{method} {path}", response.status_code, time.monotonic() - started))
        return response

    def move(self, game: dict[str, Any], action: str, token: str) -> Any:
        body = {"seq": game["seq"], "action": action}
        return self("post", f"/api/v1/games/{game['id']}/actions", body, token=token)

    def slow(self) -> list[tuple[str, int, float]]:
        return [entry for entry in self.log if entry[2] > WITHIN_S]


@pytest.mark.django_db
def test_the_api_answers_from_the_database(boards, outage, pause):
    """Tokens from the database, throttles counted in the process, ranks from the generation:
    every answer as usual but health's, each within WITHIN_S."""
    call = Calls()
    body = {"username": "outage_player", "password": "correct-horse-battery"}
    assert call("post", "/api/v1/auth/register", body).status_code == 201
    login = call("post", "/api/v1/auth/login", body)
    assert login.status_code == 200
    token = login.json()["token"]
    assert call("get", "/api/v1/me", token=token).json()["username"] == "outage_player"

    # A game, and more moves than one batch of the moves throttle (600/min: 12 a batch).
    started = call("post", "/api/v1/games", {"draw": 1, "preset": "N"}, token=token)
    assert started.status_code == 201
    game = started.json()
    for _ in range(14):
        move = call.move(game, "draw", token)
        assert move.status_code == 200, move.content
        game = move.json()

    assert call("get", "/api/v1/daily", token=token).status_code == 200
    board = f"/api/v1/leaderboards/daily/{DAY.isoformat()}/D1N"
    ranked = call("get", board, token=boards["ranked"])
    assert ranked.status_code == 200
    assert ranked.json()["me"] == {
        "rank": 1,
        "count": 1,
        "percentile": 100.0,
        "source": "snapshot",
        "rating": None,
    }
    unranked = call("get", board, token=boards["unranked"])  # its live rank is out of reach
    assert (unranked.status_code, unranked.json()["me"]) == (200, None)

    health = call("get", "/api/v1/health")
    assert health.status_code == 503
    assert health.json() == {"status": "degraded", "database": "postgresql", "cache": "down"}

    assert call("post", "/api/v1/auth/logout", token=token).status_code == 204
    assert call("get", "/api/v1/me", token=token).status_code == 401  # revoked all the same

    assert not call.slow(), call.log
    assert shared.cache_paused() == (pause == "pause")


@pytest.mark.django_db
def test_the_throttles_count_in_the_process(outage, settings):
    """Login, register and moves are still throttled, each server process counting alone."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"login": "3/min", "register": "2/min", "moves": "2/min"},
    }
    call = Calls()
    bodies = [{"username": f"sam{i}", "password": "correct-horse-battery"} for i in range(3)]
    answers = [call("post", "/api/v1/auth/register", body) for body in bodies]
    assert [answer.status_code for answer in answers] == [201, 201, 429]
    codes = [call("post", "/api/v1/auth/login", bodies[0]).status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    token = answers[0].json()["token"]
    game = call("post", "/api/v1/games", {"draw": 1, "preset": "N"}, token=token).json()
    codes = []
    for _ in range(3):
        move = call.move(game, "draw", token)
        codes.append(move.status_code)
        game = move.json() if move.status_code == 200 else game
    assert codes == [200, 200, 429]
    assert not call.slow(), call.log


@pytest.mark.django_db(transaction=True)
def test_games_that_end_while_redis_is_down_answer(make_user):
    """A casual game (its analysis is sent) and a ranked attempt (its ranking and integrity
    check are sent, its live rank added) end with 200; the tasks are lost, and logged."""
    from games.daily.services import deals as daily_deals
    from games.models import Game

    with time_machine.travel(at(DAY, 12), tick=False):
        daily_deals.daily_prepare(day=DAY, now=at(DAY, 12))
        _, token = make_user()
        with _dead_redis() as port, _redis_at(port):
            call = Calls()
            casual = call("post", "/api/v1/games", {"draw": 1, "preset": "N"}, token=token)
            ranked = call("post", f"/api/v1/daily/{DAY.isoformat()}/D1N/start", token=token)
            for started in (casual, ranked):
                assert started.status_code in (200, 201), started.content
                resign = call.move(started.json(), "resign", token)
                assert Game.objects.get(pk=started.json()["id"]).status == Game.Status.RESIGNED
                assert resign.status_code == 200, resign.content
            assert not call.slow(), call.log


@pytest.mark.django_db(transaction=True)
def test_a_password_reset_while_redis_is_down_is_503_for_every_address(make_user):
    user, _ = make_user()
    user.email = "known@example.com"
    user.save()
    with _dead_redis() as port, _redis_at(port):
        call = Calls()
        for email in ("known@example.com", "unknown@example.com"):
            response = call("post", "/api/v1/auth/password-reset", {"email": email})
            assert response.status_code == 503, response.content
            assert response.json()["error"]["code"] == "unavailable"
        assert not call.slow(), call.log
