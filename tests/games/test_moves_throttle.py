"""The moves throttle (config.throttles.CounterThrottle): a counter per player and window."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture
def tight_moves(settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "moves": "2/min",
        },
    }


def test_moves_beyond_the_rate_are_429_and_change_nothing(start, act, tight_moves):
    game = start()
    first = act(game, action="draw")
    second = act(first.json(), action="draw")
    assert (first.status_code, second.status_code) == (200, 200)
    throttled = act(second.json(), action="draw")
    assert throttled.status_code == 429
    assert throttled.json()["error"]["code"] == "throttled"
    assert 0 < int(throttled["Retry-After"]) <= 60
    assert second.json()["seq"] == 2  # the refused draw was not applied


def test_each_player_has_a_counter_of_their_own(start, act, tight_moves, make_user):
    from rest_framework.test import APIClient

    game = start()
    act(act(game, action="draw").json(), action="draw")
    _, key = make_user()
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    theirs = other.post("/api/v1/games", {"draw": 1, "preset": "N"}, format="json").json()
    response = other.post(
        f"/api/v1/games/{theirs['id']}/actions", {"seq": 0, "action": "draw"}, format="json"
    )
    assert response.status_code == 200


def _counter(rate: str):
    """A moves throttle and a request of player 1, as the view would give them."""
    from types import SimpleNamespace

    from django.test import override_settings

    from config.throttles import CounterThrottle

    override = override_settings(REST_FRAMEWORK={"DEFAULT_THROTTLE_RATES": {"moves": rate}})
    request = SimpleNamespace(user=SimpleNamespace(is_authenticated=True, pk=1), META={})
    view = SimpleNamespace(throttle_scope="moves")
    return override, lambda: CounterThrottle().allow_request(request, view)


def _shared_key() -> str:
    """The shared counter of player 1's moves in this minute."""
    from config.throttles import CounterThrottle

    return f"throttle_moves_1_{int(CounterThrottle().timer() // 60)}"


def _shared_count() -> int | None:
    from django.core.cache import cache

    return cache.get(_shared_key())


def test_a_high_rate_is_counted_in_batches_added_to_the_shared_counter():
    override, allow = _counter("800/min")  # batches of 800 // 50 = 16
    with override:
        assert all(allow() for _ in range(40))
    # The window's first request reads the shared count; then every 16th adds a batch.
    assert _shared_count() == 1 + 16 + 16


def test_a_client_past_a_high_rate_is_refused_within_a_batch():
    override, allow = _counter("100/min")  # batches of 2
    with override:
        allowed = sum(allow() for _ in range(150))
    assert 100 <= allowed <= 101


def test_another_process_s_requests_count_at_the_next_batch():
    from django.core.cache import cache

    override, allow = _counter("800/min")
    with override:
        assert allow()  # the shared count is read: 1
        cache.incr(_shared_key(), 799)  # another process's requests
        results = [allow() for _ in range(16)]
    assert results[:14] == [True] * 14  # decided here, before the next batch is added
    assert results[15] is False  # the batch is added and the shared count is over the rate
