"""Games endpoints (API spec §Games, §Replays). Thin: validate, call one service or selector."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from django.http import HttpResponse, StreamingHttpResponse
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from knox.models import AuthToken
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from accounts.authentication import (
    ProcessTokenAuthentication,
    SessionTokenAuthentication,
    signed_in_user,
)
from config.jsonio import FastJSONRenderer, JSONFirstNegotiation
from config.metrics import action_counted
from config.pagination import paginated_response
from config.schema import PAGE_PARAMETER, errors, paginated
from config.throttles import CounterThrottle, ScopedThrottle
from games import hints, lines, selectors, services
from games.serializers import (
    ACTION_REQUEST,
    START_GAME_REQUEST,
    ActionCheckSerializer,
    ActionInputSerializer,
    GameSerializer,
    GameSummarySerializer,
    HintSerializer,
    ReplayLineSerializer,
    ReplaySerializer,
    StartedGameSerializer,
    StartGameSerializer,
)


class GameListCreateView(APIView):
    throttle_scope = "games"

    class InputSerializer(StartGameSerializer):
        pass

    def get_throttles(self) -> list[BaseThrottle]:
        # New games are counted (each one is rows written); reading the list is not.
        return [ScopedThrottle()] if self.request.method == "POST" else []

    @extend_schema(
        parameters=[
            OpenApiParameter("mine", OpenApiTypes.INT, enum=[1], required=False),
            PAGE_PARAMETER,
        ],
        responses=paginated(GameSummarySerializer, "PaginatedGameList"),
    )
    def get(self, request: Request) -> Response:
        if request.query_params.get("mine", "1") != "1":
            raise serializers.ValidationError(
                {"mine": [gettext("Only your own games are listed: mine=1.")]}
            )
        return paginated_response(
            request=request,
            view=self,
            queryset=selectors.game_list_for_user(user=signed_in_user(request)),
            item=lambda game: selectors.game_summary(game=game),
        )

    @extend_schema(
        request=START_GAME_REQUEST,
        responses={201: StartedGameSerializer, **errors("daily_deal_open")},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        winnable = None
        if fields.pop("winnable", False):
            game, winnable = services.game_start_winnable(user=signed_in_user(request), **fields)
        else:
            game = services.game_start(user=signed_in_user(request), **fields)
        answer = {**selectors.game_detail(game=game), "winnable": winnable}
        return Response(answer, status=status.HTTP_201_CREATED)


class GameDetailView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=GameSerializer)
    def get(self, request: Request, game_id: int) -> Response:
        game = selectors.game_get_visible(game_id=game_id, user=request.user)
        return Response(selectors.game_detail(game=game))


class GameActionView(APIView):
    # The hot path: the token and the throttle's count are kept in memory (the service's
    # statements check the token), the game too, so a move costs one database round trip;
    # JSON in (every view's parser) and out is orjson's, and a client that takes JSON is not
    # negotiated with.
    authentication_classes = [ProcessTokenAuthentication, SessionTokenAuthentication]
    throttle_classes = [CounterThrottle]
    throttle_scope = "moves"
    renderer_classes = [FastJSONRenderer]
    content_negotiation_class = JSONFirstNegotiation

    class InputSerializer(ActionInputSerializer):
        pass

    @extend_schema(
        request=ACTION_REQUEST,
        responses={
            200: GameSerializer,
            **errors("seq_mismatch", "game_over", "illegal_move", "replay_mismatch"),
        },
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        digest = request.auth.digest if isinstance(request.auth, AuthToken) else None
        game, state = services.game_action_apply(
            game_id=game_id,
            user=signed_in_user(request),
            token_digest=digest,
            **data.validated_data,
        )
        action_counted(kind=data.initial_data["action"])
        return Response(selectors.game_detail(game=game, state=state))


class GameActionCheckView(APIView):
    # As the move's view: the same credentials and throttle (a check costs what a move does,
    # less the write), so that it cannot serve to play around the move throttle's limit.
    authentication_classes = GameActionView.authentication_classes
    throttle_classes = GameActionView.throttle_classes
    throttle_scope = GameActionView.throttle_scope

    class InputSerializer(ActionInputSerializer):
        pass

    @extend_schema(
        request=ACTION_REQUEST,
        responses={200: ActionCheckSerializer, **errors("seq_mismatch", "game_over")},
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        digest = request.auth.digest if isinstance(request.auth, AuthToken) else None
        return Response(
            services.game_action_check(
                game_id=game_id,
                user=signed_in_user(request),
                token_digest=digest,
                **data.validated_data,
            )
        )


class GameHintView(APIView):
    throttle_classes = [ScopedThrottle]
    throttle_scope = "hints"

    @extend_schema(
        responses={
            200: HintSerializer,
            # permission_denied: no hints in a ranked daily attempt; throttled: also while
            # the player's last hint is still searched
            **errors("permission_denied", "game_over"),
        }
    )
    def get(self, request: Request, game_id: int) -> Response:
        game = selectors.game_get_for_owner(game_id=game_id, user=signed_in_user(request))
        return Response(hints.game_hint(game=game))


class GameReplayView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=ReplaySerializer)
    def get(self, request: Request, game_id: int) -> Response:
        game = selectors.game_replay_visible(game_id=game_id, user=request.user)
        return Response(selectors.game_replay(game=game))


class GameReplayLineView(APIView):
    permission_classes = [AllowAny]
    throttle_classes = [ScopedThrottle]
    throttle_scope = "hints"

    class InputSerializer(serializers.Serializer[dict[str, Any]]):
        step = serializers.IntegerField(min_value=0, max_value=100_000)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "step",
                {"type": "integer", "minimum": 0, "maximum": 100_000},
                required=True,
                description="The position after this many log entries (0: the deal).",
            )
        ],
        responses={200: ReplayLineSerializer, **errors("not_found")},
    )
    def get(self, request: Request, game_id: int) -> Response:
        query = self.InputSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        game = selectors.game_replay_visible(game_id=game_id, user=request.user)
        return Response(lines.replay_line(game=game, step=query.validated_data["step"]))


class GameReplayTextView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses={(200, "text/plain"): OpenApiTypes.STR})
    def get(self, request: Request, game_id: int) -> HttpResponse:
        game = selectors.game_replay_visible(game_id=game_id, user=request.user)
        return HttpResponse(
            selectors.game_replay_text(game=game), content_type="text/plain; charset=utf-8"
        )


class GameExportView(APIView):
    throttle_classes = [ScopedThrottle]
    throttle_scope = "export"

    @extend_schema(
        responses={
            (200, "application/x-ndjson"): OpenApiResponse(
                OpenApiTypes.STR,
                description="One replay document (the `Replay` schema) a line, oldest game "
                "first, for every finished game; an open daily's attempt redacted.",
            )
        }
    )
    def get(self, request: Request) -> StreamingHttpResponse:
        def lines() -> Iterator[str]:
            for document in selectors.game_export_for_user(user=signed_in_user(request)):
                yield json.dumps(document, default=str, separators=(",", ":")) + "\n"

        response = StreamingHttpResponse(lines(), content_type="application/x-ndjson")
        response["Content-Disposition"] = 'attachment; filename="klondike-games.ndjson"'
        return response
