"""Daily challenge and leaderboard endpoints (api.md, "Daily challenges and leaderboards")."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from django.conf import settings
from django.utils import timezone, translation
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import selectors as account_selectors
from accounts import tokens
from accounts.authentication import signed_in_user
from config.browser import browser_id
from config.errors import NotFoundError
from config.fields import PageNumberField, StrictCharField
from config.schema import PAGE_PARAMETER, errors
from config.site import site_link
from config.throttles import ScopedThrottle, client_address
from games import clock
from games import selectors as game_selectors
from games.daily import selectors, sharing
from games.daily.serializers import (
    CalendarSerializer,
    DailyDaySerializer,
    LeaderboardSerializer,
    RatingHistorySerializer,
    RatingLeaderboardSerializer,
    StreaksSerializer,
)
from games.daily.services import attempts, deals, reports
from games.daily.services import sharing as share_services
from games.models import REPORT_REASON_MAX
from games.serializers import GameSerializer

_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
DAY_PARAMETER = OpenApiParameter(
    "day", OpenApiTypes.DATE, OpenApiParameter.PATH, description="A UTC day, YYYY-MM-DD."
)
MODE_PARAMETER = OpenApiParameter(
    "mode",
    {"type": "string", "enum": list(settings.DAILY_MODES)},
    OpenApiParameter.PATH,
    description="A daily mode (upper or lower case).",
)


def _day(value: str) -> date:
    """A date from the URL.

    :raises ValidationError: not a date written YYYY-MM-DD (as the schema's `format: date`;
        Python alone would also take `20261203` or a week date).
    """
    try:
        if not _ISO_DATE.fullmatch(value):
            raise ValueError(value)
        return date.fromisoformat(value)
    except ValueError:
        raise serializers.ValidationError(
            {"date": [gettext("A date is written YYYY-MM-DD.")]}
        ) from None


# A month the calendar may name: a year from 1000 on, a month 01 to 12 (the schema's pattern).
_MONTH_PATTERN = "[1-9][0-9]{3}-(0[1-9]|1[0-2])"
_ISO_MONTH = re.compile(_MONTH_PATTERN)


def _not_future(day: date) -> date:
    if day > clock.today(timezone.now()):
        raise NotFoundError(gettext("No daily challenges on %(day)s yet.") % {"day": day})
    return day


class DailyTodayView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=DailyDaySerializer)
    def get(self, request: Request) -> Response:
        now = timezone.now()
        day = clock.today(now)
        deals.daily_prepare(day=day, now=now)
        return Response(selectors.daily_day(day=day, user=request.user, now=now))


class DailyDayView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[DAY_PARAMETER], responses={200: DailyDaySerializer, **errors("invalid")}
    )
    def get(self, request: Request, day: str) -> Response:
        now = timezone.now()
        when = _not_future(_day(day))
        deals.daily_prepare(day=when, now=now)
        return Response(selectors.daily_day(day=when, user=request.user, now=now))


def _token_device(request: Request) -> str:
    """The device of the login that made the request's token ("" without one)."""
    digest = getattr(request.auth, "digest", None)
    return tokens.token_device(digest=digest) if isinstance(digest, str) else ""


class DailyStartView(APIView):
    throttle_classes = [ScopedThrottle]
    throttle_scope = "games"

    @extend_schema(
        request=None,
        parameters=[DAY_PARAMETER, MODE_PARAMETER],
        responses={
            201: GameSerializer,
            200: GameSerializer,
            # not_found: a closed, future or unknown day or mode
            **errors(
                "invalid", "account_required", "email_unverified", "email_taken", "already_played"
            ),
        },
    )
    def post(self, request: Request, day: str, mode: str) -> Response:
        game, created = attempts.daily_start(
            user=signed_in_user(request),
            day=_day(day),
            mode=mode,
            address=client_address(request),
            # A script keeps no browser cookie: its token's device stands in (docs/daily.md).
            browser=browser_id(request) or _token_device(request),
        )
        return Response(
            game_selectors.game_detail(game=game),
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class BoardPageQuerySerializer(serializers.Serializer[dict[str, Any]]):
    """The query of a paged board: a page, or the caller's (`around=me`)."""

    page = PageNumberField(required=False)
    around = serializers.ChoiceField(choices=["me"], required=False)
    following = serializers.BooleanField(required=False, default=False)


BOARD_PAGE_PARAMETERS = [
    PAGE_PARAMETER,
    OpenApiParameter("around", OpenApiTypes.STR, enum=["me"], required=False),
    OpenApiParameter(
        "following",
        OpenApiTypes.BOOL,
        required=False,
        description="Only the caller and the public players they follow, ranked among "
        "themselves (signed in only).",
    ),
]


class DailyLeaderboardView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[DAY_PARAMETER, MODE_PARAMETER, *BOARD_PAGE_PARAMETERS],
        responses={200: LeaderboardSerializer, **errors("not_authenticated")},
    )
    def get(self, request: Request, day: str, mode: str) -> Response:
        query = BoardPageQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        daily = deals.daily_board_get(day=_not_future(_day(day)), mode=mode, now=timezone.now())
        return Response(
            selectors.daily_leaderboard(
                daily=daily,
                user=request.user,
                page=query.validated_data.get("page"),
                around_me="around" in query.validated_data,
                following=query.validated_data["following"],
            )
        )


class StreaksView(APIView):
    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer[dict[str, Any]]):
        mode = StrictCharField(required=False, max_length=3)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "mode",
                {"type": "string", "enum": list(settings.DAILY_MODES)},
                required=False,
                description="Defaults to the first daily mode.",
            )
        ],
        responses={200: StreaksSerializer, **errors("not_found")},
    )
    def get(self, request: Request) -> Response:
        query = self.InputSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        mode = deals.daily_mode_check(query.validated_data.get("mode", settings.DAILY_MODES[0]))
        return Response(selectors.daily_streaks(mode=mode))


DRAW_PARAMETER = OpenApiParameter(
    "draw",
    {"type": "integer", "enum": selectors.rating_draws()},
    OpenApiParameter.PATH,
    description="Cards turned from the stock at a time: each draw has its own ratings, "
    "shared by its daily modes.",
)


class RatingLeaderboardView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[DRAW_PARAMETER, *BOARD_PAGE_PARAMETERS],
        responses={
            200: RatingLeaderboardSerializer,
            **errors("invalid", "not_authenticated", "not_found"),
        },
    )
    def get(self, request: Request, draw: int) -> Response:
        query = BoardPageQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        return Response(
            selectors.rating_leaderboard(
                draw=draw,
                user=request.user,
                page=query.validated_data.get("page"),
                around_me="around" in query.validated_data,
                now=timezone.now(),
                following=query.validated_data["following"],
            )
        )


class RatingHistoryView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[DRAW_PARAMETER],
        responses={200: RatingHistorySerializer, **errors("not_found")},
    )
    def get(self, request: Request, username: str, draw: int) -> Response:
        user = account_selectors.user_get_by_username(username=username, viewer=request.user)
        return Response(selectors.rating_history(user=user, draw=draw))


class DailyCalendarView(APIView):
    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer[dict[str, Any]]):
        # allow_blank: an empty `?month=` is checked (and refused), not taken as no month.
        month = StrictCharField(required=False, allow_blank=True)

        def validate_month(self, value: str) -> date:
            try:
                if not _ISO_MONTH.fullmatch(value):
                    raise ValueError(value)
                return date.fromisoformat(f"{value}-01")
            except ValueError:
                raise serializers.ValidationError(gettext("A month is written YYYY-MM.")) from None

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "month",
                {"type": "string", "pattern": f"^{_MONTH_PATTERN}$"},
                required=False,
                description="YYYY-MM (UTC); defaults to this month.",
            )
        ],
        responses={200: CalendarSerializer, **errors("invalid", "not_found")},
    )
    def get(self, request: Request) -> Response:
        query = self.InputSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        now = timezone.now()
        month = query.validated_data.get("month") or clock.today(now)
        return Response(selectors.daily_calendar(month=month, user=request.user, now=now))


class EntryReportView(APIView):
    """Report another player's entry on a final board, with a reason, to the reviewers
    (docs/api.md, "Reports"). One report per entry and player; it flags nothing by itself."""

    throttle_classes = [ScopedThrottle]
    throttle_scope = "reports"

    class InputSerializer(serializers.Serializer[dict[str, Any]]):
        reason = StrictCharField(
            max_length=REPORT_REASON_MAX, help_text="What the reporter saw, for the reviewers."
        )

    class OutputSerializer(serializers.Serializer[dict[str, Any]]):
        game = serializers.IntegerField()
        reported_at = serializers.DateTimeField()

    @extend_schema(
        request=InputSerializer,
        responses={
            201: OutputSerializer,
            # not_found: no entry of a board; daily_deal_open: its board is not final yet
            **errors(
                "invalid",
                "account_required",
                "not_found",
                "daily_deal_open",
                "report_refused",
                "already_reported",
            ),
        },
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        report = reports.entry_report(
            reporter=signed_in_user(request), game_id=game_id, **data.validated_data
        )
        return Response(
            {"game": report.game_id, "reported_at": report.created_at},
            status=status.HTTP_201_CREATED,
        )


class ShareView(APIView):
    """What the player of a finished ranked attempt may share (docs/api.md, "Sharing")."""

    class OutputSerializer(serializers.Serializer[dict[str, Any]]):
        text = serializers.CharField(
            help_text="The short text: the result's lines, the row of symbols, the link."
        )
        url = serializers.URLField(help_text="The result's page, which unfurls in chat apps.")
        image_url = serializers.URLField(help_text="Its image card (PNG, 1200 x 630).")
        final = serializers.BooleanField(help_text="Whether the board is final (a rank shows).")

    @extend_schema(responses={200: OutputSerializer, **errors("not_found")})
    def get(self, request: Request, game_id: int) -> Response:
        game = sharing.shared_game(game_id=game_id, viewer=request.user, owner_only=True)
        share_services.game_share_publish(game=game)  # its page and card are public from now
        result = sharing.shared_result(game)
        language = translation.get_language() or settings.LANGUAGE_CODE
        url = site_link(f"/share/{game.pk}?lang={language}")
        image = site_link(f"/share/{game.pk}.png?lang={language}")
        return Response(
            {
                "text": sharing.share_text(result, url=url),
                "url": url,
                "image_url": image,
                "final": game.daily is not None and game.daily.is_final,
            }
        )
