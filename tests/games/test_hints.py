"""Hints cannot starve play: one search per player at a time, a rate, a bound on searches
per host shared by every process, and no second search of a position that found nothing. A
search that ran out of time goes on in the background, and its line serves the next hint.
Each hint says why, in the player's language (issue #39)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from games import hints, search_process
from games.engine import solver
from games.hint_reasons import HINT_REASONS, hint_reason_message

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
    monkeypatch.setattr(hints, "search_slots", slots)
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
    maker, pool = search_process._pools["request"]
    [pid] = pool._processes  # the one search process
    stat = Path(f"/proc/{pid}/stat").read_text()
    nice = int(stat.rsplit(")", 1)[1].split()[16])  # field 19
    expected = min(19, os.nice(0) + search_process.NICENESS)  # below this process's own
    assert (maker, nice) == (os.getpid(), expected)
    assert pid != os.getpid()


def test_a_daemonic_process_searches_in_itself(monkeypatch):
    """A Celery worker's process is daemonic, and multiprocessing lets it start no process: the
    `analysis` worker (niced itself) searches in its own process."""
    from types import SimpleNamespace

    from games.engine import GameState

    worker = SimpleNamespace(daemon=True, name="ForkPoolWorker-1")
    monkeypatch.setattr(search_process.multiprocessing, "current_process", lambda: worker)
    state = GameState.from_code("KL1-D1N-AAAAAAG")
    hint = search_process.hint(state, budget_s=2.0, lane="background")
    assert hint.source == "solver" and hint.line
    assert search_process._pools == {}  # no search process


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
    deal = engine.GameState.from_code(game["code"])
    expected = solver.hints.hint(deal, budget_s=0, line=proof.actions)
    assert response.json() == {
        "move": engine.action_to_dict(expected.action),
        "source": "solver",
        "searching": False,
        "reason": expected.reason_code,
        "reason_message": hint_reason_message(expected.reason_code),
    }
    assert searches == [0.0]  # the line, replayed in this process


def _position(game_id):
    """The digest of the game's current position, as the hint's background search gets it."""
    from games.models import Game
    from games.services import game_state

    row = Game.objects.get(pk=game_id)
    return hints.position_digest(row, game_state(row))


@pytest.mark.django_db(transaction=True)  # the background thread reads the committed game
def test_a_search_out_of_time_goes_on_in_the_background_and_serves_the_next_hint(
    start, auth_client, slots, settings, monkeypatch
):
    """The hint's half-second search finds no line yet (here at once); one longer search of
    that position follows outside the request (embedded: the background thread; scaled: the
    `analysis` queue), and the next hint follows the line it found, without a search."""
    import threading

    from games import tasks

    lanes: list[str] = []
    real_search = search_process.hint

    def search(state, *, budget_s, line=(), lane="request"):
        lanes.append(lane)
        if lane == "background":  # the real solver: a D1N deal is solved in milliseconds
            return real_search(state, budget_s=budget_s, line=line, lane=lane)
        assert lanes.count("request") == 1, "a hint searched again in the request"
        return solver.hint(state, budget_s=0, line=line)  # out of time: "no line found yet"

    monkeypatch.setattr(search_process, "hint", search)
    queued: list[tuple[int, str]] = []
    outcomes: list[str] = []
    real_task = tasks.search_hint_line
    if settings.EMBEDDED:  # recorded when the background thread runs it

        def task(*args):
            queued.append(args)
            outcomes.append(real_task(*args))

        monkeypatch.setattr(tasks, "search_hint_line", task)
        held = threading.Event()  # the background thread is busy until both hints are in
        tasks._analysis_thread.submit(held.wait, 60)
    else:  # sent to a worker's `analysis` queue
        monkeypatch.setattr(tasks.search_hint_line, "delay", lambda *args: queued.append(args))
    game = start()
    try:
        first, again = _hint(auth_client, game), _hint(auth_client, game)
    finally:
        if settings.EMBEDDED:
            held.set()
    assert first.status_code == again.status_code == 200
    assert first.json()["source"] == again.json()["source"] == "heuristic"
    # The page asks again while the search is under way (it is held here).
    assert first.json()["searching"] is again.json()["searching"] is True
    if settings.EMBEDDED:
        tasks._analysis_thread.submit(lambda: None).result(timeout=120)
    else:
        outcomes.extend(real_task(*args) for args in queued)  # as the worker runs it
    assert outcomes == ["kept"]
    assert queued == [(game["id"], _position(game["id"]))]  # once for the position
    assert lanes == ["request", "background"]
    after = _hint(auth_client, game)
    assert after.status_code == 200 and after.json()["source"] == "solver"
    assert after.json()["searching"] is False
    assert lanes == ["request", "background"]  # the kept line: no search


@pytest.mark.parametrize("found", ["no line", "lost", "stale"])
def test_a_background_search_that_ends_without_a_line_ends_the_searching(
    start, auth_client, act, slots, monkeypatch, found
):
    """Whatever came of it, the position's hint no longer says `searching`, so the page stops
    asking; the heuristic move stands."""
    from django.core.cache import cache

    queued: list[tuple[int, str]] = []
    monkeypatch.setattr(hints, "hint_line_search_queue", lambda *args: queued.append(args))
    reason = hints.NO_LINE_YET if found == "no line" else solver.hints.LOST

    def search(state, *, budget_s, line=(), lane="request"):
        if lane == "request":
            return solver.hint(state, budget_s=0, line=line)  # out of time: "no line found yet"
        heuristic = solver.hint(state, budget_s=0)
        return solver.Hint(
            heuristic.action, "heuristic", f"x ({reason})", reason_code=heuristic.reason_code
        )

    monkeypatch.setattr(search_process, "hint", search)
    game = start()
    first = _hint(auth_client, game).json()
    assert first["source"] == "heuristic" and first["searching"] is True
    assert _hint(auth_client, game).json()["searching"] is True  # still queued
    other = start()  # the same deal at the same position, another game: the line is not its
    assert _hint(auth_client, other).json()["searching"] is False
    if found == "stale":  # the player moved on before the search ran
        assert act(game, action="draw").status_code == 200
    [(game_id, position)] = queued
    assert hints.hint_line_search(game_id=game_id, position=position) == found
    assert cache.get(hints._background_key(game_id, position)) is None
    if found != "stale":
        assert _hint(auth_client, game).json() == {**first, "searching": False}


@pytest.fixture
def queued(monkeypatch):
    """The background searches the hints queue (game id, position), none of them run."""
    sent: list[tuple[int, str]] = []
    monkeypatch.setattr(hints, "hint_line_search_queue", lambda *args: sent.append(args))
    return sent


def test_a_position_proven_lost_is_not_searched_in_the_background(
    start, auth_client, slots, queued
):
    game = start({"code": "KL1-D1N-HZTKEDO"})  # the real search proves it lost at once
    response = _hint(auth_client, game)
    assert response.status_code == 200 and response.json()["source"] == "heuristic"
    assert response.json()["searching"] is False
    assert queued == []


def test_a_hint_that_searched_nothing_queues_nothing(start, auth_client, searches, slots, queued):
    """The host's slot taken: the hint answers without a search, and nothing goes on."""
    game = start()
    with slots.take() as held:
        assert held
        response = _hint(auth_client, game)
    assert response.status_code == 200 and searches == [0.0] and queued == []


def test_the_background_search_keeps_a_line_only_where_the_next_hint_continues_it(
    start, auth_client, act, settings, monkeypatch
):
    """The player moves while it searches: its line is kept when the move was the line's first
    action (the next hint goes on with the line), not when the player went elsewhere."""
    from django.core.cache import cache

    from games import engine

    for follows, outcome in ((True, "kept"), (False, "not kept")):
        game = start()
        position = _position(game["id"])
        cache.set(f"{hints.NO_LINE_KEY}:{position}", 1, 60)

        def search(state, *, budget_s, line=(), lane="request", follows=follows, game=game):
            assert lane == "background" and budget_s == settings.HINT_BACKGROUND_BUDGET_S
            found = solver.hint(state, budget_s=5.0)
            move = engine.action_to_dict(found.action if follows else engine.DRAW)
            assert act(game, **move).status_code == 200  # meanwhile, the player moves
            return found

        monkeypatch.setattr(search_process, "hint", search)
        assert hints.hint_line_search(game_id=game["id"], position=position) == outcome
        kept = cache.get(f"{hints.HINT_LINE_KEY}:{game['id']}")
        assert (kept is not None) is follows
        # Either way the position is proven winnable: its no-line mark is gone.
        assert cache.get(f"{hints.NO_LINE_KEY}:{position}") is None


def test_the_background_search_leaves_a_game_that_moved_on_ended_or_is_ranked(
    start, auth_client, act, monkeypatch
):
    from datetime import date

    from games.daily.services import deals as daily_deals
    from games.models import Game

    monkeypatch.setattr(search_process, "hint", lambda *a, **k: pytest.fail("searched"))
    game = start()
    position = _position(game["id"])
    assert act(game, action="draw").status_code == 200
    assert hints.hint_line_search(game_id=game["id"], position=position) == "stale"
    assert hints.hint_line_search(game_id=0, position=position) == "stale"  # gone
    ranked = start()
    daily = daily_deals.daily_deal_get_or_create(day=date(2026, 11, 30), mode="D1N")
    Game.objects.filter(pk=ranked["id"]).update(daily=daily)
    assert hints.hint_line_search(game_id=ranked["id"], position=_position(ranked["id"])) == (
        "stale"
    )
    over = start()
    resigned = act(over, action="resign")
    assert resigned.status_code == 200 and resigned.json()["status"] != "playing"
    assert hints.hint_line_search(game_id=over["id"], position=_position(over["id"])) == "stale"


def test_a_background_search_leaves_the_hosts_request_slots_alone(start, slots, monkeypatch):
    """It is bounded by the background queue: holding a request-time slot for seconds would
    leave every other player's hint without a search."""
    seen: list[bool] = []

    def search(state, *, budget_s, lane="request", **_):
        with slots.take() as free:
            seen.append(bool(free))
        return solver.Hint(None, "none", f"x; {hints.NO_LINE_YET}", reason_code="nothing_left")

    monkeypatch.setattr(search_process, "hint", search)
    game = start()
    outcome = hints.hint_line_search(game_id=game["id"], position=_position(game["id"]))
    assert outcome == "no line" and seen == [True]  # the host's only slot stayed free


def test_the_background_search_runs_on_the_analysis_queue(settings):
    from games import tasks

    assert settings.CELERY_TASK_ROUTES[tasks.search_hint_line.name] == {"queue": "analysis"}
    assert tasks.search_hint_line.name == "games.tasks.search_hint_line"


@pytest.mark.django_db(transaction=True)  # as in a request: no transaction to wait for
def test_a_background_search_that_cannot_be_queued_leaves_the_hint_alone(
    start, auth_client, slots, settings, monkeypatch
):
    """Embedded: the queue's hook fails. Scaled: Redis cannot take the task."""
    from kombu.exceptions import OperationalError

    from games import tasks

    def no_queue(*args):
        raise OperationalError("as if Redis were down")

    monkeypatch.setattr(search_process, "hint", lambda state, **kw: solver.hint(state, budget_s=0))
    if settings.EMBEDDED:
        monkeypatch.setattr(hints, "hint_line_search_queue", no_queue)
    else:
        monkeypatch.setattr(tasks.search_hint_line, "delay", no_queue)
    game = start()
    response = _hint(auth_client, game)
    assert response.status_code == 200 and response.json()["source"] == "heuristic"
    # Embedded, the hook's failure is known at once: nothing to wait for. Scaled, the broker's
    # comes after the commit (logged by `config.celery.AfterCommitTask`): the position's mark
    # stands until it expires (BACKGROUND_TTL_S), about when the page stops asking anyway.
    assert response.json()["searching"] is not settings.EMBEDDED


def test_a_hint_says_why_in_the_players_language(start, auth_client, searches, slots):
    """A kept line that draws first (deal 5 of D1N) while a card could go onto another column
    and turn a card up: the hint is that move, and says so; the line kept for the next hint
    now starts with it."""
    from django.core.cache import cache
    from django.utils import translation

    from games import engine

    game = start({"code": "KL1-D1N-AAAAAAF"})
    deal = engine.GameState.from_code(game["code"])
    proof = solver.solve(deal, budget_s=600, max_nodes=5000)
    assert proof.actions[0] == engine.DRAW
    hints.hint_line_keep(game_id=game["id"], line_text=engine.format_actions(proof.actions))
    response = _hint(auth_client, game)
    assert response.status_code == 200
    answer = response.json()
    assert answer["move"] == {"action": "move", "from": "t7", "to": "t3", "count": 1}
    assert (answer["source"], answer["reason"]) == ("solver", "frees_face_down")
    assert answer["reason_message"] == "frees a face-down card"
    kept = engine.parse_actions(cache.get(f"{hints.HINT_LINE_KEY}:{game['id']}"))
    assert kept[0] == engine.Move("t7", "t3") and solver.replay_wins(deal, kept)
    slovak = auth_client.get(f"/api/v1/games/{game['id']}/hint", HTTP_ACCEPT_LANGUAGE="sk")
    assert slovak.status_code == 200 and slovak["Content-Language"] == "sk"
    with translation.override("sk"):
        in_slovak = translation.gettext("frees a face-down card")
    assert slovak.json() == {**answer, "reason_message": in_slovak}
    assert searches == [0.0, 0.0]  # the kept line: no search of a slot's


def test_a_heuristic_hint_says_what_its_move_does(start, auth_client, slots, monkeypatch):
    monkeypatch.setattr(search_process, "hint", lambda state, **kw: solver.hint(state, budget_s=0))
    game = start()  # KL1-D1N-AAAAAAG: the ace of diamonds tops column 1
    answer = _hint(auth_client, game).json()
    assert answer["source"] == "heuristic" and answer["move"]["from"] == "t1"
    assert (answer["reason"], answer["reason_message"]) == (
        "builds_foundation",
        "builds a foundation",
    )


def test_every_reason_code_has_its_phrase_and_the_schemas_choice():
    from django.utils import translation

    from games.serializers import HintSerializer

    codes = list(solver.hints.REASON_CODES)
    assert list(HINT_REASONS) == codes
    assert list(HintSerializer().fields["reason"].choices) == codes
    for language in ("en", "sk"):
        with translation.override(language):
            assert all(hint_reason_message(code) for code in codes)
    assert hint_reason_message("no such code") == ""
