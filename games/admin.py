"""Django admin: deals, games, logs and daily boards are read-only; the one write an admin
makes is a review of an integrity flag, clear or confirm (through the service, so the board
is re-ranked and the player's streak recounted)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import F, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from games.daily import integrity
from games.models import (
    Action,
    AttemptLink,
    AttemptOrigin,
    DailyDeal,
    DailyStreak,
    Deal,
    EntryReport,
    FlagReview,
    Game,
    LeaderboardEntry,
)

# The admin's classes are generic in django-stubs only: subscripted for the type checker alone.
if TYPE_CHECKING:
    ModelAdmin = admin.ModelAdmin[Any]
    ActionInlineBase = admin.TabularInline[Action, Game]
else:
    ModelAdmin, ActionInlineBase = admin.ModelAdmin, admin.TabularInline


class ReadOnlyAdmin(ModelAdmin):
    """Lists and shows rows; never adds, edits or deletes them."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ActionInline(ActionInlineBase):
    model = Action
    fields = ("seq", "notation", "score_after", "at_ms")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Deal)
class DealAdmin(ReadOnlyAdmin):
    list_display = ("id", "scheme", "number", "created_at")
    search_fields = ("number",)


class FlagFilter(admin.SimpleListFilter):
    """The review queue: flagged games by where their review stands."""

    title = "integrity flag"
    parameter_name = "flag"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [
            ("pending", "under review"),
            ("withheld", "under review, off the final board"),
            ("cleared", "cleared"),
            ("confirmed", "confirmed"),
            ("linked", "not flagged, linked to another account's attempt"),
            ("reported", "reported by players"),
            ("none", "not flagged"),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Game]) -> QuerySet[Game]:
        flagged = queryset.exclude(flag_reason="")
        match self.value():
            case "pending":
                return flagged.filter(flag_review=FlagReview.PENDING)
            case "withheld":
                return flagged.filter(flag_review=FlagReview.PENDING, flag_withheld=True)
            case "cleared" | "confirmed" as review:
                return flagged.filter(flag_review=review)
            case "reported":
                return queryset.filter(reports__isnull=False).distinct()
            case "linked":
                return queryset.filter(flag_reason="", links__isnull=False).distinct()
            case "none":
                return queryset.filter(flag_reason="")
        return queryset


@admin.register(Game)
class GameAdmin(ReadOnlyAdmin):
    """Games, and the review of integrity flags: each flagged game's page shows the evidence in
    plain words and clears or confirms the flag in one click (`review_view`)."""

    list_display = (
        "id", "user", "kind", "draw", "preset", "status", "score", "moves", "undos",
        "flag_reason", "review", "started_at",
    )  # fmt: skip
    list_filter = (FlagFilter, "kind", "status", "preset", "draw")
    search_fields = ("user__username", "flag_reason")
    exclude = ("snapshot", "flag_evidence", "flag_review", "flag_withheld")
    readonly_fields = ("review", "evidence", "reports", "linked_attempts", "origin_seen")
    inlines = (ActionInline,)
    actions = ("clear_flags", "confirm_flags")

    def get_urls(self) -> list[Any]:
        review = path(
            "<int:game_id>/review/<str:verdict>/",
            self.admin_site.admin_view(self.review_view),
            name="games_game_review",
        )
        return [review, *super().get_urls()]

    def review_view(self, request: HttpRequest, game_id: int, verdict: str) -> HttpResponse:
        """One click on a game's page: POST clears or confirms its flag, then back to it."""
        if request.method != "POST" or verdict not in (FlagReview.CLEARED, FlagReview.CONFIRMED):
            return HttpResponseNotAllowed(["POST"])
        if not self.has_change_permission(request):
            raise PermissionDenied
        if integrity.game_flag_review(game_id=game_id, review=FlagReview(verdict)):
            self.message_user(request, f"Game {game_id}: flag {verdict}.", messages.SUCCESS)
        return HttpResponseRedirect(reverse("admin:games_game_change", args=[game_id]))

    @admin.display(description="review")
    def review(self, game: Game) -> str:
        """Where the flag's review stands, with the one-click buttons while it can change."""
        if not game.flag_reason:
            return "not flagged"
        state = {
            FlagReview.PENDING: "under review"
            + (" (off the final board until cleared)" if game.flag_withheld else ""),
            FlagReview.CLEARED: "cleared: fair play",
            FlagReview.CONFIRMED: "confirmed: cheating (off the board)",
        }[FlagReview(game.flag_review)]
        buttons = [
            format_html(
                '<button type="submit" class="button" formmethod="post" formaction="{}">'
                "{}</button>",
                reverse("admin:games_game_review", args=[game.pk, verdict]),
                label,
            )
            for verdict, label in (
                (FlagReview.CLEARED, "Clear: fair play"),
                (FlagReview.CONFIRMED, "Confirm: cheating"),
            )
            if verdict != game.flag_review
        ]
        return format_html("{} {}", state, mark_safe(" ".join(buttons)))

    @admin.display(description="evidence")
    def evidence(self, game: Game) -> str:
        """The check's figures of this attempt, in plain words."""
        return format_html_join(mark_safe("<br>"), "{}", ((line,) for line in evidence_lines(game)))

    @admin.display(description="reports")
    def reports(self, game: Game) -> str:
        """Other players' reports of this entry, with their reasons (evidence, no flag)."""
        rows = EntryReport.objects.filter(game=game).select_related("reporter").order_by("pk")
        if not rows:
            return "none"
        return format_html_join(
            mark_safe("<br>"),
            "{} on {}: {}",
            ((r.reporter.username, f"{r.created_at:%Y-%m-%d %H:%M}", r.reason) for r in rows),
        )

    @admin.display(description="linked attempts")
    def linked_attempts(self, game: Game) -> str:
        """Other accounts' attempts at this deal from the same browser or address."""
        links = AttemptLink.objects.filter(game=game).select_related("other__user")
        if not links:
            return "none"
        return format_html_join(
            mark_safe("<br>"),
            '<a href="{}">{}\'s attempt {}</a>: same {}; {} after {} moves{}',
            (
                (
                    reverse("admin:games_game_change", args=[link.other_id]),
                    link.other.user.username,
                    link.other_id,
                    " and ".join(
                        what
                        for what, shared in (
                            ("browser", link.same_browser),
                            ("address", link.same_address),
                        )
                        if shared
                    ),
                    link.other.status,
                    link.other.moves,
                    f", flagged: {link.other.flag_reason}" if link.other.flag_reason else "",
                )
                for link in links
            ),
        )

    @admin.display(description="started from")
    def origin_seen(self, game: Game) -> str:
        origin = AttemptOrigin.objects.filter(game=game).first()
        if origin is None:
            return "not recorded (a casual game, or kept no longer than 30 days)"
        return f"address {origin.address or 'unknown'}, browser {origin.browser[:8] or 'none'}…"

    # Both need the change permission the per-game buttons need (`has_change_permission`):
    # the admin offers them to no one else, and `_review` refuses anyone else who names them.
    @admin.action(
        description="Clear the integrity flag (fair play: it stays on its board)",
        permissions=["change"],
    )
    def clear_flags(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        self._review(request, queryset, FlagReview.CLEARED)

    @admin.action(
        description="Confirm the integrity flag (cheating: it leaves its board)",
        permissions=["change"],
    )
    def confirm_flags(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        self._review(request, queryset, FlagReview.CONFIRMED)

    def _review(self, request: HttpRequest, queryset: QuerySet[Game], review: FlagReview) -> None:
        if not self.has_change_permission(request):
            raise PermissionDenied
        changed = sum(
            integrity.game_flag_review(game_id=pk, review=review)
            for pk in queryset.exclude(flag_reason="").values_list("pk", flat=True)
        )
        self.message_user(request, f"{review.label}: {changed} flag(s).", messages.SUCCESS)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Reviewing needs change permission; the form itself stays read-only.
        return obj is None and super(ReadOnlyAdmin, self).has_change_permission(request, obj)


def evidence_lines(game: Game) -> list[str]:
    """What the integrity check measured of a game, one plain sentence a figure."""
    figures = game.flag_evidence
    if not figures:
        return ["not checked (a casual game, or one still in play)"]
    lines = [
        f"{figures['moves']} moves with {figures['undos']} undos; without the undone actions, "
        f"{figures['net_moves']} moves (par {figures['par']}).",
        f"Follows the solver's winning line for {figures['solver_line_share']:.0%} of its net "
        "card moves (90 % or more flags a win).",
    ]
    timing = figures.get("timing", {})
    if "median_gap_ms" in timing:
        before_moves = timing.get("move_median_gap_ms")
        lines.append(
            f"Timing: median gap {timing['median_gap_ms']} ms over {timing['actions']} actions"
            + (f", {before_moves} ms before card moves" if before_moves is not None else "")
            + f"; the middle 80 % of gaps spread {timing['spread']:.0%} of the median."
        )
    else:
        lines.append(f"Timing: too few actions ({timing.get('actions', 0)}) to judge.")
    account = "a new account (under 7 days)" if figures["new_account"] else "an older account"
    first = "its first ranked game" if figures["first_ranked"] else "not its first ranked game"
    lines.append(f"Played by {account}; {first}.")
    record = figures.get("record")
    if record:
        best = record["best_ranked_moves_to_par"]
        rating = record["rating"]
        lines.append(
            f"Record in the draw before it: {record['games']} games, {record['wins']} won; "
            + (f"its best ranked win took {best:.2f} x par; " if best is not None else "")
            + (
                f"rating {rating} over {record['rated_boards']} boards."
                if rating is not None
                else "unrated."
            )
        )
    lines += [f"Sign: {sign}." for sign in figures.get("signs", [])]
    # Weak evidence, for reviewers only: alone it flags nothing (docs/daily.md, "Integrity").
    lines += [f"Link: {link}." for link in figures.get("links", [])]
    return lines


@admin.register(Action)
class ActionAdmin(ReadOnlyAdmin):
    list_display = ("game", "seq", "notation", "score_after", "at_ms")
    search_fields = ("game__id",)


@admin.register(DailyDeal)
class DailyDealAdmin(ReadOnlyAdmin):
    list_display = ("date", "mode", "par", "entries_count", "ranked_at", "finalized_at")
    list_filter = ("mode",)


@admin.register(LeaderboardEntry)
class LeaderboardEntryAdmin(ReadOnlyAdmin):
    list_display = (
        "generation__daily",
        "rank",
        "game__user",
        "game__status",
        "game__leaderboard_score",
        "game__moves",
        "game__undos",
        "game__elapsed_ms",
    )
    list_filter = ("generation__daily__mode",)
    list_select_related = ("generation__daily", "game__user")

    def get_queryset(self, request: HttpRequest) -> QuerySet[LeaderboardEntry]:
        # Each board's current generation only: a replaced one lingers for a grace period.
        # Not the games' engine snapshots and analyses: big, and not shown here.
        return (
            super()
            .get_queryset(request)
            .filter(generation_id=F("generation__daily__generation_id"))
            .defer("game__snapshot", "game__analysis")
        )


@admin.register(DailyStreak)
class DailyStreakAdmin(ReadOnlyAdmin):
    list_display = ("user", "mode", "current", "longest", "last_win")
    list_filter = ("mode",)
