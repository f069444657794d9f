"""The real URLs plus the benchmarks' own views, for `bench.settings` only.

`GET /bench/constant`, a bare Django view returning constant JSON, is bench/api.py's baseline:
what the same gunicorn and middleware stack serve when the view does no work. The `POST
/bench/ladder/...` views are bench/stack.py's steps from that view to a move: each adds one part
of a move's work (a body in and a move-sized answer out, one database round trip, DRF with the
move endpoint's own authentication, throttle, parser and renderer), so that what each part
costs under gunicorn can be measured on its own. `POST /bench/plain/games/{id}/actions` is the
whole move without DRF, for `bench/api.py --moves-path`: what the move would cost if it left DRF's
request cycle (not an API: no throttle, and any refusal is a 500).
"""

from typing import Any

import orjson
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import ProcessTokenAuthentication
from config.jsonio import FastJSONRenderer
from config.urls import *  # noqa: F403  (handler400 ... handler500 too)
from config.urls import urlpatterns as _real_urlpatterns
from games import engine, selectors, services
from games.views import GameActionView

_CONSTANT = b'{"ok":true}'
# About the size of a move's answer (the game resource with its public position).
_MOVE_SIZED = {"padding": "x" * 1200}
_MOVE_SIZED_BYTES = b'{"padding":"' + b"x" * 1200 + b'"}'


def constant(request: HttpRequest) -> HttpResponse:
    """A constant JSON body, no database, no cache."""
    return HttpResponse(_CONSTANT, content_type="application/json")


def _select_one() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


@csrf_exempt
def ladder_body(request: HttpRequest) -> HttpResponse:
    """Reads the body, answers a move-sized constant."""
    request.body  # noqa: B018
    return HttpResponse(_MOVE_SIZED_BYTES, content_type="application/json")


@csrf_exempt
def ladder_select(request: HttpRequest) -> HttpResponse:
    """`ladder_body` plus one round trip to the database."""
    request.body  # noqa: B018
    _select_one()
    return HttpResponse(_MOVE_SIZED_BYTES, content_type="application/json")


class LadderDrf(APIView):
    """DRF with the move endpoint's own parts; parses the body, answers a move-sized dict."""

    authentication_classes = GameActionView.authentication_classes
    throttle_classes = GameActionView.throttle_classes
    throttle_scope = GameActionView.throttle_scope
    parser_classes = GameActionView.parser_classes
    renderer_classes = GameActionView.renderer_classes
    content_negotiation_class = GameActionView.content_negotiation_class
    schema = None  # not part of the API

    def post(self, request: Request) -> Response:
        request.data  # noqa: B018
        return Response(_MOVE_SIZED)


class LadderDrfSelect(LadderDrf):
    """`LadderDrf` plus one round trip to the database."""

    def post(self, request: Request, *args: Any) -> Response:
        request.data  # noqa: B018
        _select_one()
        return Response(_MOVE_SIZED)


@csrf_exempt
def plain_move(request: HttpRequest, game_id: int) -> HttpResponse:
    """The move endpoint's work in a plain Django view: the same token memo, the engine's parser,
    the same service and the same answer's bytes, without DRF's request, negotiation and
    serializer."""
    user, token = ProcessTokenAuthentication().authenticate(request)
    data = orjson.loads(request.body)
    game, state = services.game_action_apply(
        game_id=game_id,
        user=user,
        token_digest=token.digest,
        seq=data["seq"],
        action=engine.action_from_dict(data),
    )
    body = FastJSONRenderer().render(selectors.game_detail(game=game, state=state))
    return HttpResponse(body, content_type="application/json")


urlpatterns = [
    path("bench/constant", constant),
    path("bench/ladder/body", ladder_body),
    path("bench/ladder/select", ladder_select),
    path("bench/ladder/drf", LadderDrf.as_view()),
    path("bench/ladder/drf-select", LadderDrfSelect.as_view()),
    path("bench/plain/games/<id:game_id>/actions", plain_move),
    *_real_urlpatterns,
]
