"""`manage.py verify_games`: replay every stored game's log and compare it with the game's row
(`games.verify`; docs/operations.md, "Verifying games")."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.verify import DEFAULT_BATCH, games_verify

PROGRESS_EVERY_S = 60.0


class Command(BaseCommand):
    help = (
        "Replay every stored game's log through the engine and compare the result with the "
        "stored game (snapshot, status, score, moves, leaderboard score). Prints each "
        "mismatch and a summary; exits with 1 when any game disagrees. Read-only."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--since-id",
            type=int,
            default=0,
            help="check games from this id on (resume a run from its last progress line)",
        )
        parser.add_argument(
            "--batch",
            type=int,
            default=DEFAULT_BATCH,
            help=f"games read a page (default {DEFAULT_BATCH})",
        )

    def handle(self, *args: Any, since_id: int, batch: int, **options: Any) -> None:
        if batch < 1:
            raise CommandError("--batch must be at least 1")
        started = last_progress = time.monotonic()
        checked = mismatches = 0
        for check in games_verify(since_id=since_id, batch=batch):
            checked += 1
            if check.differences:
                mismatches += 1
                self.stdout.write(str(check))
            if time.monotonic() - last_progress >= PROGRESS_EVERY_S:
                # On stderr, so that stdout lists the mismatches and the summary only.
                last_progress = time.monotonic()
                self.stderr.write(
                    f"... {checked} games checked, {mismatches} mismatches;"
                    f" resume with --since-id {check.game_id + 1}"
                )
        elapsed = time.monotonic() - started
        rate = checked / elapsed * 60 if elapsed > 0 else 0.0
        self.stdout.write(
            f"{checked} games checked, {mismatches} mismatches,"
            f" {rate:,.0f} games/minute ({elapsed:.1f} s)"
        )
        if mismatches:
            raise CommandError(f"{mismatches} games disagree with their logs")
