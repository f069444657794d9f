"""Winnable deals only (`games.pool`): a pool of solver-proven deals per mode, filled outside
requests, never an open daily's deal, and a clear flag when no proven deal was ready."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest
import time_machine

from games import engine, pool, tasks
from games.daily import services as daily_services
from games.engine import solver
from games.models import Game, PooledDeal

pytestmark = pytest.mark.django_db

# Proven unwinnable by the solver: a random casual deal used to be dealt it without a word.
UNWINNABLE = "KL1-D1N-HZTKEDO"


def _proven(code: str) -> bool:
    """The solver's own verdict, asked again: a proof, not the pool's word."""
    verdict = solver.solve(engine.GameState.from_code(code), budget_s=5.0)
    return isinstance(verdict, solver.Solved)


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
        yield daily_services.daily_deal_get_or_create(day=date(2026, 11, 30), mode="D1N")


def test_the_unwinnable_example_is_unwinnable() -> None:
    verdict = solver.solve(engine.GameState.from_code(UNWINNABLE), budget_s=10.0)
    assert isinstance(verdict, solver.Unwinnable)


def test_the_fill_pools_only_deals_the_solver_proves(small_pool, monkeypatch) -> None:
    unwinnable = engine.DealCode.parse(UNWINNABLE).number
    real_random = pool.deal_number_random
    drawn = iter([unwinnable])
    monkeypatch.setattr(pool, "deal_number_random", lambda: next(drawn, None) or real_random())
    assert pool.deal_pool_fill(draw=1, preset="N", seconds=60) == 3
    numbers = list(PooledDeal.objects.filter(draw=1, preset="N").values_list("number", flat=True))
    assert len(numbers) == 3 and unwinnable not in numbers
    for number in numbers:
        assert _proven(str(engine.DealCode(1, "N", number)))
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
    monkeypatch.setattr(pool, "_proven", lambda **_: pytest.fail("solved"))
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
    assert pool.deal_prove_now(draw=1, preset="N") == 6
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
    monkeypatch.setattr(pool, "_proven", lambda **_: True)
    assert tasks.fill_deal_pools() == 3 * len(pool.POOL_MODES)
    for draw, preset in pool.POOL_MODES:
        assert PooledDeal.objects.filter(draw=draw, preset=preset).count() == 3
