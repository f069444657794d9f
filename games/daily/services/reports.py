"""Daily challenge writes: a player's report of another player's entry on a final board, with
a reason, for the reviewers (docs/daily.md, "Integrity")."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext

from accounts.errors import AccountRequiredError
from accounts.models import User
from config.errors import NotFoundError
from games.daily.errors import AlreadyReportedError, ReportRefusedError
from games.errors import DailyDealOpenError
from games.models import OFF_FINAL_BOARD, EntryReport, Game


def entry_report(*, reporter: User, game_id: int, reason: str) -> EntryReport:
    """Record `reporter`'s report of the entry of ranked attempt `game_id` with `reason` (not
    empty: the view checks it), once per entry and player. A report flags nothing: it joins
    the evidence a reviewer sees.

    :raises AccountRequiredError: `reporter` is a guest.
    :raises NotFoundError: no ranked attempt with this id is an entry of a board (unknown, a
        casual game, one still in play, or one its board leaves out).
    :raises DailyDealOpenError: the entry's board is still open (its attempts are secret).
    :raises ReportRefusedError: the entry is the reporter's own.
    :raises AlreadyReportedError: the reporter has reported it already.
    """
    if reporter.is_guest:
        raise AccountRequiredError(gettext("Sign up first: guests do not report entries."))
    game = (
        Game.objects.select_related("daily")
        .exclude(OFF_FINAL_BOARD)
        .exclude(status=Game.Status.PLAYING)
        .filter(pk=game_id, daily__isnull=False)
        .first()
    )
    if game is None or game.daily is None:
        raise NotFoundError(gettext("No entry of a daily board has this id."))
    if not game.daily.is_final:
        raise DailyDealOpenError(
            gettext("This board is still open: report an entry once it is final.")
        )
    if game.user_id == reporter.pk:
        raise ReportRefusedError(gettext("This entry is your own."))
    if EntryReport.objects.filter(game=game, reporter=reporter).exists():
        raise AlreadyReportedError(gettext("You have reported this entry already."))
    try:
        with transaction.atomic():
            return EntryReport.objects.create(
                game=game, reporter=reporter, reason=reason, created_at=timezone.now()
            )
    except IntegrityError:  # a concurrent request stored the same report first
        raise AlreadyReportedError(gettext("You have reported this entry already.")) from None
