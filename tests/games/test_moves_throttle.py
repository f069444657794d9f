"""The moves throttle (config.api.CounterThrottle): a counter per player and window."""

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
