"""Django admin: deals, games, logs and daily boards are read-only; the one write an admin
makes is clearing an integrity flag (through the service, so the board is re-ranked)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import F, QuerySet
from django.http import HttpRequest

from games.daily import services as daily_services
from games.models import Action, DailyDeal, DailyStreak, Deal, Game, LeaderboardEntry


class ReadOnlyAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Lists and shows rows; never adds, edits or deletes them."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ActionInline(admin.TabularInline):  # type: ignore[type-arg]
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


@admin.register(Game)
class GameAdmin(ReadOnlyAdmin):
    list_display = (
        "id", "user", "kind", "draw", "preset", "status", "score", "moves", "undos",
        "flag_reason", "flag_cleared", "started_at",
    )  # fmt: skip
    list_filter = ("kind", "status", "preset", "draw", "flag_cleared")
    search_fields = ("user__username", "flag_reason")
    exclude = ("snapshot",)
    inlines = (ActionInline,)
    actions = ("clear_flags",)

    @admin.action(description="Clear the integrity flag (the game rejoins its ranking)")
    def clear_flags(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        flagged = [game.pk for game in queryset if game.flag_reason and not game.flag_cleared]
        for game_id in flagged:
            daily_services.daily_flag_clear(game_id=game_id)
        self.message_user(request, f"Cleared {len(flagged)} flag(s).", messages.SUCCESS)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # The changelist action needs change permission; the form itself stays read-only.
        return obj is None and super(ReadOnlyAdmin, self).has_change_permission(request, obj)


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
        "snapshot__daily",
        "rank",
        "game__user",
        "game__status",
        "game__leaderboard_score",
        "game__moves",
        "game__undos",
        "game__elapsed_ms",
    )
    list_filter = ("snapshot__daily__mode",)
    list_select_related = ("snapshot__daily", "game__user")

    def get_queryset(self, request: HttpRequest) -> QuerySet[LeaderboardEntry]:
        # Each board's current generation only: a replaced one lingers for a grace period.
        # Not the games' engine snapshots and analyses: big, and not shown here.
        return (
            super()
            .get_queryset(request)
            .filter(snapshot_id=F("snapshot__daily__snapshot_id"))
            .defer("game__snapshot", "game__analysis")
        )


@admin.register(DailyStreak)
class DailyStreakAdmin(ReadOnlyAdmin):
    list_display = ("user", "mode", "current", "longest", "last_win")
    list_filter = ("mode",)
