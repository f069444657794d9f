"""The Prometheus metrics (config/metrics.py): only the scraper reads them, and after a move, a
hint, a login and a ranking job they say so, with values that add up."""

from __future__ import annotations

import logging
import re
import secrets
from typing import Any

import pytest
from django_redis import get_redis_connection
from prometheus_client.parser import text_string_to_metric_families
from redis.exceptions import ConnectionError as RedisConnectionError

from accounts import services as account_services
from config import cache as shared_cache
from config import metrics
from config.slots import HostSlots, held_slots
from games import tasks
from games.hints import search_slots
from tests.games.daily.conftest import DAY, clock, daily, finished_attempt

__all__ = ["clock", "daily", "finished_attempt"]  # fixtures, used by name

TOKEN = secrets.token_urlsafe(48)  # of this run only: a written token is published, and refused
CODE = "KL1-D1N-AAAAAAG"  # t1 AD, t7 AH (tests/games/conftest.py)


def scraped(client: Any) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of one scrape with the token: {(name, labels): value}."""
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain")
    return parsed(response.content.decode())


def parsed(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """The samples of a scrape's text: {(name, labels): value}."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(
    samples: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str
) -> float:
    """One sample's value, 0 when the scrape has none such (a series not yet counted)."""
    return samples.get((name, frozenset(labels.items())), 0.0)


def _page(html: bytes) -> bytes:
    """A page without its CSRF token, which is masked anew on every answer."""
    return re.sub(rb'name="csrfmiddlewaretoken" value="[^"]*"', b"", html)


@pytest.fixture
def scraper(settings: Any) -> None:
    settings.METRICS_TOKEN = TOKEN


# --- Who may read them -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"HTTP_AUTHORIZATION": "Bearer wrong-" + "x" * 50},
        {"HTTP_AUTHORIZATION": f"Bearer {TOKEN}x"},
        {"HTTP_AUTHORIZATION": f"Token {TOKEN}"},  # the API's scheme, not the scraper's
        {"HTTP_AUTHORIZATION": TOKEN},
        # A forged client address changes nothing: only the secret opens it.
        {"HTTP_X_FORWARDED_FOR": "127.0.0.1", "REMOTE_ADDR": "127.0.0.1"},
        {"HTTP_X_FORWARDED_FOR": "127.0.0.1, 10.0.0.9", "REMOTE_ADDR": "10.0.0.9"},
    ],
)
@pytest.mark.django_db
def test_the_public_gets_the_site_s_404(client, scraper, headers):
    response = client.get("/metrics", **headers)
    missing = client.get("/no-such-page", **headers)
    assert response.status_code == missing.status_code == 404
    assert _page(response.content) == _page(missing.content.replace(b"/no-such-page", b"/metrics"))
    assert b"klondike_" not in response.content


@pytest.mark.django_db
def test_nobody_reads_them_while_no_token_is_set(client, settings):
    settings.METRICS_TOKEN = None
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer None").status_code == 404
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code == 404


@pytest.mark.django_db
def test_debug_mode_does_not_show_the_url_list_either(client, scraper, settings):
    settings.DEBUG = True
    response = client.get("/metrics")
    assert response.status_code == 404
    assert b"metrics" not in response.content.lower().replace(b"/metrics", b"")


@pytest.mark.django_db
def test_the_scraper_reads_them_with_its_token(client, scraper):
    samples = scraped(client)
    assert value(samples, "klondike_slots", slots="solver-search") >= 1
    # Other methods are refused to the scraper; the public never learns they exist.
    assert client.post("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").status_code == 405


@pytest.mark.django_db
def test_the_path_is_not_in_the_public_schema(client):
    schema = client.get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    assert not [path for path in schema["paths"] if "metrics" in path]


# --- What they say -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_move_is_counted_by_kind_and_timed_by_view(client, auth_client, scraper):
    before = scraped(client)
    game = auth_client.post("/api/v1/games", {"code": CODE}, format="json").json()
    url = f"/api/v1/games/{game['id']}/actions"
    for seq, body in enumerate([{"action": "move", "from": "t1", "to": "f"}, {"action": "draw"}]):
        assert auth_client.post(url, {"seq": seq, **body}, format="json").status_code == 200
    refused = auth_client.post(url, {"seq": 0, "action": "draw"}, format="json")
    assert refused.status_code == 409  # a stale seq applies nothing, and counts nothing
    after = scraped(client)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("klondike_actions_total", kind="move") == 1
    assert grew("klondike_actions_total", kind="draw") == 1
    timed = {"view": "game-actions", "method": "POST"}
    assert grew("klondike_request_duration_seconds_count", **timed, status="2xx") == 2
    assert grew("klondike_request_duration_seconds_count", **timed, status="4xx") == 1
    assert grew("klondike_request_duration_seconds_bucket", **timed, status="2xx", le="+Inf") == 2
    assert 0 < grew("klondike_request_duration_seconds_sum", **timed, status="2xx") < 60
    assert (
        grew("klondike_request_duration_seconds_count", view="games", method="POST", status="2xx")
        == 1
    )


@pytest.mark.django_db
def test_a_hint_is_timed_and_the_solver_slots_are_read_from_the_host(client, auth_client, scraper):
    before = scraped(client)
    game = auth_client.post("/api/v1/games", {"code": CODE}, format="json").json()
    assert auth_client.get(f"/api/v1/games/{game['id']}/hint").status_code == 200
    after = scraped(client)
    timed = {"view": "game-hint", "method": "GET", "status": "2xx"}
    assert value(after, "klondike_request_duration_seconds_count", **timed) == (
        value(before, "klondike_request_duration_seconds_count", **timed) + 1
    )
    assert value(after, "klondike_slots_in_use", slots="solver-search") == 0  # the search ended
    with search_slots.take() as held:
        assert held
        assert value(scraped(client), "klondike_slots_in_use", slots="solver-search") == 1
    assert value(scraped(client), "klondike_slots_in_use", slots="solver-search") == 0


@pytest.mark.django_db
def test_a_login_is_timed_and_the_hash_slots_are_read_from_the_host(client, make_user, scraper):
    make_user("hasher", "correct-horse-battery")
    before = scraped(client)
    body = {"username": "hasher", "password": "correct-horse-battery"}
    assert (
        client.post("/api/v1/auth/login", body, content_type="application/json").status_code == 200
    )
    after = scraped(client)
    timed = {"view": "auth-login", "method": "POST", "status": "2xx"}
    assert value(after, "klondike_request_duration_seconds_count", **timed) == (
        value(before, "klondike_request_duration_seconds_count", **timed) + 1
    )
    assert value(after, "klondike_slots", slots="password-hash") >= 1
    with account_services._hash_slots.take() as held:
        assert held
        assert value(scraped(client), "klondike_slots_in_use", slots="password-hash") == 1


def test_held_slots_counts_only_held_locks_of_the_directory(tmp_path):
    slots = HostSlots("solver-search", 2, tmp_path)
    with slots.take(), HostSlots("other", 1, tmp_path).take():
        assert held_slots(tmp_path) == {"solver-search": 1, "other": 1}
        with slots.take():
            assert held_slots(tmp_path)["solver-search"] == 2
    assert held_slots(tmp_path) == {}
    assert held_slots(tmp_path / "none") == {}


@pytest.mark.django_db
def test_a_ranking_job_is_timed(client, scraper, daily, finished_attempt):
    finished_attempt(daily, won=True, score=500, moves=90, elapsed_ms=60_000)
    finished_attempt(daily, won=False, score=100, moves=40, elapsed_ms=30_000)
    before = scraped(client)
    assert tasks.rank_daily(DAY.isoformat(), "D1N") == 2
    with pytest.raises(ValueError):
        tasks.rate_draw(1, "not a date")
    after = scraped(client)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("klondike_job_duration_seconds_count", job="rank_daily", outcome="done") == 1
    assert 0 < grew("klondike_job_duration_seconds_sum", job="rank_daily", outcome="done") < 120
    assert grew("klondike_job_duration_seconds_count", job="rate_draw", outcome="failed") == 1


def test_a_metric_that_cannot_be_recorded_fails_nothing(caplog, monkeypatch):
    def broken() -> None:
        raise FileNotFoundError("the multiprocess directory is gone")

    monkeypatch.setattr(metrics, "_warned_at", [])
    with caplog.at_level(logging.WARNING, logger="config.metrics"):
        metrics._recorded(broken)
        metrics._recorded(broken)
    assert caplog.text.count("could not be recorded") == 1  # once a minute, not per request


@pytest.mark.django_db
def test_embedded_mode_has_no_queue_lengths(client, scraper, settings):
    settings.EMBEDDED = True
    assert not [key for key in scraped(client) if key[0] == "klondike_celery_queue_length"]


@pytest.mark.redis
@pytest.mark.django_db
def test_the_queue_lengths_are_read_from_the_broker(client, scraper):
    redis = get_redis_connection("default")
    redis.delete("ranking", "celery", "analysis")
    redis.rpush("analysis", "a", "b", "c")
    redis.rpush("ranking", "r")
    try:
        samples = scraped(client)
    finally:
        redis.delete("ranking", "analysis")
    assert value(samples, "klondike_celery_queue_length", queue="analysis") == 3
    assert value(samples, "klondike_celery_queue_length", queue="ranking") == 1
    assert ("klondike_celery_queue_length", frozenset({("queue", "celery")})) in samples


@pytest.mark.redis
@pytest.mark.django_db
def test_a_redis_that_does_not_answer_leaves_out_the_queue_lengths(client, scraper, monkeypatch):
    def refused(alias: str) -> Any:
        raise RedisConnectionError("refused")

    monkeypatch.setattr(metrics, "get_redis_connection", refused)
    try:
        samples = scraped(client)
        assert shared_cache.cache_paused()  # the process leaves Redis alone for a while
    finally:
        shared_cache.cache_answered()
    assert not [key for key in samples if key[0] == "klondike_celery_queue_length"]
    assert ("klondike_slots_in_use", frozenset({("slots", "solver-search")})) in samples
