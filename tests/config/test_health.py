"""config.health: 200 while the database and the cache answer (503: test_redis_outage.py)."""

from __future__ import annotations

import pytest
from django.db import connection

from config import cache as shared

pytestmark = pytest.mark.django_db


def test_health_is_200_when_the_database_and_the_cache_answer(api_client):
    response = api_client.get("/api/v1/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": connection.vendor, "cache": "ok"}


def test_a_health_check_that_reaches_the_cache_ends_this_process_s_pause(api_client):
    try:
        raise ConnectionRefusedError("as if Redis were down")
    except ConnectionRefusedError:
        shared.cache_failed("a test")
    assert shared.cache_paused()
    assert api_client.get("/api/v1/health").status_code == 200
    assert not shared.cache_paused()
