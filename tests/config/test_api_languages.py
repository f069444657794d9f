"""The API's errors in each language (docs/api.md, "Conventions"): `message` follows
Accept-Language, `code` never changes."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

CODE = "KL1-D1N-AAAAAAG"  # t5 ends 9D, t6 ends 3S (tests/games/conftest.py)

MESSAGES = {
    # 422: the refusal in a player's words (its rules section is the error's `rule`)
    "illegal_move": {
        "en": "3♠ can't go on 9♦: a column builds down in alternating colours",
        "hr": "3♠ ne može na 9♦: stupac se slaže silazno, izmjenično crvena i crna",
        "sk": "3♠ nemôže ísť na 9♦: stĺpec sa stavia zostupne so striedaním farieb",
        "pl": "3♠ nie może trafić na 9♦: kolumnę układa się w dół, na przemian kolorami",
    },
    "not_found": {
        "en": "No such game.",
        "hr": "Nema takve partije.",
        "sk": "Taká hra neexistuje.",
        "pl": "Nie ma takiej gry.",
    },
    "endpoint": {
        "en": "No such API endpoint.",
        "hr": "Ne postoji takva krajnja točka API-ja.",
        "sk": "Takýto koncový bod API neexistuje.",
        "pl": "Nie ma takiego punktu końcowego API.",
    },
    "invalid": {
        "en": "draw: Draw 1 or draw 3.",
        "hr": "draw: Vuča 1 ili vuča 3.",
        "sk": "draw: Ťahanie 1 alebo ťahanie 3.",
        "pl": "draw: Dobieranie po 1 albo po 3.",
    },
    "required": {  # DRF's own message; DRF has no Croatian catalog, ours has its words
        "en": "password: This field is required.",
        "hr": "password: Ovo je polje obavezno.",
        "sk": "password: Toto pole je povinné.",
        "pl": "password: To pole jest wymagane.",
    },
    "not_authenticated": {
        "en": "Authentication credentials were not provided.",
        "hr": "Podaci za prijavu nisu poslani.",
        "sk": "Prihlasovacie údaje neboli zadané.",
        "pl": "Nie podano danych uwierzytelniających.",
    },
    "invalid_credentials": {
        "en": "Wrong username or password.",
        "hr": "Pogrešno korisničko ime ili lozinka.",
        "sk": "Nesprávne používateľské meno alebo heslo.",
        "pl": "Błędna nazwa użytkownika lub hasło.",
    },
    "throttled": {
        "en": "Request was throttled. Expected available in",
        "hr": "Previše zahtjeva. Ponovno dostupno za",
        "sk": "Požiadavok bol obmedzený, z dôvodu prekročenia limitu. Znova dostupné o",
        "pl": "Żądanie zostało zdławione. Ponownie dostępne za",
    },
}
LANGUAGES = ["en", "hr", "sk", "pl"]


def _error(response, status, code):
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["code"] == code
    return error


@pytest.mark.parametrize("lang", LANGUAGES)
def test_an_illegal_move_in_each_language(auth_client, lang):
    game = auth_client.post("/api/v1/games", {"code": CODE}, format="json").json()
    response = auth_client.post(
        f"/api/v1/games/{game['id']}/actions",
        {"seq": 0, "action": "move", "from": "t6", "to": "t5"},
        format="json",
        HTTP_ACCEPT_LANGUAGE=lang,
    )
    error = _error(response, 422, "illegal_move")
    assert error["message"] == MESSAGES["illegal_move"][lang]
    assert error["reason"] == "column_build"
    assert error["details"] == {"card": "3S", "onto": "9D"}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_not_found_in_each_language(auth_client, lang):
    game = auth_client.get("/api/v1/games/999999", HTTP_ACCEPT_LANGUAGE=lang)
    assert _error(game, 404, "not_found")["message"] == MESSAGES["not_found"][lang]
    nowhere = auth_client.get("/api/v1/nowhere", HTTP_ACCEPT_LANGUAGE=lang)
    assert _error(nowhere, 404, "not_found")["message"] == MESSAGES["endpoint"][lang]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_validation_error_in_each_language(auth_client, api_client, lang):
    body = {"draw": 2, "preset": "N"}
    ours = auth_client.post("/api/v1/games", body, format="json", HTTP_ACCEPT_LANGUAGE=lang)
    error = _error(ours, 400, "invalid")
    assert error["message"] == MESSAGES["invalid"][lang]
    assert error["fields"] == {"draw": [MESSAGES["invalid"][lang].split(": ", 1)[1]]}

    body = {"username": "someone"}
    drfs = api_client.post("/api/v1/auth/login", body, format="json", HTTP_ACCEPT_LANGUAGE=lang)
    assert _error(drfs, 400, "invalid")["message"] == MESSAGES["required"][lang]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_unauthenticated_in_each_language(api_client, make_user, lang):
    me = api_client.get("/api/v1/me", HTTP_ACCEPT_LANGUAGE=lang)
    assert _error(me, 401, "not_authenticated")["message"] == MESSAGES["not_authenticated"][lang]

    make_user("ivo")
    body = {"username": "ivo", "password": "not-the-password"}
    login = api_client.post("/api/v1/auth/login", body, format="json", HTTP_ACCEPT_LANGUAGE=lang)
    error = _error(login, 401, "invalid_credentials")
    assert error["message"] == MESSAGES["invalid_credentials"][lang]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_throttled_in_each_language(api_client, settings, lang):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"login": "1/min", "register": "1/min"},
    }
    body = {"username": "nobody", "password": "whatever-it-is"}
    api_client.post("/api/v1/auth/login", body, format="json")
    again = api_client.post("/api/v1/auth/login", body, format="json", HTTP_ACCEPT_LANGUAGE=lang)
    error = _error(again, 429, "throttled")
    assert error["message"].startswith(MESSAGES["throttled"][lang])
    assert error["retry_after"] > 0


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "The form's security check failed (CSRF): reload the page and try again."),
        ("hr", "Sigurnosna provjera obrasca nije uspjela (CSRF): ponovno učitajte stranicu i"),
    ],
)
def test_a_refused_csrf_check_in_each_language(lang, text):
    """DRF's session check words its refusal in English; ours says it in the player's language."""
    browser = Client(enforce_csrf_checks=True)
    browser.get("/api/v1/auth/csrf")  # the cookie; a cross-site form sends no header
    refused = browser.post(
        "/api/v1/auth/guest", content_type="application/json", HTTP_ACCEPT_LANGUAGE=lang
    )
    assert _error(refused, 403, "permission_denied")["message"].startswith(text)


# The sign-up's length limits, in the plural form their number takes (issue 39): 3 and 30
# take different forms in Croatian, Slovak and Polish.
LENGTHS = {
    "en": ("at least 3 characters.", "no more than 30 characters."),
    "hr": ("najmanje 3 znaka.", "najviše 30 znakova."),
    "sk": ("aspoň 3 znaky.", "nemá viac ako 30 znakov."),
    "pl": ("co najmniej 3 znaki.", "nie więcej niż 30 znaków."),
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_length_limit_in_the_plural_its_number_takes(api_client, lang):
    for username, ending in zip(("ab", "a" * 31), LENGTHS[lang], strict=True):
        body = {"username": username, "password": "a long enough passphrase 42"}
        response = api_client.post(
            "/api/v1/auth/register", body, format="json", HTTP_ACCEPT_LANGUAGE=lang
        )
        [message] = _error(response, 400, "invalid")["fields"]["username"]
        assert message.endswith(ending), message


def test_a_query_parameters_length_limit_in_its_plural_too(api_client):
    """The streaks' `mode`, at most 3 characters: "3 znaka", not DRF's "3 znakova"."""
    response = api_client.get("/api/v1/leaderboards/streaks?mode=D1NN", HTTP_ACCEPT_LANGUAGE="hr")
    [message] = _error(response, 400, "invalid")["fields"]["mode"]
    assert message.endswith("najviše 3 znaka."), message
