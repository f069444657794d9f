"""Liveness and readiness: the database and the cache answer."""

from __future__ import annotations

from typing import Any

from django.core.cache import cache
from django.db import connection
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView


class HealthView(APIView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    @extend_schema(
        responses={
            200: inline_serializer(
                "Health",
                fields={
                    "status": serializers.CharField(),
                    "database": serializers.CharField(),
                    "cache": serializers.CharField(),
                },
            )
        },
        auth=[],
    )
    def get(self, request: Request) -> Response:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        cache.set("health:ping", 1, 5)
        return Response(
            {"status": "ok", "database": connection.vendor, "cache": type(cache).__name__}
        )
