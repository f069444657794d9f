"""The language a player picks is kept on their profile (docs/i18n.md): `PATCH /api/v1/me`
sets it, `me` shows it, sign-in sets it as the language cookie again, and a choice made before
signing up becomes the account's."""

from __future__ import annotations

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from accounts.models import User

pytestmark = pytest.mark.django_db

ME = "/api/v1/me"
COOKIE = settings.LANGUAGE_COOKIE_NAME


def test_me_shows_no_language_until_one_is_picked(auth_client):
    assert auth_client.get(ME).json()["language"] == ""


@pytest.mark.parametrize("language", ["en", "hr", "sk", "pl"])
def test_picking_a_language_keeps_it_and_sets_the_cookie(
    auth_client, language, django_capture_on_commit_callbacks
):
    auth_client.get(ME)  # the token, with its owner, is now in the shared cache
    with django_capture_on_commit_callbacks(execute=True):
        response = auth_client.patch(ME, {"language": language}, format="json")
    assert response.status_code == 200
    assert response.json()["language"] == language
    assert response.cookies[COOKIE].value == language
    assert User.objects.get(pk=auth_client.user.pk).language == language
    assert auth_client.get(ME).json()["language"] == language


@pytest.mark.parametrize("language", ["de", "", "HR", "en-us"])
def test_a_language_that_is_not_ours_is_refused(auth_client, language):
    response = auth_client.patch(ME, {"language": language}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"
    assert COOKIE not in response.cookies
    assert User.objects.get(pk=auth_client.user.pk).language == ""


def test_a_patch_without_a_field_changes_nothing(auth_client, django_capture_on_commit_callbacks):
    # Every field of a PATCH is optional, as the schema says; `{}` was a 400.
    with django_capture_on_commit_callbacks(execute=True):
        auth_client.patch(ME, {"language": "hr"}, format="json")
    response = auth_client.patch(ME, {}, format="json")
    assert response.status_code == 200
    assert response.json()["language"] == "hr"
    assert User.objects.get(pk=auth_client.user.pk).language == "hr"


def test_a_visitor_cannot_pick_for_a_profile(api_client):
    assert api_client.patch(ME, {"language": "hr"}, format="json").status_code == 401


def test_signing_in_sets_the_picked_language(make_user):
    user, _ = make_user("Ana")
    user.language = "pl"
    user.save(update_fields=["language"])
    client = APIClient()
    client.cookies[COOKIE] = "hr"  # picked on this device while signed out: the profile wins
    response = client.post(
        "/api/v1/auth/login",
        {"username": "ana", "password": "correct-horse-battery"},
        format="json",
    )
    assert response.status_code == 200
    assert response.json()["user"]["language"] == "pl"
    assert response.cookies[COOKIE].value == "pl"
    # The next page is in Polish.
    assert '<html lang="pl">' in client.get("/daily").content.decode()


def test_signing_in_without_a_picked_language_leaves_the_cookie_alone(make_user):
    make_user("Ana")
    response = APIClient().post(
        "/api/v1/auth/login",
        {"username": "ana", "password": "correct-horse-battery"},
        format="json",
    )
    assert response.status_code == 200
    assert COOKIE not in response.cookies


@pytest.mark.parametrize(("cookie", "kept"), [("sk", "sk"), ("de", ""), (None, "")])
def test_a_language_picked_before_signing_up_becomes_the_accounts(cookie, kept):
    client = APIClient()
    if cookie:
        client.cookies[COOKIE] = cookie
    response = client.post(
        "/api/v1/auth/register",
        {"username": "newcomer", "password": "correct-horse-battery"},
        format="json",
    )
    assert response.status_code == 201
    assert response.json()["user"]["language"] == kept
    assert User.objects.get(username="newcomer").language == kept
