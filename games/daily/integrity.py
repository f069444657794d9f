"""The integrity check of ranked daily attempts, and the reviewer's word on its flags
(docs/daily.md, "Integrity").

When a ranked attempt ends, `game_integrity_check` weighs two kinds of evidence:

- its own: a log that does not replay to the stored result, inhuman timing, a line of play
  that follows the solver's winning line (conclusive: they flag and withhold the attempt);
  and its own signs, shown to reviewers (a new account's first ranked win at par). Lines are
  judged on the *net* line, the game as it stands once undone actions are taken out
  (`engine.net_line`), so padding a game with undos changes no verdict. Its signs across days
  and modes: a win far above the account's own record in the draw (its casual and past ranked
  games, its ranked wins against par, its rating). Two signs of its own flag together;
- links to other accounts' attempts at the same deal started from the same browser (or, for
  an API client, the same device: the login that made its token), or the same client address,
  whatever order they started and finished in, and the scout's sign on an address: the other
  attempt resigned within a few moves.

A link is weak evidence: households share a browser, a school lab or a carrier's NAT share an
address, and on a shared address somebody always gives up early. Alone it never flags: it is
recorded for reviewers (`flag_evidence["links"]`, `AttemptLink`), and the attempt stays on its
board and counts for its ratings. A link flags together with a sign of the attempt's own.

Conclusive evidence withholds the attempt from its boards, open and final, until a reviewer
clears it; any other flag leaves it on the board, with no mark, counting for no rating until
a reviewer confirms it (it leaves) or clears it. Only its owner is told that it is being
checked (`under_review` in their own game).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.tokens import DEVICE_PREFIX
from games import engine
from games import services as game_services
from games.daily import live
from games.daily.rating import is_provisional
from games.daily.services.attempts import rank_queue
from games.daily.services.ratings import ratings_queue
from games.daily.services.streaks import streak_recount
from games.models import AttemptLink, AttemptOrigin, FlagReview, Game, Rating

logger = logging.getLogger("games.daily")

# Timing. A human needs time to see a card and aim at its place: over enough actions, a
# median gap under MIN_HUMAN_MEDIAN_GAP_MS, or under MIN_HUMAN_MOVE_GAP_MS before card moves
# (draws can be clicked fast, a card must be found first), is a script; and so are gaps
# as regular as a clock (the middle 80 % within REGULAR_SPREAD of their median).
MIN_ACTIONS_FOR_TIMING = 30
MIN_HUMAN_MEDIAN_GAP_MS = 150
MIN_HUMAN_MOVE_GAP_MS = 250
REGULAR_SPREAD = 0.2

# A win whose net card moves follow the solver's winning line this closely was looked up.
SOLVER_LINE_SHARE = 0.9
# An account this young is new; its first ranked game won at par or better is a sign, shown
# to reviewers.
NEW_ACCOUNT_AGE = timedelta(days=7)
# An attempt that ended within this many moves only peeked at the deal: a scout's.
EARLY_END_MOVES = 10
# The account's record (its finished games of the draw before this one, casual and ranked):
# a win is far above it when, over at least RECORD_MIN_GAMES, it won under RECORD_LOW_WIN_RATE
# of them; or when it wins at par while none of its RECORD_MIN_RANKED_WINS or more past ranked
# wins came within RECORD_PAR_MARGIN times par; or at par from an established rating under
# RECORD_LOW_RATING.
RECORD_MIN_GAMES = 10
RECORD_LOW_WIN_RATE = 0.1
RECORD_MIN_RANKED_WINS = 3
RECORD_PAR_MARGIN = 1.25
RECORD_LOW_RATING = 1300


@dataclass
class Verdict:
    """What the check concluded of one attempt: reasons in plain words, and whether any of
    them is conclusive (the attempt leaves its final board until a reviewer clears it)."""

    reasons: list[str] = field(default_factory=list)
    conclusive: bool = False

    def add(self, reason: str, *, conclusive: bool = False) -> None:
        self.reasons.append(reason)
        self.conclusive = self.conclusive or conclusive


def game_integrity_check(*, game_id: int) -> str:
    """Check a finished ranked attempt: weigh its own evidence and its links to other accounts'
    attempts at the deal, store the evidence for reviewers, and flag it (and a linked attempt
    the evidence also accuses) for review. Returns the game's flag reason, "" for a clean
    game. Idempotent: a second run finds the same evidence and adds nothing.
    """
    game = Game.objects.select_related("deal", "daily", "user").filter(pk=game_id).first()
    if game is None or not game.is_over or game.daily is None:
        return ""
    rows = list(game.actions.order_by("seq").values_list("notation", "at_ms"))
    log = [notation for notation, _ in rows]
    evidence, own = _own_evidence(game, rows, log)
    Game.objects.filter(pk=game.pk).update(flag_evidence=evidence)
    verdicts: dict[int, Verdict] = {game.pk: own}
    links: list[str] = []
    for other, same_browser, same_address in _linked_attempts(game):
        _link_record(game, other, same_browser=bool(same_browser), same_address=same_address)
        link = _link_sign(game, other, same_browser)
        if link:
            links.append(link)
        _judge_pair(game, evidence["signs"], other, same_browser, verdicts[game.pk])
        if other.is_over:
            other_signs = (other.flag_evidence or {}).get("signs", [])
            other_verdict = verdicts.setdefault(other.pk, Verdict())
            _judge_pair(other, other_signs, game, same_browser, other_verdict)
    if links:
        evidence["links"] = links
        Game.objects.filter(pk=game.pk).update(flag_evidence=evidence)
    for flagged_id, verdict in verdicts.items():
        if verdict.reasons:
            game_flag(game_id=flagged_id, reasons=verdict.reasons, conclusive=verdict.conclusive)
    return Game.objects.values_list("flag_reason", flat=True).get(pk=game.pk)


def _own_evidence(
    game: Game, rows: list[tuple[str, int]], log: list[str]
) -> tuple[dict[str, Any], Verdict]:
    """The figures a reviewer sees of one attempt, with its own signs in plain words, and the
    verdict on the signs that flag on their own."""
    daily = game.daily
    assert daily is not None
    verdict = Verdict()
    disagreement = game_services.game_replay_disagreement(
        game=game, log=log, live=game_services.game_state(game)
    )
    if disagreement:
        verdict.add(disagreement, conclusive=True)
    timing = _timing(rows)
    if timing["inhuman"]:
        verdict.add(f"inhuman timing: {timing['inhuman']}", conclusive=True)
    net = [n for n in engine.net_line(log) if n != "resign" and not n.startswith("*")]
    share = line_share(net, daily.solution.split())
    won = game.status == Game.Status.WON
    if won and share >= SOLVER_LINE_SHARE:
        verdict.add(f"follows the solver's line for {share:.0%} of its net moves", conclusive=True)
    new_account = game.started_at - game.user.date_joined < NEW_ACCOUNT_AGE
    first_ranked = not Game.objects.filter(
        user_id=game.user_id, daily__isnull=False, started_at__lt=game.started_at
    ).exists()
    signs = []
    if won and new_account and first_ranked and len(net) <= daily.par:
        signs.append(
            f"a new account's first ranked game, won in {len(net)} net moves (par {daily.par})"
        )
    record = _record(game)
    if won:
        signs += _above_record(record, net_moves=len(net), par=daily.par)
    if len(signs) >= 2:  # two signs of its own together flag (not conclusive)
        for sign in signs:
            verdict.add(sign)
    evidence = {
        "moves": game.moves,
        "undos": game.undos,
        "net_moves": len(net),
        "par": daily.par,
        "solver_line_share": round(share, 3),
        "new_account": new_account,
        "first_ranked": first_ranked,
        "timing": {k: v for k, v in timing.items() if k != "inhuman"},
        "record": record,
        "signs": signs,
    }
    return evidence, verdict


def _record(game: Game) -> dict[str, Any]:
    """The account's record before `game` in its draw: finished games (casual and ranked) and
    wins, its ranked wins' best moves against par, and its rating (None when unrated)."""
    past = Game.objects.filter(
        user_id=game.user_id, draw=game.draw, finished_at__lt=game.started_at
    ).exclude(status=Game.Status.PLAYING)
    games = past.count()
    wins = past.filter(status=Game.Status.WON).count()
    ratios = [
        moves / par
        for moves, par in past.filter(status=Game.Status.WON, daily__isnull=False).values_list(
            "moves", "daily__par"
        )
        if par
    ]
    rating = Rating.objects.filter(user_id=game.user_id, draw=game.draw).first()
    return {
        "games": games,
        "wins": wins,
        "ranked_wins": len(ratios),
        "best_ranked_moves_to_par": round(min(ratios), 2) if ratios else None,
        "rating": round(rating.mu) if rating else None,
        "rated_boards": rating.boards if rating else 0,
        "established": rating is not None and not is_provisional(rating.sigma),
    }


def _above_record(record: dict[str, Any], *, net_moves: int, par: int) -> list[str]:
    """Signs that a win is far above the account's own record (`_record`), in plain words."""
    signs = []
    games, wins = record["games"], record["wins"]
    if games >= RECORD_MIN_GAMES and wins < RECORD_LOW_WIN_RATE * games:
        signs.append(f"a win far above the account's record: {wins} won of its {games} games")
    at_par = net_moves <= par
    best = record["best_ranked_moves_to_par"]
    if (
        at_par
        and record["ranked_wins"] >= RECORD_MIN_RANKED_WINS
        and best is not None
        and best > RECORD_PAR_MARGIN
    ):
        signs.append(
            f"a win at par far above the account's ranked wins (the best took {best:.2f} x par)"
        )
    rating = record["rating"]
    if at_par and rating is not None and record["established"] and rating < RECORD_LOW_RATING:
        signs.append(f"a win at par from a rating of {rating}")
    return signs


def _timing(rows: list[tuple[str, int]]) -> dict[str, Any]:
    """The gaps between a game's actions (automatic moves left out): their median, the
    median before card moves, their spread, and why they look inhuman ("" when they don't)."""
    gaps: list[int] = []
    move_gaps: list[int] = []
    last = 0
    for notation, at in rows:
        if notation.startswith("*"):
            continue
        gaps.append(at - last)
        if notation not in ("draw", "recycle", "undo", "resign"):
            move_gaps.append(at - last)
        last = at
    figures: dict[str, Any] = {"actions": len(gaps), "inhuman": ""}
    if len(gaps) < MIN_ACTIONS_FOR_TIMING:
        return figures
    ordered = sorted(gaps)
    median = ordered[len(ordered) // 2]
    spread = (ordered[len(ordered) * 9 // 10] - ordered[len(ordered) // 10]) / max(median, 1)
    move_median = sorted(move_gaps)[len(move_gaps) // 2] if move_gaps else None
    figures.update(median_gap_ms=median, move_median_gap_ms=move_median, spread=round(spread, 3))
    if median < MIN_HUMAN_MEDIAN_GAP_MS:
        figures["inhuman"] = f"median gap {median} ms over {len(gaps)} actions"
    elif (
        move_median is not None
        and len(move_gaps) >= MIN_ACTIONS_FOR_TIMING // 2
        and (move_median < MIN_HUMAN_MOVE_GAP_MS)
    ):
        figures["inhuman"] = f"median gap {move_median} ms before {len(move_gaps)} card moves"
    elif spread <= REGULAR_SPREAD:
        figures["inhuman"] = (
            f"gaps as regular as a clock: 80 % of {len(gaps)} within {spread:.0%} of {median} ms"
        )
    return figures


def line_share(moves_log: list[str], line: list[str]) -> float:
    """The share of a line of play's card moves that follow the card moves of `line` in
    order: their longest common subsequence over the line of play's count. Draws and
    recycles are left out (every line is full of them, so they would match whoever played),
    and so are undos, the resign and automatic moves."""

    def card_moves(notations: list[str]) -> list[str]:
        skip = ("draw", "recycle", "undo", "resign")
        return [n for n in notations if n not in skip and not n.startswith("*")]

    moves, steps = card_moves(moves_log), card_moves(line)
    if not moves or not steps:
        return 0.0
    previous = [0] * (len(steps) + 1)
    for move in moves:
        current = [0]
        for j, step in enumerate(steps):
            current.append(previous[j] + 1 if move == step else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1] / len(moves)


def _linked_attempts(game: Game) -> list[tuple[Game, str, bool]]:
    """Other accounts' attempts at the game's deal started from its browser (or device) or its
    address, in any state, with (attempt, the browser id they share or "", same address)."""
    origin = AttemptOrigin.objects.filter(game=game).first()
    if origin is None or not (origin.address or origin.browser):
        return []
    same = Q(pk__in=[])
    if origin.address:
        same |= Q(address=origin.address)
    if origin.browser:
        same |= Q(browser=origin.browser)
    others = (
        AttemptOrigin.objects.filter(same, daily_id=game.daily_id)
        .exclude(game__user_id=game.user_id)
        .select_related("game__user")
        .order_by("game_id")
    )
    return [
        (
            o.game,
            origin.browser if origin.browser and o.browser == origin.browser else "",
            bool(origin.address) and o.address == origin.address,
        )
        for o in others
    ]


def _link_record(game: Game, other: Game, *, same_browser: bool, same_address: bool) -> None:
    """Record the link both ways (idempotent)."""
    now = timezone.now()
    AttemptLink.objects.bulk_create(
        [
            AttemptLink(game=a, other=b, same_browser=same_browser, same_address=same_address,
                        created_at=now)
            for a, b in ((game, other), (other, game))
        ],
        ignore_conflicts=True,
    )  # fmt: skip


def _link_sign(judged: Game, partner: Game, same_browser: str) -> str:
    """What a link to `partner`'s attempt says of the finished attempt `judged`, in plain words
    ("" for nothing): a shared browser (`same_browser`, the id they share, "" for none), or an
    API client's device, is a sign; a shared address is one only
    when the partner's attempt looks like a scout's (it began before `judged` ended, and
    resigned within EARLY_END_MOVES moves, a game left open being resigned when its board
    closes). Weak evidence either way (`_judge_pair`)."""
    who = f"{partner.user.username}'s attempt {partner.pk}"
    if same_browser:
        what = "device (API login)" if same_browser.startswith(DEVICE_PREFIX) else "browser"
        return f"same {what} as {who}"
    assert judged.finished_at is not None
    if (
        partner.status == Game.Status.RESIGNED
        and partner.moves <= EARLY_END_MOVES
        and partner.started_at < judged.finished_at
    ):
        return f"same address as {who}, which ended after {partner.moves} moves"
    return ""


def _judge_pair(
    judged: Game, signs: list[str], partner: Game, same_browser: str, verdict: Verdict
) -> None:
    """Add to `judged`'s verdict what its link to `partner`'s attempt says: a link sign flags
    only together with a sign of the attempt's own (`signs`, from its evidence); alone it is a
    reviewer's evidence, and flags nothing (a household, a school lab, a carrier's NAT)."""
    link = _link_sign(judged, partner, same_browser)
    if link and signs:
        verdict.add(link)
        for sign in signs:
            verdict.add(sign)


@transaction.atomic
def game_flag(*, game_id: int, reasons: list[str], conclusive: bool) -> None:
    """Flag a finished ranked attempt for review with `reasons` (added to those it has), and
    withhold it from its final board when the evidence is conclusive. A reason new to a
    game a reviewer had cleared opens its review again; a confirmed game stays confirmed.
    Re-ranks a final board whose entries this changes."""
    game = (
        Game.objects.select_for_update(of=("self",))
        .select_related("daily")
        .filter(pk=game_id)
        .first()
    )
    if game is None or game.daily is None:
        return
    known = [r for r in game.flag_reason.split("; ") if r]
    new = [r for r in dict.fromkeys(reasons) if r not in known]
    if not new and (game.flag_withheld or not conclusive):
        return
    was_off = game.off_final_board
    game.flag_reason = "; ".join([*known, *new])
    game.flag_withheld = game.flag_withheld or conclusive
    if new and game.flag_review == FlagReview.CLEARED:
        game.flag_review = FlagReview.PENDING
    game.save(update_fields=["flag_reason", "flag_withheld", "flag_review"])
    logger.warning("game %s flagged: %s", game_id, "; ".join(new))
    if game.off_final_board != was_off:  # withheld: it leaves its board, open or final
        rank_queue(game.daily)
        transaction.on_commit(lambda: live.live_rank_remove(game_id=game_id))
        if game.daily.is_final:
            streak_recount(user_id=game.user_id, mode=game.daily.mode)
    if game.daily.is_final:  # under review now: its entry counts for no rating until cleared
        ratings_queue(game.daily.draw, game.daily.date)


@transaction.atomic
def game_flag_review(*, game_id: int, review: FlagReview) -> bool:
    """A reviewer's word on a flagged attempt: `CLEARED` (fair play: it is on its board and
    counts for its ratings) or `CONFIRMED` (cheating: it leaves the board, open or final, and its
    streak). Re-ranks the board and recounts the player's streak. Returns whether anything
    changed (an unflagged game, or the same word again, changes nothing). On a final board,
    has the rating job rate the board and the ones after it again."""
    game = (
        Game.objects.select_for_update(of=("self",))
        .select_related("daily")
        .filter(pk=game_id)
        .first()
    )
    if game is None or game.daily is None or not game.flag_reason or game.flag_review == review:
        return False
    game.flag_review = review
    game.save(update_fields=["flag_review"])
    daily = game.daily
    rank_queue(daily)
    streak_recount(user_id=game.user_id, mode=daily.mode)
    if daily.is_final:
        ratings_queue(daily.draw, daily.date)
    if review == FlagReview.CONFIRMED:
        transaction.on_commit(lambda: live.live_rank_remove(game_id=game_id))
    else:
        transaction.on_commit(lambda: live.live_rank_add(game_id=game_id))
    return True
