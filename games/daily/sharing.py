"""A ranked attempt's result worth sharing (docs/daily.md, "Sharing"): its figures, a short text
and the lines of its image card, without a spoiler.

Nothing here names a card or the deal: the figures are the result's (won or lost, score,
moves, time, and the rank once the board is final), and the row of symbols says only how many
cards reached the foundations in each part of the game.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.utils.translation import gettext, ngettext

from accounts.models import User
from config.errors import NotFoundError
from games import engine
from games.daily.selectors import final_rank
from games.models import Action, Game
from games.services import game_setup

# The row of symbols: the game's moves in this many slices (fewer for a shorter game), each
# shown by how many cards reached the foundations in it.
ROW_SLICES = 13
# A slice's symbol: none (or cards taken back), a few, many.
SYMBOLS = ("⬜", "🟨", "🟩")
_MANY = 4


@dataclass(frozen=True)
class SharedResult:
    """What a share says of a finished ranked attempt."""

    game_id: int
    username: str
    day: date
    mode: str
    won: bool
    score_display: str
    moves: int
    elapsed_ms: int
    rank: int | None  # once the board is final
    entries: int | None
    homed: tuple[int, ...]  # cards that reached the foundations in each slice of the game


def shared_game(*, game_id: int, viewer: object = None, owner_only: bool = False) -> Game:
    """A finished ranked attempt whose result may be shared: its player's own (`owner_only`),
    or, for anyone, one its player shared (`shared_at`) from a public profile.

    :raises NotFoundError: no such game, not a finished ranked attempt, not the viewer's own
        when `owner_only`, or for someone else one never shared or a private profile's.
    """
    game = (
        Game.objects.select_related("daily", "user")
        .filter(pk=game_id, daily__isnull=False)
        .exclude(status=Game.Status.PLAYING)
        .first()
    )
    mine = game is not None and isinstance(viewer, User) and viewer.pk == game.user_id
    if (
        game is None
        or (owner_only and not mine)
        or not game.user.is_active
        or (game.user.profile_private and not mine)
        or (game.shared_at is None and not mine)
    ):
        raise NotFoundError(
            gettext("No result to share: only a finished ranked attempt of yours has one.")
            if owner_only
            else gettext("No such result.")
        )
    return game


def _homed_per_slice(game: Game) -> tuple[int, ...]:
    """Cards that reached the foundations in each of up to ROW_SLICES slices of the game's
    moves (net of cards taken back), replayed from its log."""
    state = engine.GameState.new(*game_setup(game))
    counts = [0]  # foundation cards after each logged action
    for notation in (
        Action.objects.filter(game=game).order_by("seq").values_list("notation", flat=True)
    ):
        if notation.startswith("*"):  # played by the action before it
            continue
        state.apply(engine.parse_action(notation))
        counts.append(state.foundation_count)
    steps = len(counts) - 1
    slices = max(1, min(ROW_SLICES, steps))
    bounds = [round(i * steps / slices) for i in range(slices + 1)]
    return tuple(counts[bounds[i + 1]] - counts[bounds[i]] for i in range(slices))


def shared_result(game: Game) -> SharedResult:
    """The figures of a share of `game` (a finished ranked attempt): the rank only once its
    board is final."""
    daily = game.daily
    assert daily is not None
    rules = engine.Rules.from_preset(game.draw, game.preset)
    placed = final_rank(daily=daily, user=game.user) if daily.is_final else None
    return SharedResult(
        game_id=game.pk,
        username=game.user.username,
        day=daily.date,
        mode=daily.mode,
        won=game.status == Game.Status.WON,
        score_display=engine.format_score(rules, game.leaderboard_score),
        moves=game.moves,
        elapsed_ms=game.elapsed_ms or 0,
        rank=placed[0] if placed else None,
        entries=placed[1] if placed else None,
        homed=_homed_per_slice(game),
    )


def mode_name(mode: str) -> str:
    """A daily mode in the reader's language: "Draw 1 · Normal"."""
    draws = {"1": gettext("Draw 1"), "3": gettext("Draw 3")}
    presets = {
        "N": gettext("Normal"),
        "V": gettext("Vegas"),
        "C": gettext("Classic"),
        "R": gettext("Relaxed"),
    }
    return f"{draws[mode[1]]} · {presets[mode[2]]}"


def _clock(elapsed_ms: int) -> str:
    seconds = elapsed_ms // 1000
    hours, minutes = divmod(seconds // 60, 60)
    return f"{hours}:{minutes:02d}:{seconds % 60:02d}" if hours else f"{minutes}:{seconds % 60:02d}"


def symbol_row(homed: tuple[int, ...]) -> str:
    """The row of symbols: one per slice of the game, by the cards it sent home."""
    return "".join(SYMBOLS[0 if n <= 0 else 2 if n >= _MANY else 1] for n in homed)


def share_lines(result: SharedResult) -> list[str]:
    """The lines a share shows, in the reader's language (the text and the image card)."""
    outcome = gettext("Won") if result.won else gettext("Lost")
    figures = [
        outcome,
        result.score_display,
        ngettext("%(count)s move", "%(count)s moves", result.moves) % {"count": result.moves},
        _clock(result.elapsed_ms),
    ]
    lines = [
        f"Klondike Daily {result.day.isoformat()} · {mode_name(result.mode)}",
        " · ".join(figures),
    ]
    if result.rank is not None and result.entries is not None:
        lines.append(
            gettext("Rank %(rank)s of %(entries)s")
            % {"rank": result.rank, "entries": result.entries}
        )
    return lines


def share_text(result: SharedResult, *, url: str) -> str:
    """The short text a player shares: the lines, the row of symbols and the link."""
    return "\n".join([*share_lines(result), symbol_row(result.homed), url])
