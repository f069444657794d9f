"""config/hooks.py, and the hooks the apps connect in their `ready()`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from config.hooks import Hook

ROOT = Path(__file__).resolve().parents[2]


def test_a_hook_calls_its_receivers_in_order_once_each() -> None:
    calls: list[tuple[str, int]] = []
    hook: Hook[[int]] = Hook("test.hook")

    def first(n: int) -> None:
        calls.append(("first", n))

    def second(n: int) -> None:
        calls.append(("second", n))

    hook.connect(first)
    hook.connect(second)
    hook.connect(first)  # again: no second call
    hook(3)
    assert calls == [("first", 3), ("second", 3)]


def test_a_hook_with_nothing_connected_refuses_the_call() -> None:
    with pytest.raises(LookupError, match="test_lonely"):
        Hook("test_lonely")()


def test_a_receivers_error_reaches_the_caller() -> None:
    hook: Hook[[]] = Hook("test.failing")

    def fail() -> None:
        raise OSError("broker away")

    hook.connect(fail)
    with pytest.raises(OSError, match="broker away"):
        hook()


# Which functions each hook must reach, in order; `ready()` connects them.
CONNECTED = (
    "from accounts import services as a, tasks as at;"
    "from games import hints as h, pool as p, services as g, tasks as t;"
    "from games.daily.services import attempts as d;"
    "print(g.game_ended._receivers == [d.daily_game_finished, t.lost_game_analysis_queue]"
    " and p.deal_pool_fill_queue._receivers == [t.deal_pool_fill_queue]"
    " and h.hint_line_search_queue._receivers == [t.hint_line_search_queue]"
    " and d.rank_queue._receivers == [t.rank_queue]"
    " and d.integrity_check_queue._receivers == [t.integrity_check_queue]"
    " and a.password_reset_queue._receivers == [at.password_reset_queue])"
)


def test_the_apps_connect_their_hooks_in_the_test_process() -> None:
    from accounts import services as account_services
    from accounts import tasks as account_tasks
    from games import hints, pool, services, tasks
    from games.daily.services import attempts as daily_attempts

    assert services.game_ended._receivers == [
        daily_attempts.daily_game_finished,  # first: it sets the leaderboard score
        tasks.lost_game_analysis_queue,
    ]
    assert pool.deal_pool_fill_queue._receivers == [tasks.deal_pool_fill_queue]
    assert hints.hint_line_search_queue._receivers == [tasks.hint_line_search_queue]
    assert daily_attempts.rank_queue._receivers == [tasks.rank_queue]
    assert daily_attempts.integrity_check_queue._receivers == [tasks.integrity_check_queue]
    assert account_services.password_reset_queue._receivers == [account_tasks.password_reset_queue]


def test_a_management_command_has_the_hooks_connected() -> None:
    """Any process that sets Django up (the web's, a worker's through Celery's Django fixup,
    a command's) runs the apps' `ready()`."""
    run = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", CONNECTED],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"},
    )
    assert run.stdout.splitlines()[-1:] == ["True"], run.stdout + run.stderr
