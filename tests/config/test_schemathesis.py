"""Property-based API tests generated from the OpenAPI schema: no 5xx, and every response
matches the schema (its status, content type, headers and body). Runs in process against the
WSGI application; `tools/fuzz_api.py` (in `.ci/run`) fuzzes a live server with every check."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from config.wsgi import application
from games.services import game_start

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _keep_the_test_connection_open() -> Iterator[None]:
    """Requests reach the WSGI app directly, not through Django's test client, so the
    connection-closing signal handlers must be held off as that client does."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def player_headers(make_user: Any) -> dict[str, str]:
    user, key = make_user("fuzzer")
    # Games with small ids, so generated path parameters sometimes hit a real game.
    for code in ("KL1-D1N-AAAAAAG", "KL1-D3V-AAAAAAB", "KL1-D1R-AAAAAAC"):
        game_start(user=user, code=code)
    return {"Authorization": f"Token {key}"}


# Loaded at import: fetching the schema needs neither a login nor the database.
schema = schemathesis.openapi.from_wsgi("/api/v1/schema/?format=json", application)


@schema.parametrize()
@settings(
    max_examples=30,
    deadline=None,
    # The same examples on every run keep CI deterministic; new seeds are explored by hand
    # (`--hypothesis-seed`), and every failure found becomes a test of its own.
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_api_conforms_to_its_schema(case: Any, player_headers: dict[str, str]) -> None:
    response = case.call(headers=player_headers)
    case.validate_response(
        response,
        checks=[
            not_a_server_error,
            status_code_conformance,
            content_type_conformance,
            response_headers_conformance,
            response_schema_conformance,
        ],
    )
