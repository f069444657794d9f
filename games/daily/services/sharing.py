"""The writes of sharing a ranked result (docs/daily.md, "Sharing"): making its page public
once its player shares it, and keeping its image card once drawn."""

from __future__ import annotations

from collections.abc import Callable

from django.utils import timezone

from games.daily.sharing import SharedResult
from games.models import Game, ShareCard


def game_share_publish(*, game: Game) -> None:
    """Make `game`'s share page and card public: its player shared it (the first share sets
    the time; a later one changes nothing). The caller checked that the player is its own."""
    if game.shared_at is None:
        Game.objects.filter(pk=game.pk, shared_at__isnull=True).update(shared_at=timezone.now())
        game.shared_at = Game.objects.values_list("shared_at", flat=True).get(pk=game.pk)


def share_card_kept(*, result: SharedResult, language: str, draw: Callable[[], bytes]) -> bytes:
    """`result`'s card in `language`: the one kept, or else drawn by `draw` and kept (drawn
    again only once what it says changed: the board went final, so its rank shows)."""
    kept = (
        ShareCard.objects.filter(game_id=result.game_id, language=language)
        .values_list("rank", "entries", "png")
        .first()
    )
    if kept is not None and kept[:2] == (result.rank, result.entries):
        return bytes(kept[2])
    png = draw()
    ShareCard.objects.update_or_create(
        game_id=result.game_id,
        language=language,
        defaults={"rank": result.rank, "entries": result.entries, "png": png},
    )
    return png
