"""Every bad field of register and login is a 400 in the error format, and stores nothing."""

from __future__ import annotations

import json

import pytest
from knox.models import AuthToken

from accounts.models import User

pytestmark = pytest.mark.django_db

GOOD = {"username": "eve", "password": "correct-horse-battery"}

REGISTER_CASES = {
    "missing username": {"password": GOOD["password"]},
    "missing password": {"username": "eve"},
    "empty username": {**GOOD, "username": ""},
    "blank username": {**GOOD, "username": "   "},
    "empty password": {**GOOD, "password": ""},
    "short username": {**GOOD, "username": "ab"},
    "long username": {**GOOD, "username": "a" * 31},
    "long password": {**GOOD, "password": "x" * 129},
    "username with spaces": {**GOOD, "username": "eve smith"},
    "username number": {**GOOD, "username": 12345},
    "username null": {**GOOD, "username": None},
    "username list": {**GOOD, "username": ["eve"]},
    "username object": {**GOOD, "username": {"a": 1}},
    "password number": {**GOOD, "password": 123456789012},
    "password bool": {**GOOD, "password": True},
    "email invalid": {**GOOD, "email": "not-an-email"},
    "email number": {**GOOD, "email": 5},
    "email too long": {**GOOD, "email": "a" * 250 + "@x.io"},
    "weak common password": {**GOOD, "password": "password"},
    "weak numeric password": {**GOOD, "password": "8473629150"},
    "weak short password": {**GOOD, "password": "k3$x"},
    "password like username": {"username": "evelynne", "password": "evelynne1"},
    "password only spaces": {**GOOD, "password": " " * 12},
    "password only white space": {**GOOD, "password": " \t \u00a0" * 4},
    "reserved username": {**GOOD, "username": "Admin"},
}

LOGIN_CASES = {
    "missing username": {"password": GOOD["password"]},
    "missing password": {"username": "eve"},
    "empty username": {**GOOD, "username": ""},
    "empty password": {**GOOD, "password": ""},
    "long username": {**GOOD, "username": "a" * 151},
    "long password": {**GOOD, "password": "x" * 129},
    "username number": {**GOOD, "username": 7},
    "password list": {**GOOD, "password": ["x"]},
    "username null": {**GOOD, "username": None},
}

NOT_OBJECTS = ["[]", '["eve"]', '"eve"', "5", "null", "true"]


def _assert_invalid(response, field=None):
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert error["message"]
    if field:
        assert field in error["fields"]


@pytest.mark.parametrize("body", REGISTER_CASES.values(), ids=REGISTER_CASES.keys())
def test_register_rejects(api_client, body):
    _assert_invalid(api_client.post("/api/v1/auth/register", body, format="json"))
    assert User.objects.count() == 0
    assert AuthToken.objects.count() == 0


@pytest.mark.parametrize("raw", NOT_OBJECTS)
def test_register_rejects_json_that_is_not_an_object(api_client, raw):
    response = api_client.generic(
        "POST", "/api/v1/auth/register", raw, content_type="application/json"
    )
    _assert_invalid(response)
    assert User.objects.count() == 0


def test_register_rejects_malformed_json(api_client):
    response = api_client.generic(
        "POST", "/api/v1/auth/register", '{"username": "eve",', content_type="application/json"
    )
    _assert_invalid(response)
    assert User.objects.count() == 0


def test_register_rejects_form_encoding(api_client):
    response = api_client.post("/api/v1/auth/register", GOOD)  # multipart, not JSON
    assert response.status_code == 415
    assert response.json()["error"]["code"] == "unsupported_media_type"


@pytest.mark.parametrize("taken", ["Eve", "EVE", "eve", "eVe"])
def test_register_rejects_a_name_taken_in_any_case(api_client, make_user, taken):
    make_user("Eve")
    response = api_client.post("/api/v1/auth/register", {**GOOD, "username": taken}, format="json")
    _assert_invalid(response, "username")
    assert User.objects.count() == 1
    assert AuthToken.objects.count() == 1


@pytest.mark.parametrize(
    "name",
    ["admin", "ROOT", "Support", "moderator", "SyStEm", "staff", "Klondike", "KLONDIKE",
     # Look-alikes: punctuation, and letters and digits that pass for each other.
     "Admin.", "root_", "staff-", "r00t", "Kl0nd1ke", "rnoderator", "5upport", "sys.tem"],
)  # fmt: skip
def test_register_refuses_a_reserved_name_in_any_case(api_client, name):
    response = api_client.post("/api/v1/auth/register", {**GOOD, "username": name}, format="json")
    _assert_invalid(response, "username")
    assert response.json()["error"]["fields"]["username"] == ["That username is reserved."]
    assert User.objects.count() == 0


def test_a_name_that_only_contains_a_reserved_one_is_free(api_client):
    for name in ("admiral", "rooted", "klondike-fan"):
        body = {**GOOD, "username": name}
        assert api_client.post("/api/v1/auth/register", body, format="json").status_code == 201


def test_a_password_of_spaces_is_refused_with_a_field_message(api_client):
    response = api_client.post(
        "/api/v1/auth/register", {**GOOD, "password": " " * 16}, format="json"
    )
    _assert_invalid(response, "password")
    assert response.json()["error"]["fields"]["password"] == ["Your password can't be only spaces."]


def test_weak_password_error_names_the_field(api_client):
    response = api_client.post(
        "/api/v1/auth/register", {**GOOD, "password": "password"}, format="json"
    )
    _assert_invalid(response, "password")
    assert "common" in response.json()["error"]["message"]


@pytest.mark.parametrize("body", LOGIN_CASES.values(), ids=LOGIN_CASES.keys())
def test_login_rejects(api_client, make_user, body):
    make_user("eve", GOOD["password"])
    _assert_invalid(api_client.post("/api/v1/auth/login", body, format="json"))
    assert AuthToken.objects.count() == 1


@pytest.mark.parametrize("raw", [*NOT_OBJECTS, "{oops"])
def test_login_rejects_bad_json(api_client, raw):
    response = api_client.generic(
        "POST", "/api/v1/auth/login", raw, content_type="application/json"
    )
    _assert_invalid(response)


def test_username_constraint_holds_in_the_database(make_user):
    from django.db import IntegrityError, transaction

    make_user("Frank")
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create(username="FRANK")


def test_error_body_is_json_object(api_client):
    response = api_client.post("/api/v1/auth/register", {}, format="json")
    assert set(json.loads(response.content)) == {"error"}


def test_a_nul_character_in_a_login_is_wrong_credentials(api_client, make_user):
    """Any string is a username or password (as the schema says); one with a NUL character
    matches no account: 401, not 400, and never a 500 from PostgreSQL."""
    make_user("nul")
    for body in (
        {"username": "nul", "password": "pass\x00word"},
        {"username": "n\x00l", "password": "x"},
    ):
        response = api_client.post("/api/v1/auth/login", body, format="json")
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "invalid_credentials"
