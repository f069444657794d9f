"""Winnable deals only (`games.pool`): a pool of solver-proven deals per mode, filled outside
requests, never an open daily's deal, and a clear flag when no proven deal was ready. A proven
deal keeps its proof, a winning line, which the game's hints follow without a search."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest
import time_machine

from config import cache as shared
from games import engine, hints, pool, search_process, tasks
from games.daily.services import deals as daily_deals
from games.engine import solver
from games.engine.solver import hints as engine_hints
from games.models import Game, PooledDeal

pytestmark = pytest.mark.django_db

# Proven unwinnable by the solver: a random casual deal used to be dealt it without a word.
UNWINNABLE = "KL1-D1N-HZTKEDO"


def _proven(code: str) -> bool:
    """The solver's own verdict, asked again: a proof, not the pool's word."""
    verdict = solver.solve(engine.GameState.from_code(code), budget_s=5.0)
    return isinstance(verdict, solver.Solved)


def _line_wins(code: str, line: str) -> bool:
    """Whether the line (notation) wins the deal from its start, replayed by the engine."""
    return solver.replay_wins(engine.GameState.from_code(code), engine.parse_actions(line))


def _winnable_game(client: Any, draw: int = 1, preset: str = "N") -> dict[str, Any]:
    body = {"draw": draw, "preset": preset, "winnable": True}
    answer = client.post("/api/v1/games", body, format="json")
    assert answer.status_code == 201, answer.content
    return dict(answer.json())


@pytest.fixture
def small_pool(settings: Any) -> None:
    settings.DEAL_POOL_SIZE = 3
    settings.DEAL_POOL_SOLVE_BUDGET_S = 1.0


@pytest.fixture
def open_daily(db: None) -> Any:
    """Today's D1N challenge: a board that is not final."""
    with time_machine.travel(datetime(2026, 11, 30, 12, tzinfo=UTC), tick=False):
        yield daily_deals.daily_deal_get_or_create(day=date(2026, 11, 30), mode="D1N")


def test_the_unwinnable_example_is_unwinnable() -> None:
    verdict = solver.solve(engine.GameState.from_code(UNWINNABLE), budget_s=10.0)
    assert isinstance(verdict, solver.Unwinnable)


def test_the_fill_pools_only_deals_the_solver_proves(small_pool, monkeypatch) -> None:
    unwinnable = engine.DealCode.parse(UNWINNABLE).number
    real_random = pool.deal_number_random
    drawn = iter([unwinnable])
    monkeypatch.setattr(pool, "deal_number_random", lambda: next(drawn, None) or real_random())
    assert pool.deal_pool_fill(draw=1, preset="N", seconds=60) == 3
    rows = list(PooledDeal.objects.filter(draw=1, preset="N"))
    assert len(rows) == 3 and unwinnable not in [row.number for row in rows]
    for row in rows:  # each with its proof: a line the engine replays to a win
        assert _line_wins(str(engine.DealCode(1, "N", row.number)), row.line)
    assert pool.deal_pool_fill(draw=1, preset="N", seconds=60) == 0  # full: idempotent


def test_a_winnable_game_is_dealt_from_the_pool(small_pool, auth_client) -> None:
    pool.deal_pool_fill(draw=1, preset="N", seconds=60)
    oldest = PooledDeal.objects.filter(draw=1, preset="N").order_by("id").first()
    game = _winnable_game(auth_client)
    assert game["winnable"] is True
    assert engine.DealCode.parse(game["code"]).number == oldest.number
    assert _proven(game["code"])
    # Taken out: no other game gets it from the pool.
    assert not PooledDeal.objects.filter(pk=oldest.pk).exists()


def test_the_pool_is_per_mode(small_pool, auth_client) -> None:
    pool.deal_pool_fill(draw=1, preset="N", seconds=60)
    relaxed = _winnable_game(auth_client, draw=3, preset="R")
    assert relaxed["rules"]["draw"] == 3 and relaxed["rules"]["preset"] == "R"
    assert PooledDeal.objects.filter(draw=1, preset="N").count() == 3  # untouched
    if relaxed["winnable"]:
        assert _proven(relaxed["code"])


def test_an_empty_pool_proves_a_deal_on_demand_and_fills_in_the_background(
    small_pool, auth_client
) -> None:
    game = _winnable_game(auth_client)
    assert game["winnable"] is True  # a draw-1 deal is proven in hundredths of a second
    assert _proven(game["code"])
    # The fill ran outside the request (embedded: the background thread; scaled: a task).
    tasks._analysis_thread.submit(lambda: None).result(timeout=120)


def test_no_proven_deal_in_time_deals_a_random_one_with_a_flag(
    small_pool, auth_client, monkeypatch
) -> None:
    monkeypatch.setattr(pool, "ON_DEMAND_BUDGET_S", 0.0)
    game = _winnable_game(auth_client)
    assert game["winnable"] is False
    assert game["status"] == "playing" and Game.objects.filter(pk=game["id"]).exists()


def test_without_winnable_nothing_is_asked_of_the_solver(auth_client, monkeypatch) -> None:
    monkeypatch.setattr(pool, "_proof", lambda **_: pytest.fail("solved"))
    answer = auth_client.post("/api/v1/games", {"draw": 1, "preset": "N"}, format="json")
    assert answer.status_code == 201 and answer.json()["winnable"] is None
    assert not PooledDeal.objects.exists()


def test_winnable_takes_true_or_false_and_no_code(auth_client) -> None:
    for body in (
        {"draw": 1, "preset": "N", "winnable": "yes"},
        {"draw": 1, "preset": "N", "winnable": 1},
        {"code": "KL1-D1N-AAAAAAG", "winnable": True},
    ):
        answer = auth_client.post("/api/v1/games", body, format="json")
        assert answer.status_code == 400, body
        assert answer.json()["error"]["code"] == "invalid"
        assert "winnable" in answer.json()["error"]["fields"]
    assert not Game.objects.exists()


def test_the_pool_never_gives_an_open_daily(open_daily, small_pool, auth_client) -> None:
    """A deal pooled before its number became a daily's is dropped when it is taken."""
    number = open_daily.deal.number
    PooledDeal.objects.create(draw=1, preset="N", number=number)
    with time_machine.travel(datetime(2026, 11, 30, 12, 5, tzinfo=UTC), tick=False):
        game = _winnable_game(auth_client)
    assert Game.objects.get(pk=game["id"]).deal.number != number
    assert not PooledDeal.objects.filter(number=number).exists()
    assert game["winnable"] is True and _proven(game["code"])


def test_the_fill_and_the_on_demand_proof_never_pick_an_open_daily(
    open_daily, small_pool, monkeypatch
) -> None:
    """Both draw their candidates through the check a random casual deal goes through."""
    number = open_daily.deal.number
    drawn = iter([number, number, 6])
    monkeypatch.setattr(pool.secrets, "randbelow", lambda _: next(drawn, 6))
    assert pool.deal_prove_now(draw=1, preset="N").number == 6
    drawn = iter([number, 6])
    pool.deal_pool_fill(draw=1, preset="N", seconds=5)
    assert list(PooledDeal.objects.values_list("number", flat=True)) == [6]


def test_a_guest_gets_winnable_deals_too(small_pool) -> None:
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    browser.get("/api/v1/auth/csrf")

    def csrf() -> str:
        return str(browser.cookies["csrftoken"].value)

    browser.post("/api/v1/auth/guest", content_type="application/json", HTTP_X_CSRFTOKEN=csrf())
    answer = browser.post(
        "/api/v1/games",
        {"draw": 1, "preset": "N", "winnable": True},
        content_type="application/json",
        HTTP_X_CSRFTOKEN=csrf(),
    )
    assert answer.status_code == 201 and answer.json()["winnable"] is True


def test_a_low_pool_queues_one_fill(
    small_pool, auth_client, monkeypatch, settings, django_capture_on_commit_callbacks
) -> None:
    queued: list[tuple[int, str]] = []
    if settings.EMBEDDED:  # the background thread runs the task
        monkeypatch.setattr(
            pool, "deal_pool_fill", lambda **kw: queued.append((kw["draw"], kw["preset"]))
        )
    else:  # a worker's `analysis` queue gets it
        monkeypatch.setattr(tasks.fill_deal_pool, "delay", lambda *args: queued.append(args))
    with django_capture_on_commit_callbacks(execute=True):
        _winnable_game(auth_client)
        _winnable_game(auth_client)
    tasks._analysis_thread.submit(lambda: None).result(timeout=120)
    assert queued == [(1, "N")]  # once, however many games find the pool low


def test_the_fill_tasks_run_on_the_analysis_queue(settings) -> None:
    for name in ("games.tasks.fill_deal_pool", "games.tasks.fill_deal_pools"):
        assert settings.CELERY_TASK_ROUTES[name] == {"queue": "analysis"}
    beat = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert "games.tasks.fill_deal_pools" in beat


def test_the_beats_fill_tops_up_every_mode(small_pool, monkeypatch) -> None:
    monkeypatch.setattr(pool, "_proof", lambda **_: "draw\n")
    assert tasks.fill_deal_pools() == 3 * len(pool.POOL_MODES)
    for draw, preset in pool.POOL_MODES:
        assert PooledDeal.objects.filter(draw=draw, preset=preset).count() == 3


def _no_search(monkeypatch: Any) -> None:
    """From here on, a hint that searches fails the test, in this process or in the search
    process."""

    def searched(*args: Any, **kwargs: Any) -> None:
        pytest.fail("the hint searched instead of following the proof")

    monkeypatch.setattr(search_process, "hint", searched)
    monkeypatch.setattr(solver, "solve", searched)
    monkeypatch.setattr(engine_hints, "solve", searched)  # the one solver.hint calls


def _hint(client: Any, game: dict[str, Any]) -> dict[str, Any]:
    answer = client.get(f"/api/v1/games/{game['id']}/hint")
    assert answer.status_code == 200, answer.content
    return dict(answer.json())


def test_a_pooled_deals_first_hint_follows_its_proof(small_pool, auth_client, monkeypatch) -> None:
    pool.deal_pool_fill(draw=1, preset="N", seconds=60)
    game = _winnable_game(auth_client)
    _no_search(monkeypatch)
    hint = _hint(auth_client, game)
    assert hint["source"] == "solver" and hint["move"] is not None


def test_the_on_demand_proof_is_kept_for_the_hints_too(
    small_pool, auth_client, monkeypatch
) -> None:
    from django.core.cache import cache

    game = _winnable_game(auth_client)  # the pool is empty: proven in the request
    assert game["winnable"] is True
    line = cache.get(f"{hints.HINT_LINE_KEY}:{game['id']}")
    assert isinstance(line, str) and _line_wins(game["code"], line)
    _no_search(monkeypatch)
    assert _hint(auth_client, game)["source"] == "solver"


def test_a_player_who_follows_the_hints_of_a_winnable_vegas_deal_wins_it(
    settings, auth_client, act, monkeypatch
) -> None:
    """Vegas has one pass through the stock, so a search from the start often finds nothing in
    half a second; the proof's line leads the player to the win."""
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]  # a hint a move: over 60/min
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**rates, "hints": "1000/min"},
    }
    settings.DEAL_POOL_SIZE = 1
    monkeypatch.setattr(pool, "deal_number_random", lambda: 19)  # D1V proven in hundredths
    assert pool.deal_pool_fill(draw=1, preset="V", seconds=60) == 1
    game = _winnable_game(auth_client, preset="V")
    assert engine.DealCode.parse(game["code"]).number == 19
    _no_search(monkeypatch)
    while game["status"] == "playing":
        hint = _hint(auth_client, game)
        assert hint["source"] == "solver", hint
        played = act(game, **hint["move"])
        assert played.status_code == 200, played.content
        game = played.json()
    assert game["status"] == "won"


def test_a_cache_that_cannot_keep_the_proof_does_not_fail_the_start(
    small_pool, auth_client, monkeypatch
) -> None:
    from django.core.cache import cache
    from redis.exceptions import ConnectionError as RedisConnectionError

    real_set = cache.set

    def set_or_fail(key: str, *args: Any, **kwargs: Any) -> Any:
        if key.startswith(hints.HINT_LINE_KEY):
            raise RedisConnectionError("as if Redis were down")
        return real_set(key, *args, **kwargs)

    monkeypatch.setattr(cache, "set", set_or_fail)
    try:
        game = _winnable_game(auth_client)
    finally:
        shared.cache_answered()  # end the pause the failure started
    assert game["winnable"] is True and game["status"] == "playing"
