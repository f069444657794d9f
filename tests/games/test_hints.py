"""Hints cannot starve play: one search per player at a time, a rate, a bound on searches
per host shared by every process, and no second search of a position that found nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from games import hints, search_process
from games.engine import solver

pytestmark = pytest.mark.django_db


@pytest.fixture
def searches(monkeypatch):
    """The budgets of the hints' solver calls (0.0: answered without a search), whether in the
    search process or in the request's."""
    budgets: list[float] = []

    def counted(real):
        def hint(state, *, budget_s, line=()):
            budgets.append(budget_s)
            return real(state, budget_s=budget_s, line=line)

        return hint

    monkeypatch.setattr(search_process, "hint", counted(search_process.hint))
    monkeypatch.setattr(solver, "hint", counted(solver.hint))
    return budgets


@pytest.fixture
def slots(tmp_path, monkeypatch):
    """The host's search slots in a folder of this test's own: one slot."""
    slots = hints.HostSlots("solver-search", 1, tmp_path)
    monkeypatch.setattr(hints, "_search_slots", slots)
    return slots


def _hint(client, game):
    return client.get(f"/api/v1/games/{game['id']}/hint")


def test_a_position_whose_search_found_nothing_is_not_searched_again(
    start, auth_client, slots, monkeypatch
):
    budgets: list[float] = []

    def finds_nothing(state, *, budget_s, line=()):
        budgets.append(budget_s)
        return solver.hint(state, budget_s=0, line=line)  # a heuristic move, no line

    monkeypatch.setattr(search_process, "hint", finds_nothing)
    game = start()
    first, second = _hint(auth_client, game), _hint(auth_client, game)
    assert first.status_code == second.status_code == 200
    assert first.json() == second.json() and first.json()["source"] == "heuristic"
    assert budgets == [hints.HINT_BUDGET_S]  # the second hint did not search


def test_a_search_runs_in_a_process_of_its_own_below_plays_priority():
    from games.engine import GameState

    hint = search_process.hint(GameState.from_code("KL1-D1N-AAAAAAG"), budget_s=2.0)
    assert hint.source == "solver" and hint.line
    maker, pool = search_process._pool
    [pid] = pool._processes  # the one search process
    stat = Path(f"/proc/{pid}/stat").read_text()
    nice = int(stat.rsplit(")", 1)[1].split()[16])  # field 19
    expected = min(19, os.nice(0) + search_process.NICENESS)  # below this process's own
    assert (maker, nice) == (os.getpid(), expected)
    assert pid != os.getpid()


def test_a_busy_host_answers_at_once_without_searching(start, auth_client, searches, slots):
    game = start()
    holder = subprocess.Popen(  # another process holds the host's only slot
        [sys.executable, "-c", "import fcntl, sys, time; f = open(sys.argv[1], 'a');"
         " fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)",
         str(slots.paths[0])],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "held"
        response = _hint(auth_client, game)
        assert response.status_code == 200 and response.json()["move"] is not None
        assert searches == [0.0]
    finally:
        holder.kill()
        holder.wait()
    _hint(auth_client, game)  # the slot is free again: this one may search
    assert searches[-1] == hints.HINT_BUDGET_S


def test_one_hint_search_at_a_time_per_player(start, auth_client, slots):
    from django.core.cache import cache

    game = start()
    cache.add(f"{hints.SEARCHING_KEY}:{auth_client.user.pk}", 1, 10)  # one in progress
    response = _hint(auth_client, game)
    assert response.status_code == 429
    assert response.json()["error"]["code"] == "throttled"
    assert response.json()["error"]["retry_after"] == 1 and response["Retry-After"] == "1"
    cache.delete(f"{hints.SEARCHING_KEY}:{auth_client.user.pk}")
    assert _hint(auth_client, game).status_code == 200


def test_hints_games_and_exports_are_rate_limited(start, auth_client, settings, slots):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "hints": "2/min",
            "games": "2/min",
            "export": "1/min",
        },
    }
    game = start()
    assert [_hint(auth_client, game).status_code for _ in range(3)] == [200, 200, 429]
    body = {"draw": 1, "preset": "N"}
    codes = [auth_client.post("/api/v1/games", body, format="json").status_code for _ in range(2)]
    assert codes == [201, 429]  # the first game of this test counted too
    assert auth_client.get("/api/v1/games?mine=1").status_code == 200  # reading is not
    assert [auth_client.get("/api/v1/games/export").status_code for _ in range(2)] == [200, 429]


def test_a_hint_along_the_kept_line_takes_no_search(start, auth_client, searches, slots):
    """Not the player's search mark (no 429 while one is held), nor a slot of the host."""
    from django.core.cache import cache

    from games import engine

    game = start()
    proof = solver.solve(engine.GameState.from_code(game["code"]), budget_s=5.0)
    hints.hint_line_keep(game_id=game["id"], line_text=engine.format_actions(proof.actions))
    cache.add(f"{hints.SEARCHING_KEY}:{auth_client.user.pk}", 1, 10)  # one in progress
    with slots.take() as held:  # and the host's only slot taken
        assert held
        response = _hint(auth_client, game)
    assert response.status_code == 200
    assert response.json() == {
        "move": engine.action_to_dict(proof.actions[0]),
        "source": "solver",
    }
    assert searches == [0.0]  # the line, replayed in this process
