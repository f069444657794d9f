"""Password hashes run a bounded number at once per host (settings.PASSWORD_HASHES_AT_ONCE):
a login flood from many addresses hashed without bound and starved other players' moves
(their median went from 0.020 s to 1.05 s with 3 clients, 5.3 s with 6). Past the bound a
login, a sign-up or a new password answers 503 at once, and nothing is stored or counted."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.tokens import default_token_generator
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from accounts import services
from accounts.models import User
from config.slots import HostSlots
from tests.servers import call, embedded_env, free_port, serving

__all__ = ["embedded_env"]  # the fixture, used by name

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-battery"


@pytest.fixture
def slots_taken() -> Iterator[None]:
    """Every hashing slot of this host held, as other requests' hashes would hold them."""
    with services._hash_slots.take() as got:
        assert got
        yield


def _busy(response) -> None:
    assert response.status_code == 503, response.content
    error = response.json()["error"]
    assert error["code"] == "unavailable" and error["retry_after"] == 1
    assert response["Retry-After"] == "1"


def test_a_login_past_the_bound_answers_503_and_counts_no_failure(
    api_client, make_user, slots_taken
):
    make_user("hashy", PASSWORD)
    _busy(api_client.post("/api/v1/auth/login", {"username": "hashy", "password": PASSWORD},
                          format="json"))  # fmt: skip
    _busy(api_client.post("/api/v1/auth/login", {"username": "hashy", "password": "wrong-one"},
                          format="json"))  # fmt: skip
    assert AccessAttempt.objects.count() == 0  # a busy server is nobody's failed login


def test_a_sign_up_past_the_bound_answers_503_and_stores_nothing(api_client, slots_taken):
    body = {"username": "newcomer", "password": PASSWORD}
    _busy(api_client.post("/api/v1/auth/register", body, format="json"))
    assert not User.objects.filter(username="newcomer").exists()


def test_a_new_password_past_the_bound_answers_503_and_changes_nothing(
    api_client, make_user, slots_taken
):
    user, _ = make_user("forgetful", PASSWORD)
    body = {
        "uid": urlsafe_base64_encode(force_bytes(user.pk)),
        "token": default_token_generator.make_token(user),
        "new_password": "another-good-password-9",
    }
    _busy(api_client.post("/api/v1/auth/password-reset/confirm", body, format="json"))
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


def test_a_request_refused_as_busy_costs_no_throttle_quota(api_client, make_user, settings):
    """A sign-up or login answered 503 (every slot busy) is taken back from the address's
    throttle: the player who tries again, as asked, or a neighbour behind the same address,
    keeps the quota (the soak's players ran out of sign-ups retrying busy seconds)."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"login": "2/min", "register": "2/min"},
    }
    make_user("steady", PASSWORD)
    login = {"username": "steady", "password": PASSWORD}
    address = {"REMOTE_ADDR": "198.51.100.7"}
    with services._hash_slots.take() as got:
        assert got
        for i in range(4):
            body = {"username": f"busy{i}", "password": PASSWORD}
            _busy(api_client.post("/api/v1/auth/register", body, format="json", **address))
            _busy(api_client.post("/api/v1/auth/login", login, format="json", **address))
    for i in range(2):  # the whole quota is still there
        body = {"username": f"later{i}", "password": PASSWORD}
        assert (
            api_client.post("/api/v1/auth/register", body, format="json", **address).status_code
            == 201
        )
        assert (
            api_client.post("/api/v1/auth/login", login, format="json", **address).status_code
            == 200
        )
    # and the throttle still counts what was served
    third = api_client.post(
        "/api/v1/auth/register",
        {"username": "later2", "password": PASSWORD},
        format="json",
        **address,
    )
    assert third.status_code == 429


def test_a_free_slot_lets_logins_through(api_client, make_user):
    make_user("calm", PASSWORD)
    body = {"username": "calm", "password": PASSWORD}
    assert api_client.post("/api/v1/auth/login", body, format="json").status_code == 200


def test_the_bound_holds_for_every_process_on_the_host(embedded_env, tmp_path):
    """A server process finds the slot that another process holds (lock files under the
    host's KLONDIKE_VAR_DIR), and answers 503 until it is let go."""
    port = free_port()
    with serving(embedded_env, port, tmp_path / "server.log"):
        body = {"username": "shared", "password": PASSWORD}
        assert call(port, "POST", "/api/v1/auth/register", None, body)[0] == 201
        other_process = HostSlots("password-hash", 1, tmp_path / "locks")
        with other_process.take() as got:
            assert got
            status, answer = call(port, "POST", "/api/v1/auth/login", None, body)
            assert status == 503 and answer["error"]["code"] == "unavailable", answer
        assert call(port, "POST", "/api/v1/auth/login", None, body)[0] == 200


def test_one_address_gets_429_after_its_share_of_busy_refusals(api_client, make_user, settings):
    """A busy refusal is refunded to the address's throttle but counts in a second bucket,
    BUSY_SHARE times as large (config.throttles.BusyShareThrottle): before, one address sent
    234 logins that all got 503 and never a 429, and slowed other players' moves tenfold."""
    from config.throttles import BUSY_SHARE

    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"login": "2/min", "register": "2/min"},
    }
    make_user("flooded", PASSWORD)
    login = {"username": "flooded", "password": PASSWORD}
    flooder, neighbour = {"REMOTE_ADDR": "198.51.100.8"}, {"REMOTE_ADDR": "198.51.100.9"}
    with services._hash_slots.take() as got:
        assert got
        for _ in range(2 * BUSY_SHARE):
            _busy(api_client.post("/api/v1/auth/login", login, format="json", **flooder))
        refused = api_client.post("/api/v1/auth/login", login, format="json", **flooder)
        assert refused.status_code == 429, refused.content
        assert refused.json()["error"]["code"] == "throttled"
        assert int(refused["Retry-After"]) > 0
        # Another address, and another scope of the same one, are not affected.
        _busy(api_client.post("/api/v1/auth/login", login, format="json", **neighbour))
        body = {"username": "newcomer", "password": PASSWORD}
        _busy(api_client.post("/api/v1/auth/register", body, format="json", **flooder))
    # Still 429 with a free slot, until its busy refusals age out of the minute.
    again = api_client.post("/api/v1/auth/login", login, format="json", **flooder)
    assert again.status_code == 429, again.content
    served = api_client.post("/api/v1/auth/login", login, format="json", **neighbour)
    assert served.status_code == 200, served.content


def test_a_player_retrying_busy_seconds_as_asked_keeps_signing_up(api_client):
    """The soak's players, one sign-up at a time and each retrying a busy second, stay inside
    their share: every one of them signs up (the default rates)."""
    for player in range(5):
        address = {"REMOTE_ADDR": "198.51.100.10"}  # neighbours behind one address
        body = {"username": f"soaker{player}", "password": PASSWORD}
        with services._hash_slots.take() as got:
            assert got
            for _ in range(2):  # two busy seconds before a slot frees
                _busy(api_client.post("/api/v1/auth/register", body, format="json", **address))
        signed_up = api_client.post("/api/v1/auth/register", body, format="json", **address)
        assert signed_up.status_code == 201, signed_up.content
