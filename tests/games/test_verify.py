"""games.verify: stored games replayed from their logs and compared with their rows. Games are
played through the services; a tampered row or log row must show as that game's mismatch."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any

import pytest
import time_machine
from django.db import connection

from games import engine
from games import services as game_services
from games.daily.services import attempts as daily_attempts
from games.daily.services import deals as daily_deals
from games.engine import snapshot
from games.models import Action, Deal, Game
from games.verify import game_verify, games_verify
from tests.games.conftest import CODE

pytestmark = pytest.mark.django_db

DAY = date(2026, 11, 30)
NOON = datetime(2026, 11, 30, 12, tzinfo=UTC)
# Casual play on CODE (tests/games/conftest.py): a card to its foundation, a draw taken back,
# a tap that sends the ace of hearts home, two draws.
CASUAL_LINE = ["t1-f3", "draw", "undo", "t7-f2", "draw", "draw"]


def play(game: Game, user: Any, line: list[str]) -> Game:
    """Play `line` (notation) in `game` through the service, as the API would; returns the
    game as the last action left it."""
    for notation in line:
        game, _ = game_services.game_action_apply(
            game_id=game.pk, user=user, seq=game.seq, action=engine.parse_action(notation)
        )
    return game


def play_games(make_user: Callable[..., Any]) -> dict[str, Game]:
    """One of each kind of game, played through the services at noon of DAY: a casual game in
    play, one resigned, one never moved, a ranked daily attempt won on the solver's line and
    one resigned (the board stays open)."""
    with time_machine.travel(NOON, tick=False):
        users = [make_user()[0] for _ in range(3)]
        daily = daily_deals.daily_deal_get_or_create(day=DAY, mode="D1N")
        games: dict[str, Game] = {}
        games["playing"] = play(
            game_services.game_start(user=users[0], code=CODE), users[0], CASUAL_LINE
        )
        games["resigned"] = play(
            game_services.game_start(user=users[0], code=CODE), users[0], ["draw", "resign"]
        )
        games["fresh"] = game_services.game_start(user=users[1], code=CODE)
        ranked, _ = daily_attempts.daily_start(user=users[1], day=DAY, mode="D1N")
        games["won"] = play(ranked, users[1], daily.solution.split())
        ranked, _ = daily_attempts.daily_start(user=users[2], day=DAY, mode="D1N")
        games["ranked_resigned"] = play(ranked, users[2], ["draw", "draw", "resign"])
    assert games["won"].status == Game.Status.WON
    return {name: Game.objects.get(pk=game.pk) for name, game in games.items()}


@pytest.fixture
def games(make_user: Callable[..., Any]) -> dict[str, Game]:
    return play_games(make_user)


def verdicts(**kwargs: Any) -> dict[int, tuple[str, ...]]:
    """`games_verify`'s differences by game id."""
    return {check.game_id: check.differences for check in games_verify(**kwargs)}


def mismatch_of(game: Game) -> str:
    """What `games_verify` says of `game`, which must be the only game that disagrees."""
    found = {game_id: diff for game_id, diff in verdicts().items() if diff}
    assert list(found) == [game.pk], found
    return "; ".join(found[game.pk])


def log_sql(sql: str, params: list[Any]) -> None:
    """Rewrite the move log: the suite's escape hatch is open (tests/conftest.py)."""
    with connection.cursor() as cursor:
        cursor.execute(sql.format(log=Action._meta.db_table), params)


def test_games_played_through_the_services_agree(games: dict[str, Game]) -> None:
    found = verdicts()
    assert list(found) == sorted(game.pk for game in games.values())  # each once, in id order
    assert all(differences == () for differences in found.values()), found
    assert games["won"].leaderboard_score is not None and games["playing"].seq == 6


@pytest.mark.parametrize("batch", [1, 2, 500])
def test_pages_of_any_size_check_every_game_once(games: dict[str, Game], batch: int) -> None:
    assert verdicts(batch=batch) == verdicts()


def test_since_id_starts_there(games: dict[str, Game]) -> None:
    ids = sorted(game.pk for game in games.values())
    assert list(verdicts(since_id=ids[2])) == ids[2:]


def test_a_page_costs_three_queries(games: dict[str, Game], django_assert_num_queries: Any) -> None:
    """Games, their deals, their log rows: per page, whatever the number of games or actions,
    and one more query to find the end."""
    with django_assert_num_queries(3 * 3 + 1):
        assert len(verdicts(batch=2)) == 5


TAMPERED_ROWS = {
    "score": ("playing", {"score": 999}, "replay gives playing/"),
    "status": ("resigned", {"status": "won"}, "replay gives resigned/"),
    "moves": ("won", {"moves": 3}, "replay gives won/"),
    "undos": ("playing", {"undos": 0}, "replay gives playing/"),
    "seq": ("resigned", {"seq": 3}, "1 log entries missing: seq 3"),
    "foundations": ("playing", {"foundations": 4}, "foundations 4, the snapshot's 2"),
    "passes": ("playing", {"passes_used": 2}, "passes_used 2, the snapshot's 0"),
    "leaderboard score": ("won", {"leaderboard_score": 10_000}, "leaderboard score 10000"),
    "leaderboard score in play": ("playing", {"leaderboard_score": 5}, "leaderboard score 5"),
    "rules": ("resigned", {"draw": 3}, "the snapshot's rules are D1N, the game's D3N"),
}


@pytest.mark.parametrize("case", TAMPERED_ROWS.values(), ids=TAMPERED_ROWS.keys())
def test_a_tampered_row_is_a_mismatch(games: dict[str, Game], case: Any) -> None:
    name, changes, said = case
    Game.objects.filter(pk=games[name].pk).update(**changes)
    assert said in mismatch_of(games[name])


def test_another_position_in_the_snapshot_is_a_mismatch(games: dict[str, Game]) -> None:
    """The snapshot of the game's deal before its first move: figures right, position wrong."""
    start = engine.GameState.new(engine.Deal.from_number(6), engine.Rules.from_preset(1, "N"))
    Game.objects.filter(pk=games["playing"].pk).update(snapshot=snapshot.dumps(start))
    assert "replay ends in another position" in mismatch_of(games["playing"])


def test_a_snapshot_that_does_not_load_is_a_mismatch(games: dict[str, Game]) -> None:
    Game.objects.filter(pk=games["won"].pk).update(snapshot=b"not a snapshot")
    assert "the snapshot does not load" in mismatch_of(games["won"])


def test_an_altered_action_is_a_mismatch(games: dict[str, Game]) -> None:
    """A draw logged as a recycle: the log no longer replays."""
    log_sql("UPDATE {log} SET notation = 'recycle' WHERE game_id = %s AND seq = 1",
            [games["resigned"].pk])  # fmt: skip
    assert "log does not replay" in mismatch_of(games["resigned"])


def test_an_action_replaced_by_another_legal_one_is_a_mismatch(games: dict[str, Game]) -> None:
    """A draw logged where a card went home: it replays, to other figures."""
    log_sql("UPDATE {log} SET notation = 'draw' WHERE game_id = %s AND seq = 1",
            [games["playing"].pk])  # fmt: skip
    assert "replay gives playing/" in mismatch_of(games["playing"])


@pytest.mark.parametrize("seq", [1, 6])
def test_a_deleted_action_is_a_mismatch(games: dict[str, Game], seq: int) -> None:
    log_sql("DELETE FROM {log} WHERE game_id = %s AND seq = %s", [games["playing"].pk, seq])
    assert f"1 log entries missing: seq {seq}" in mismatch_of(games["playing"])


def test_an_action_past_the_end_of_a_game_over_is_a_mismatch(games: dict[str, Game]) -> None:
    game = games["ranked_resigned"]
    Action.objects.create(game=game, seq=game.seq + 1, notation="draw", at_ms=1)
    assert "1 log entries past the game's end" in mismatch_of(game)


def _stored(game: Game) -> tuple[Game, list[tuple[int, str]]]:
    """The game as `games_verify` reads it, and its log."""
    game = Game.objects.select_related("deal").get(pk=game.pk)
    return game, list(game.actions.order_by("seq").values_list("seq", "notation"))


def test_a_move_made_while_the_game_was_read_is_no_mismatch(games: dict[str, Game]) -> None:
    """Its row was read before the move, its log after: the log counts up to the row's seq."""
    game, log = _stored(games["playing"])
    assert game_verify(game=game, log=[*log, (game.seq + 1, "draw")]).differences == ()


def test_every_difference_is_listed(games: dict[str, Game]) -> None:
    game, log = _stored(games["won"])
    game.foundations, game.leaderboard_score = 3, 1
    check = game_verify(game=game, log=log[:-1])
    assert len(check.differences) == 4, check.differences  # missing, replay, counter, score
    assert str(check).startswith(f"game {game.pk}: 1 log entries missing: seq {game.seq}; ")


def test_a_deal_stored_with_another_layout_is_a_mismatch(games: dict[str, Game]) -> None:
    """The deal's stored layout is what a log replays from, whatever its number says."""
    other = engine.Deal.from_number(7).to_dict()
    Deal.objects.filter(pk=games["fresh"].deal_id).update(layout=other)
    found = {game_id for game_id, differences in verdicts().items() if differences}
    assert games["fresh"].pk in found and games["playing"].pk in found
