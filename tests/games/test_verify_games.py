"""`manage.py verify_games` (games/management/commands/verify_games.py): mismatches on stdout,
a summary line, exit status 1 on any mismatch; read-only, so the service's role may run it."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from games.management.commands import verify_games
from games.models import Game
from tests.games import service_role
from tests.games.test_verify import play_games

SUMMARY = re.compile(r"^(\d+) games checked, (\d+) mismatches, [\d,]+ games/minute \([\d.]+ s\)$")


def run(*args: str) -> tuple[list[str], str]:
    """Run the command; returns its stdout's lines and its stderr."""
    out, err = io.StringIO(), io.StringIO()
    call_command("verify_games", *args, stdout=out, stderr=err)
    return out.getvalue().splitlines(), err.getvalue()


@pytest.mark.django_db
def test_clean_games_exit_0_with_a_summary(make_user: Callable[..., Any]) -> None:
    play_games(make_user)
    lines, _ = run()
    [summary] = lines
    assert SUMMARY.match(summary).groups() == ("5", "0")  # type: ignore[union-attr]


@pytest.mark.django_db
def test_a_mismatch_is_printed_and_exits_1(make_user: Callable[..., Any]) -> None:
    games = play_games(make_user)
    Game.objects.filter(pk=games["won"].pk).update(score=1)
    out = io.StringIO()
    with pytest.raises(CommandError, match="1 games disagree with their logs") as raised:
        call_command("verify_games", "--batch", "2", stdout=out)
    assert raised.value.returncode == 1  # `manage.py` exits with it
    mismatch, summary = out.getvalue().splitlines()
    assert mismatch.startswith(f"game {games['won'].pk}: replay gives won/")
    assert SUMMARY.match(summary).groups() == ("5", "1")  # type: ignore[union-attr]


@pytest.mark.django_db
def test_progress_goes_to_stderr_with_where_to_resume(
    make_user: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    games = play_games(make_user)
    monkeypatch.setattr(verify_games, "PROGRESS_EVERY_S", 0.0)
    first = min(game.pk for game in games.values())
    lines, err = run("--since-id", str(first + 1))
    assert SUMMARY.match(lines[0]).groups() == ("4", "0")  # type: ignore[union-attr]
    assert (
        err.splitlines()[0]
        == f"... 1 games checked, 0 mismatches; resume with --since-id {first + 2}"
    )


@pytest.mark.django_db
def test_a_page_holds_a_game_at_least() -> None:
    with pytest.raises(CommandError, match="--batch must be at least 1"):
        run("--batch", "0")


@pytest.mark.postgres
def test_the_service_role_may_run_it(make_user: Callable[..., Any], transactional_db: None) -> None:
    """It only reads: the service's role, which may not rewrite the log, runs it."""
    play_games(make_user)
    with service_role.logged_in_as_service():
        lines, _ = run()
    assert SUMMARY.match(lines[0]).groups() == ("5", "0")  # type: ignore[union-attr]
