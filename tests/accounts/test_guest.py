"""Guests: a browser plays at once without signing up (`POST /api/v1/auth/guest`), signing up
keeps its games, ranks are for accounts, and guests nobody can reach are purged."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone
from knox.models import AuthToken

from accounts import services, tasks
from accounts.models import User
from games.daily.services import attempts as daily_attempts
from games.models import Action, Game

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-battery"
JSON = "application/json"


class _Csrf:
    """The browser's CSRF cookie as its page reads it for each request: a login (a guest's
    session included) rotates it."""

    def __init__(self, browser: Client) -> None:
        self.browser = browser

    def __str__(self) -> str:
        return self.browser.cookies["csrftoken"].value


def _browser() -> tuple[Client, _Csrf]:
    """A browser that holds the CSRF cookie, and the token for its X-CSRFToken header."""
    browser = Client(enforce_csrf_checks=True)
    browser.get("/api/v1/auth/csrf")
    return browser, _Csrf(browser)


def _guest(browser: Client, csrf: _Csrf) -> dict:
    answer = browser.post("/api/v1/auth/guest", content_type=JSON, HTTP_X_CSRFTOKEN=str(csrf))
    assert answer.status_code == 201, answer.content
    return answer.json()["user"]


def _post(browser: Client, csrf: _Csrf, path: str, body: dict) -> object:
    return browser.post(path, body, content_type=JSON, HTTP_X_CSRFTOKEN=str(csrf))


def _play_a_move(browser: Client, csrf: _Csrf) -> int:
    game = _post(browser, csrf, "/api/v1/games", {"code": "KL1-D1N-AAAAAAG"}).json()
    moved = _post(
        browser, csrf, f"/api/v1/games/{game['id']}/actions", {"seq": 0, "action": "draw"}
    )
    assert moved.status_code == 200, moved.content
    return int(game["id"])


def test_a_guest_plays_casual_games_at_once():
    browser, csrf = _browser()
    user = _guest(browser, csrf)
    assert user["is_guest"] is True
    me = browser.get("/api/v1/me").json()
    assert me["is_guest"] is True and me["id"] == user["id"]
    game_id = _play_a_move(browser, csrf)
    assert Game.objects.get(pk=game_id).user_id == user["id"]
    # A page reload asks again: the same guest, nothing new.
    again = browser.post("/api/v1/auth/guest", content_type=JSON, HTTP_X_CSRFTOKEN=str(csrf))
    assert again.status_code == 200 and again.json()["user"]["id"] == user["id"]
    assert User.objects.filter(is_guest=True).count() == 1


def test_a_guest_needs_the_csrf_cookie_and_header():
    script = Client(enforce_csrf_checks=True)
    refused = script.post("/api/v1/auth/guest", content_type=JSON)
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "permission_denied"
    browser, _ = _browser()
    forged = browser.post(
        "/api/v1/auth/guest", content_type=JSON
    )  # a cross-site form: the cookie, no header
    assert forged.status_code == 403
    assert not User.objects.exists()
    # The guest's session is a session like the page's: a POST without the header is refused.
    browser, csrf = _browser()
    _guest(browser, csrf)
    unsafe = browser.post("/api/v1/games", {"draw": 1, "preset": "N"}, content_type=JSON)
    assert unsafe.status_code == 403
    assert not Game.objects.exists()


def test_a_guest_has_no_token_key_and_cannot_log_in():
    browser, csrf = _browser()
    user = _guest(browser, csrf)
    answer = browser.post(
        "/api/v1/auth/guest", content_type=JSON, HTTP_X_CSRFTOKEN=str(csrf)
    ).json()
    assert set(answer) == {"user"}
    login = _post(
        browser, csrf, "/api/v1/auth/login", {"username": user["username"], "password": ""}
    )
    assert login.status_code == 400  # no password can be given, and none is set
    assert not User.objects.get(pk=user["id"]).has_usable_password()


def test_signing_up_keeps_the_guests_games_and_stats():
    browser, csrf = _browser()
    guest = _guest(browser, csrf)
    game_id = _play_a_move(browser, csrf)
    old_token = AuthToken.objects.get(user_id=guest["id"])
    signed_up = _post(
        browser, csrf, "/api/v1/auth/register", {"username": "Carol", "password": PASSWORD}
    )
    assert signed_up.status_code == 201, signed_up.content
    user = signed_up.json()["user"]
    assert user["id"] == guest["id"] and user["username"] == "Carol" and not user["is_guest"]
    # Converted in place: the same row, its game and the game's log untouched.
    assert Game.objects.get(pk=game_id).user_id == user["id"]
    assert Action.objects.filter(game_id=game_id).count() == 1
    me = browser.get("/api/v1/me").json()
    assert me["username"] == "Carol" and me["stats"]["played"] == 0  # played: finished games
    assert browser.get(f"/api/v1/games/{game_id}").status_code == 200
    # The guest's token is gone; the session is bound to the account's new one.
    assert not AuthToken.objects.filter(digest=old_token.digest).exists()
    assert AuthToken.objects.filter(user_id=user["id"]).count() == 1
    # Its join date is the sign-up's: a guest cannot age an account past the new-account rule.
    assert User.objects.get(pk=user["id"]).date_joined > old_token.created
    login = Client().post(
        "/api/v1/auth/login", {"username": "carol", "password": PASSWORD}, content_type=JSON
    )
    assert login.status_code == 200


def test_signing_up_with_a_taken_name_leaves_the_guest_a_guest(make_user):
    make_user("dave")
    browser, csrf = _browser()
    guest = _guest(browser, csrf)
    taken = _post(
        browser, csrf, "/api/v1/auth/register", {"username": "DAVE", "password": PASSWORD}
    )
    assert taken.status_code == 400
    assert User.objects.get(pk=guest["id"]).is_guest
    assert browser.get("/api/v1/me").json()["id"] == guest["id"]  # still signed in as the guest


def test_a_guests_name_is_not_a_name_a_player_can_take():
    browser, csrf = _browser()
    name = _guest(browser, csrf)["username"]
    taken = Client().post(
        "/api/v1/auth/register", {"username": name, "password": PASSWORD}, content_type=JSON
    )
    assert taken.status_code == 400
    assert taken.json()["error"]["fields"]["username"]


def test_ranked_dailies_need_an_account():
    with time_machine.travel(datetime(2026, 11, 30, 12, tzinfo=UTC), tick=False):
        browser, csrf = _browser()
        _guest(browser, csrf)
        refused = browser.post(
            "/api/v1/daily/2026-11-30/D1N/start", content_type=JSON, HTTP_X_CSRFTOKEN=str(csrf)
        )
        assert refused.status_code == 403
        assert refused.json()["error"]["code"] == "account_required"
        assert not Game.objects.filter(kind=Game.Kind.DAILY).exists()
        # After signing up, the same browser needs a verified address, then starts its
        # ranked attempt.
        _post(browser, csrf, "/api/v1/auth/register", {"username": "erin", "password": PASSWORD})
        unverified = browser.post(
            "/api/v1/daily/2026-11-30/D1N/start", content_type=JSON, HTTP_X_CSRFTOKEN=str(csrf)
        )
        assert unverified.status_code == 403
        assert unverified.json()["error"]["code"] == "email_unverified"
        User.objects.filter(username="erin").update(
            email="erin@example.com", email_verified_at=timezone.now()
        )
        started = browser.post(
            "/api/v1/daily/2026-11-30/D1N/start", content_type=JSON, HTTP_X_CSRFTOKEN=str(csrf)
        )
        assert started.status_code == 201, started.content


def test_a_guest_has_no_public_profile():
    browser, csrf = _browser()
    name = _guest(browser, csrf)["username"]
    assert Client().get(f"/api/v1/users/{name}").status_code == 404


def test_creating_guests_is_throttled_per_address(settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]},
    }
    settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["register"] = "3/min"
    from rest_framework.settings import api_settings

    api_settings.reload()
    try:
        answers = []
        for _ in range(4):
            browser, csrf = _browser()  # a script dropping its cookies each time
            answers.append(
                browser.post("/api/v1/auth/guest", content_type=JSON, HTTP_X_CSRFTOKEN=str(csrf))
            )
        assert [a.status_code for a in answers] == [201, 201, 201, 429]
        assert answers[-1].json()["error"]["code"] == "throttled"
        assert User.objects.filter(is_guest=True).count() == 3
    finally:
        api_settings.reload()


def test_signing_out_ends_the_guest():
    browser, csrf = _browser()
    _guest(browser, csrf)
    assert (
        browser.post(
            "/api/v1/auth/logout", content_type=JSON, HTTP_X_CSRFTOKEN=str(csrf)
        ).status_code
        == 204
    )
    assert browser.get("/api/v1/me").status_code in (401, 403)


def test_idle_guests_are_purged_and_played_games_are_kept():
    browser, csrf = _browser()
    played = _guest(browser, csrf)
    game_id = _play_a_move(browser, csrf)
    _post(browser, csrf, "/api/v1/games", {"code": "KL1-D1N-AAAAAAB"})  # dealt, never played
    idle_browser, idle_csrf = _browser()
    idle = _guest(idle_browser, idle_csrf)
    _post(idle_browser, idle_csrf, "/api/v1/games", {"code": "KL1-D1N-AAAAAAC"})
    active_browser, active_csrf = _browser()
    active = _guest(active_browser, active_csrf)

    assert tasks.purge_idle_guests() == (0, 0)  # every token alive: nobody is idle
    # Their sessions' tokens left unused past their expiry (or revoked by a sign-out).
    later = timezone.now() + timedelta(days=1)
    AuthToken.objects.filter(user_id__in=[played["id"], idle["id"]]).update(expiry=later)
    with time_machine.travel(later + timedelta(seconds=1), tick=False):
        assert tasks.purge_idle_guests() == (1, 1)
        assert tasks.purge_idle_guests() == (0, 0)  # idempotent
    assert not User.objects.filter(pk=idle["id"]).exists()
    kept = User.objects.get(pk=played["id"])
    assert not kept.is_active  # its game's log is append-only: kept, with its owner
    assert list(Game.objects.filter(user=kept).values_list("pk", flat=True)) == [game_id]
    assert Action.objects.filter(game_id=game_id).count() == 1
    assert User.objects.get(pk=active["id"]).is_active


def test_a_signed_up_account_is_never_purged(make_user):
    user, _ = make_user()
    AuthToken.objects.filter(user=user).delete()
    assert services.guests_purge() == (0, 0)
    assert User.objects.filter(pk=user.pk).exists()


def test_the_daily_board_has_no_guest(make_user):
    """A guest cannot take a rank: no ranked attempt of a guest can exist."""
    guest, _ = services.guest_create()
    noon = datetime(2026, 11, 30, 12, tzinfo=UTC)
    with (
        time_machine.travel(noon, tick=False),
        pytest.raises(services.ApplicationError) as refused,
    ):
        daily_attempts.daily_start(user=guest, day=date(2026, 11, 30), mode="D1N")
    assert refused.value.code == "account_required"
