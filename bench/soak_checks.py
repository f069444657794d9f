"""bench/soak.py's steps inside the stack's database: run as `python -m bench.soak_checks
<step>` with the stack's environment (`tools/stack.py` `Stack.env`), each printing JSON.

- `dailies`: today's daily deals (made now when missing), with their codes and the solver's
  winning lines: the simulated players' knowledge of the deal they play.
- `links FILE` (FILE: player names, one a line): each player's e-mail verification link
  (uid, token), as the e-mail the service sends would carry it.
- `logs FILE`: every game the players played (FILE: bench/soak.py's JSON of the games) checked
  against its stored log: each action answered 200 at its seq, in order, and nothing else.
- `close DAY`: the boards of DAY made final as the service makes them at the end of the grace
  hour (`daily_close` with that hour as its clock).
- `boards DAY`: each final board of DAY compared with a ranking made from scratch in Python
  from its games, in the ranking order of games/daily/ranking.py.
"""

from __future__ import annotations

import json
import sys
from datetime import date
from typing import Any


def dailies() -> dict[str, Any]:
    """Today's boards: {date, boards: {mode: {code, solution, final}}}."""
    from django.utils import timezone

    from games import clock, engine
    from games.daily.services.deals import daily_ensure

    today = clock.today(timezone.now())
    boards = {
        d.mode: {
            "code": str(engine.DealCode(d.draw, d.preset, d.deal.number)),
            "solution": d.solution.split("\n") if d.solution else [],
            "final": d.is_final,
        }
        for d in daily_ensure()
        if d.date == today
    }
    return {"date": today.isoformat(), "boards": boards}


def links(names: list[str]) -> dict[str, list[str]]:
    """{name: [uid, token]}: each player's verification link, made as the service makes it
    (accounts.services.user_email_verification_mail)."""
    from django.utils.encoding import force_bytes
    from django.utils.http import urlsafe_base64_encode

    from accounts.models import User
    from accounts.services import email_verification_token_generator

    return {
        user.username: [
            urlsafe_base64_encode(force_bytes(user.pk)),
            email_verification_token_generator.make_token(user),
        ]
        for user in User.objects.filter(username__in=names)
    }


def logs(games: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Each game's stored log against what its player saw: every action answered 200
    (`acked`: [seq of its first entry, [notations]]) must be there at its seq, and the log
    must be the player's whole known log (`log`: the acknowledged actions and those a retry
    found applied), plus at most the resign a board's close adds to a ranked attempt left
    in play, and the action whose fate its player never learned (`pending`).

    Returns the counts and the first few games that fail, with what differs."""
    from games.models import Action, Game

    ids = [int(i) for i in games]
    stored: dict[int, list[str]] = {i: [] for i in ids}
    rows = Action.objects.filter(game_id__in=ids).order_by("game_id", "seq")
    for game_id, seq, notation in rows.values_list("game_id", "seq", "notation").iterator():
        if seq != len(stored[game_id]) + 1:
            stored[game_id].append(f"<gap before seq {seq}>")
        stored[game_id].append(notation)
    daily = set(Game.objects.filter(pk__in=ids, daily__isnull=False).values_list("pk", flat=True))
    acked = lost = differ = 0
    failures = []
    for key, seen in games.items():
        game_id = int(key)
        log = stored[game_id]
        missing = []
        for seq, entries in seen["acked"]:
            acked += 1
            if log[seq - 1 : seq - 1 + len(entries)] != entries:
                missing.append([seq, entries, log[seq - 1 : seq - 1 + len(entries)]])
        lost += len(missing)
        known = seen["log"]
        extra = log[len(known) :]
        # The action in flight when the player stopped, its fate unknown to it, may be there;
        # and a ranked attempt left in play is resigned by its board's close.
        pending = seen.get("pending", [])
        if extra[: len(pending)] == pending:
            extra = extra[len(pending) :]
        closed_in_play = game_id in daily and seen["open"] and extra == ["resign"]
        same = log[: len(known)] == known and (not extra or closed_in_play)
        differ += not same
        if (missing or not same) and len(failures) < 10:
            failures.append(
                {"game": game_id, "lost": missing[:3], "known": len(known), "stored": len(log)}
            )
    return {
        "games": len(games),
        "acked_actions": acked,
        "lost": lost,
        "logs_differ": differ,
        "failures": failures,
    }


def close(day: date) -> dict[str, Any]:
    """Make DAY's boards final, as the beat's close does at the end of the grace hour."""
    from games import clock
    from games.daily.services.closing import daily_close
    from games.models import DailyDeal

    at = clock.play_closes_at(day)
    closed = {
        d.mode: daily_close(daily_id=d.pk, now=at) for d in DailyDeal.objects.filter(date=day)
    }
    return {"closed": closed}


def boards(day: date) -> dict[str, Any]:
    """Each board of DAY: final, and its entries (game, rank, place) those of a ranking
    made from scratch: its finished games less those off a final board, sorted by
    `game_rank_key` then id, equal keys sharing the rank of the first."""
    from games.daily.ranking import game_rank_key
    from games.models import OFF_FINAL_BOARD, DailyDeal, Game, LeaderboardEntry

    out = {}
    for daily in DailyDeal.objects.filter(date=day):
        games = sorted(
            Game.objects.filter(daily=daily)
            .exclude(status=Game.Status.PLAYING)
            .exclude(OFF_FINAL_BOARD),
            key=lambda g: (game_rank_key(g), g.pk),
        )
        scratch = []
        for place, game in enumerate(games, start=1):
            tied = scratch and game_rank_key(game) == game_rank_key(games[place - 2])
            scratch.append([game.pk, scratch[-1][1] if tied else place, place])
        stored = [
            list(row)
            for row in LeaderboardEntry.objects.filter(generation_id=daily.generation_id)
            .order_by("position")
            .values_list("game_id", "rank", "position")
        ]
        first = next(
            (i for i, (a, b) in enumerate(zip(stored, scratch, strict=False)) if a != b), None
        )
        out[daily.mode] = {
            "final": daily.is_final,
            "entries": len(stored),
            "scratch": len(scratch),
            "players": Game.objects.filter(daily=daily).count(),
            "won": sum(g.status == Game.Status.WON for g in games),
            "withheld": Game.objects.filter(daily=daily).filter(OFF_FINAL_BOARD).count(),
            # Finished attempts the integrity check never saw (its task lost).
            "unchecked": Game.objects.filter(daily=daily, flag_evidence__isnull=True)
            .exclude(status=Game.Status.PLAYING)
            .count(),
            "equal": stored == scratch and daily.entries_count == len(scratch),
            "first_difference": None if first is None else [stored[first], scratch[first]],
        }
    return out


def main() -> int:
    import django

    django.setup()
    step, *rest = sys.argv[1:]
    if step == "dailies":
        result = dailies()
    elif step == "links":
        with open(rest[0]) as f:
            result = links([line.strip() for line in f if line.strip()])
    elif step == "logs":
        with open(rest[0]) as f:
            result = logs(json.load(f))
    elif step == "close":
        result = close(date.fromisoformat(rest[0]))
    elif step == "boards":
        result = boards(date.fromisoformat(rest[0]))
    else:
        raise SystemExit(f"unknown step {step!r}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
