"""Stored games checked against their logs: every game's log replayed from its stored deal
and compared with what its row stores (`manage.py verify_games`, docs/operations.md).

The log is the record; a game's row caches what its replay gives (status, score, moves,
undos, the counters, the engine snapshot) and, once over, its leaderboard score. A backup
restored, a migration run or a suspicion about the database: this says whether every row still
agrees with its log.

It streams. Games are read in pages by id (keyset: `id > last`, never an OFFSET), with the
page's deals and log rows in one query each, so memory holds one page whatever the number of
games. It only reads, so the service's role may run it, on the live database or on a restored
copy.

A game in play may take a move between the read of its row and the read of its log. Its log
is therefore read up to the row's `seq`: those rows never change (the log is append-only, and
a move writes its rows and the game's new `seq` in one transaction). Rows past `seq` are a
mismatch only for a game that is over.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

from games import engine
from games.engine.snapshot import SnapshotError
from games.game_rows import IN_PLAY_FIELDS
from games.models import Action, Deal, Game
from games.services import game_replay_disagreement, game_rules, game_setup, game_state

DEFAULT_BATCH = 500  # games a page: a few MB of log rows at a few hundred actions a game
_SHOWN = 5  # missing log entries named in a mismatch

# What the check reads of a game's row: the figures a move caches, its deal and rules, and the
# leaderboard score.
_GAME_FIELDS = (*IN_PLAY_FIELDS, "deal", "draw", "preset", "leaderboard_score")


@dataclass(frozen=True, slots=True)
class GameCheck:
    """One game's verdict: what differs between its row and its replayed log (none: agrees)."""

    game_id: int
    differences: tuple[str, ...]

    def __str__(self) -> str:
        return f"game {self.game_id}: {'; '.join(self.differences) or 'agrees with its log'}"


def games_verify(*, since_id: int = 0, batch: int = DEFAULT_BATCH) -> Iterator[GameCheck]:
    """Check every game with an id of at least `since_id`, in id order (`game_verify`),
    `batch` games a page; yields each game's verdict as it is made.

    Read-only, and each page is read in statements of its own (no transaction is held).
    """
    if batch < 1:
        raise ValueError("a page holds at least one game")
    after = since_id - 1
    while True:
        games = list(Game.objects.filter(pk__gt=after).order_by("pk").only(*_GAME_FIELDS)[:batch])
        if not games:
            return
        deals = Deal.objects.only("layout").in_bulk({game.deal_id for game in games})
        rows = (
            Action.objects.filter(game_id__gte=games[0].pk, game_id__lte=games[-1].pk)
            .order_by("game_id", "seq")
            .values_list("game_id", "seq", "notation")
        )
        logs = itertools.groupby(rows, key=lambda row: row[0])
        pending = next(logs, None)
        for game in games:
            # Rows of a game that is not on the page: one whose id was taken before the page
            # was read and that committed after (the next run checks it).
            while pending is not None and pending[0] < game.pk:
                pending = next(logs, None)
            log: list[tuple[int, str]] = []
            if pending is not None and pending[0] == game.pk:
                log = [(seq, notation) for _, seq, notation in pending[1]]
                pending = next(logs, None)
            game.deal = deals[game.deal_id]
            yield game_verify(game=game, log=log)
        after = games[-1].pk


def game_verify(*, game: Game, log: list[tuple[int, str]]) -> GameCheck:
    """What differs between `game`'s row and its log, `(seq, notation)` rows in `seq` order,
    replayed from the game's stored deal: the log's rows themselves (none missing, none past
    the end of a game that is over), the snapshot (it loads, under the game's rules, and holds
    the replay's position), status, score, moves, undos and `seq` (as the referee checks a
    game's end, `game_replay_disagreement`), the counters the snapshot holds, and the
    leaderboard score (the replay's for a game that is over, none in play).

    `game` has its deal with its layout.
    """
    differences: list[str] = []
    logged = [notation for seq, notation in log if seq <= game.seq]
    if len(log) > len(logged) and game.is_over:
        differences.append(f"{len(log) - len(logged)} log entries past the game's end")
    # Rows are unique per (game, seq) and numbered from 1: as many as `seq` means all there.
    if len(logged) != game.seq:
        present = {seq for seq, _ in log}
        missing = (seq for seq in range(1, game.seq + 1) if seq not in present)
        first = ", ".join(str(seq) for seq in itertools.islice(missing, _SHOWN))
        count = game.seq - len(logged)
        differences.append(f"{count} log entries missing: seq {first}{', ...' * (count > _SHOWN)}")
    try:
        live = game_state(game)
    except SnapshotError as exc:
        differences.append(f"the snapshot does not load: {exc}")
        return GameCheck(game.pk, tuple(differences))
    rules = game_rules(game)
    if live.rules != rules:
        differences.append(
            f"the snapshot's rules are D{live.rules.draw}{live.rules.preset}, the game's "
            f"D{rules.draw}{rules.preset}"
        )
    disagreement = game_replay_disagreement(game=game, log=logged, live=live)
    if disagreement:
        differences.append(disagreement)
    counters = {"foundations": live.foundation_count, "passes_used": live.passes_used}
    for name, value in counters.items():
        if getattr(game, name) != value:
            differences.append(f"{name} {getattr(game, name)}, the snapshot's {value}")
    try:
        expected = engine.leaderboard_score(game_setup(game), logged) if live.is_over else None
    except engine.ReplayError:
        pass  # the log does not replay: `game_replay_disagreement` said so
    else:
        if game.leaderboard_score != expected:
            differences.append(
                f"leaderboard score {game.leaderboard_score}, the replay's {expected}"
            )
    return GameCheck(game.pk, tuple(differences))
