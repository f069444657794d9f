"""Every 4xx/5xx is `{"error": {"code", "message"}}`, from DRF, from Django, and on a crash."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def _error(response, status, code):
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"}
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    return body["error"]


def test_unknown_api_path_is_404(api_client):
    _error(api_client.get("/api/v1/no-such-thing"), 404, "not_found")
    _error(api_client.get("/api/v2/me"), 404, "not_found")


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete", "options"])
def test_unknown_api_path_is_404_for_every_method(method):
    """A POST to an unknown /api/ path was 403 `csrf_failed`, a code in no documented list."""
    browser = Client(enforce_csrf_checks=True)
    response = getattr(browser, method)(
        "/api/v1/no-such-thing", "{}", content_type="application/json"
    )
    _error(response, 404, "not_found")


def test_unknown_api_path_is_404_with_debug_on(api_client, settings):
    settings.DEBUG = True
    _error(api_client.get("/api/v1/no-such-thing"), 404, "not_found")


def test_wrong_method_is_405(api_client):
    error = _error(api_client.get("/api/v1/auth/login"), 405, "method_not_allowed")
    assert "GET" in error["message"]
    _error(api_client.delete("/api/v1/auth/register"), 405, "method_not_allowed")


def test_wrong_method_is_405_before_401_and_429(api_client, settings):
    """DELETE /auth/logout-all without a token was 401, not 405."""
    error = _error(api_client.delete("/api/v1/auth/logout-all"), 405, "method_not_allowed")
    assert "DELETE" in error["message"]
    response = api_client.put("/api/v1/games", {}, format="json")
    _error(response, 405, "method_not_allowed")
    assert set(response["Allow"].split(", ")) == {"GET", "POST", "OPTIONS"}
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
                                   "login": "1/min"},
    }  # fmt: skip
    api_client.post("/api/v1/auth/login", {"username": "x", "password": "y"}, format="json")
    _error(api_client.get("/api/v1/auth/login"), 405, "method_not_allowed")


def test_not_acceptable_is_406(api_client):
    response = api_client.get("/api/v1/health", HTTP_ACCEPT="application/xml")
    _error(response, 406, "not_acceptable")


@pytest.mark.urls("tests.config.urls_boom")
def test_crash_in_an_api_view_is_500_without_details(api_client):
    error = _error(api_client.get("/api/v1/test-boom"), 500, "server_error")
    assert "secret" not in error["message"]


@pytest.mark.urls("tests.config.urls_boom")
def test_crash_outside_drf_is_500_in_the_error_format():
    client = Client(raise_request_exception=False)
    response = client.get("/api/v1/test-plain-boom")
    error = _error(response, 500, "server_error")
    assert "secret" not in error["message"]


def test_django_level_400_on_a_bad_host_is_in_the_error_format():
    response = Client(HTTP_HOST="evil.example").get("/api/v1/health")
    _error(response, 400, "invalid")


def test_page_404_is_html(client):
    response = client.get("/no-such-page")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_malformed_page_number_is_400():
    from rest_framework.exceptions import ValidationError
    from rest_framework.request import Request
    from rest_framework.test import APIRequestFactory

    from config.pagination import PagePagination

    request = Request(APIRequestFactory().get("/x", {"page": "two"}))
    with pytest.raises(ValidationError):
        PagePagination().paginate_queryset(list(range(50)), request)
    ok = Request(APIRequestFactory().get("/x", {"page": "2"}))
    assert PagePagination().paginate_queryset(list(range(50)), ok) == list(range(20, 40))


def test_a_10_mb_body_is_413_and_stores_nothing(api_client, auth_client):
    from accounts.models import User
    from games.models import Action

    big = b'{"username": "' + b"x" * (10 * 1024 * 1024) + b'", "password": "p"}'
    response = api_client.post("/api/v1/auth/register", big, content_type="application/json")
    _error(response, 413, "request_too_large")
    assert not User.objects.filter(username__startswith="xxx").exists()
    game = auth_client.post("/api/v1/games", {"draw": 1, "preset": "N"}, format="json").json()
    response = auth_client.post(
        f"/api/v1/games/{game['id']}/actions", big, content_type="application/json"
    )
    _error(response, 413, "request_too_large")
    assert not Action.objects.exists()


@pytest.mark.parametrize("name", ["%00", "a%00b", "%1F", "a%0Ab"])
def test_a_control_character_in_a_username_is_404(api_client, name):
    _error(api_client.get(f"/api/v1/users/{name}"), 404, "not_found")


def test_a_schema_format_it_does_not_have_is_404_in_json(api_client):
    _error(api_client.get("/api/v1/schema/?format=xml"), 404, "not_found")
    assert api_client.get("/api/v1/schema/").status_code == 200  # YAML, as before


@pytest.mark.parametrize("depth", [33, 1000, 1023, 5000])
def test_a_body_nested_too_deep_is_400_on_every_endpoint(auth_client, depth):
    """Bodies nested 1,000-5,000 levels deep gave 500 (a recursion error)."""
    body = '{"a":' * depth + "1" + "}" * depth
    for path in ("/api/v1/auth/login", "/api/v1/auth/register", "/api/v1/games",
                 "/api/v1/games/1/actions", "/api/v1/me/email"):  # fmt: skip
        response = auth_client.post(path, body, content_type="application/json")
        error = _error(response, 400, "invalid")
        assert "nests deeper than 32 levels" in error["message"], path


@pytest.mark.parametrize("page", ["0", "-1", "two", "1.5", "10000001", "last"])
def test_page_numbers_are_checked_alike_on_every_list(auth_client, page):
    """`GET /games?page=0` was 404 "Invalid page.", where the leaderboards answered 400."""
    from tests.games.daily.conftest import DAY

    for path in ("/api/v1/games", f"/api/v1/leaderboards/daily/{DAY.isoformat()}/D1N"):
        error = _error(auth_client.get(path, {"page": page}), 400, "invalid")
        assert error["fields"]["page"] == ["A page number is a positive integer."], path
