"""Liveness and readiness: the database and the cache answer."""

from __future__ import annotations

from typing import Any

from django.core.cache import cache
from django.db import connection
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.cache import CACHE_ERRORS, cache_answered, cache_failed

_HEALTH = inline_serializer(
    "Health",
    fields={
        "status": serializers.ChoiceField(
            choices=["ok", "degraded"], help_text='"degraded" with the 503'
        ),
        "database": serializers.CharField(help_text="the database's vendor"),
        "cache": serializers.ChoiceField(choices=["ok", "down"], help_text='"down" with the 503'),
    },
)


class HealthView(APIView):
    """200 when the database and the cache answer. 503 when the cache does not (`cache:
    "down"`, `status: "degraded"`): the API still answers from the database then, without
    shared throttle counts, cached tokens or live ranks. The 503 body is this same object,
    not the error format, so a probe reads one shape. A database that does not answer is a
    500 in the error format."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    @extend_schema(responses={200: _HEALTH, 503: _HEALTH}, auth=[])
    def get(self, request: Request) -> Response:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        try:
            cache.set("health:ping", 1, 5)  # always tried: this is how a process sees it back
        except CACHE_ERRORS:
            cache_failed("health")
            body = {"status": "degraded", "database": connection.vendor, "cache": "down"}
            return Response(body, status=status.HTTP_503_SERVICE_UNAVAILABLE)
        cache_answered()
        return Response({"status": "ok", "database": connection.vendor, "cache": "ok"})
