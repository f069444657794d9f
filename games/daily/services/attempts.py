"""Daily challenge writes: a player's one ranked attempt, started and recorded with its
origin, and what its end sets going (streak, live rank, integrity check, ranking)."""

from __future__ import annotations

from datetime import date

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext

from accounts.authentication import user_check_active
from accounts.models import User
from accounts.services import user_check_verified_email, user_ranked_mailbox_record
from config.hooks import Hook
from games import clock, engine
from games import services as game_services
from games.daily import live
from games.daily.errors import AlreadyPlayedError, DailyNotFoundError
from games.daily.services.deals import daily_deal_get_or_create, daily_mode_check
from games.daily.services.streaks import streak_count_win
from games.models import (
    AttemptOrigin,
    DailyDeal,
    Game,
)

# The jobs this layer has the task layer queue, after the commit (connected in `games.apps`):
# re-rank a board (`games.tasks.rank_daily`), check a finished ranked game
# (`games.tasks.check_game_integrity`).
rank_queue: Hook[[DailyDeal]] = Hook("games.daily.services.attempts.rank_queue")
integrity_check_queue: Hook[[int]] = Hook("games.daily.services.attempts.integrity_check_queue")


def daily_start(
    *, user: User, day: date, mode: str, address: str | None = None, browser: str = ""
) -> tuple[Game, bool]:
    """Start (or resume) the user's ranked attempt on a daily deal.

    Returns the game and whether it was created now. The attempt is recorded when it starts,
    under a unique constraint on (user, daily deal), so reloading never gives a second one,
    with where it was started from (`address`, the client's; `browser`, its id cookie) for
    the integrity check. The deal is created (solved) outside any transaction, so no lock is
    held meanwhile.

    :raises AuthenticationFailed: the account was deactivated.
    :raises EmailUnverifiedError: the account has no verified e-mail address (a guest is
        refused with `account_required` instead).
    :raises EmailTakenError: its mailbox is another account's ranked identity
        (`accounts.models.RankedMailbox`).
    :raises DailyNotFoundError: unknown mode, or a day that is not open for starts.
    :raises AlreadyPlayedError: the user has finished their attempt.
    """
    user_check_active(user_id=user.pk)
    user_check_verified_email(user=user)
    mode = daily_mode_check(mode)
    now = timezone.now()
    if not clock.accepts_starts(day, now):
        raise DailyNotFoundError(
            gettext("The %(day)s challenges are not open for new attempts.") % {"day": day}
        )
    daily = daily_deal_get_or_create(day=day, mode=mode)
    game = _attempt(user=user, daily=daily)
    if game is not None:
        if game.is_over:
            raise AlreadyPlayedError(
                gettext("You have played this daily challenge: one ranked attempt per player."),
                game=game.pk,
            )
        return game, False
    rules = engine.Rules.from_preset(daily.draw, daily.preset)
    try:
        with transaction.atomic():
            game = game_services.game_create(
                user=user, deal=daily.deal, rules=rules, kind=Game.Kind.DAILY, daily=daily
            )
            AttemptOrigin.objects.create(
                game=game, daily=daily, address=address, browser=browser, created_at=now
            )
            user_ranked_mailbox_record(user=user)  # its mailbox is its ranked identity now
    except IntegrityError:
        # A concurrent request recorded the attempt first: answer with that one.
        game = _attempt(user=user, daily=daily)
        assert game is not None
        return game, False
    return game, True


def _attempt(*, user: User, daily: DailyDeal) -> Game | None:
    return Game.objects.filter(user=user, daily=daily).select_related("deal", "daily").first()


def daily_game_finished(game: Game, log: list[str]) -> None:
    """`games.services.game_ended`'s receiver (connected in `games.apps`): inside the
    transaction that ends a ranked attempt, with its whole log, count a win in its player's
    streak, and after the commit, update the live ranks and queue the integrity check and the
    ranking job. Other games are left alone."""
    if game.daily_id is None:
        return
    if game.status == Game.Status.WON:
        streak_count_win(game)
    game_id = game.pk
    transaction.on_commit(lambda: live.live_rank_add(game_id=game_id))
    integrity_check_queue(game_id)
    assert game.daily is not None
    rank_queue(game.daily)
