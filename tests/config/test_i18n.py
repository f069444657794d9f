"""Languages (docs/i18n.md): the catalogs are complete and compiled, Slavic plurals are right,
and the language is the player's choice, else Accept-Language, else English, on pages, the API
and the JavaScript catalog alike."""

from __future__ import annotations

import gettext
import json
import re
import shutil
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings
from django.utils import translation
from django.utils.translation.trans_real import DjangoTranslation
from rest_framework.exceptions import NotAuthenticated

pytestmark = pytest.mark.django_db

LOCALE = Path(settings.LOCALE_PATHS[0])
DOMAINS = ["django", "djangojs"]
TRANSLATED = ["hr", "sk", "pl"]
NPLURALS = {"en": 2, "hr": 3, "sk": 3, "pl": 3}


def _po(lang: str, domain: str) -> Catalog:
    with (LOCALE / lang / "LC_MESSAGES" / f"{domain}.po").open("rb") as file:
        return read_po(file)


def _problems(english: Catalog, catalog: Catalog, nplurals: int) -> list[str]:
    """What keeps `catalog` from covering every entry of the English one."""
    problems = []
    for source in english:
        if not source.id:
            continue
        message = catalog.get(source.id, source.context)
        key = source.id if isinstance(source.id, str) else source.id[0]
        if message is None:
            problems.append(f"missing: {key!r}")
            continue
        if message.fuzzy:
            problems.append(f"fuzzy: {key!r}")
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        if isinstance(source.id, tuple) and len(forms) != nplurals:
            problems.append(f"{len(forms)} plural forms, not {nplurals}: {key!r}")
        if not all(forms):
            problems.append(f"empty: {key!r}")
    return problems


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_english_entry_is_translated(lang, domain):
    catalog = _po(lang, domain)
    assert catalog.num_plurals == NPLURALS[lang]
    assert not catalog.fuzzy, "a fuzzy header makes the compilers skip the whole catalog"
    assert _problems(_po("en", domain), catalog, NPLURALS[lang]) == []


@pytest.mark.skipif(not shutil.which("xgettext"), reason="gettext's tools are not installed")
@pytest.mark.parametrize("domain", DOMAINS)
def test_every_string_of_the_code_is_in_the_catalogs(domain, tmp_path, monkeypatch):
    """`make messages` was run: the English catalog holds every string the code marks for
    translation, so the tests above see it (a string added without it once reached players in
    English only). makemessages writes to the locale folder beside the files it reads, so it
    reads the sources through links in a scratch folder, beside a copy of the catalog."""
    for name in ("accounts", "config", "games", "frontend"):
        (tmp_path / name).symlink_to(Path(settings.BASE_DIR) / name)
    shutil.copytree(LOCALE / "en", tmp_path / "locale" / "en")
    monkeypatch.chdir(tmp_path)
    with override_settings(LOCALE_PATHS=[str(tmp_path / "locale")]):
        call_command(
            "makemessages",
            domain=domain,
            locale=["en"],
            symlinks=True,
            no_obsolete=True,
            verbosity=0,
        )
    with (tmp_path / "locale" / "en" / "LC_MESSAGES" / f"{domain}.po").open("rb") as file:
        extracted = {m.id for m in read_po(file) if m.id}
    committed = {m.id for m in _po("en", domain) if m.id}
    assert len(extracted) > 100, "nothing was read: the test would prove nothing"
    assert extracted - committed == set(), "run `make messages` and translate the new entries"


def test_a_missing_empty_or_fuzzy_entry_is_caught():
    english = _po("en", "django")
    plural_id = next(m.id for m in english if isinstance(m.id, tuple))
    single_id = next(m.id for m in english if isinstance(m.id, str) and m.id)
    catalog = _po("hr", "django")
    assert _problems(english, catalog, 3) == []

    catalog.delete(single_id)
    assert _problems(english, catalog, 3) == [f"missing: {single_id!r}"]
    catalog[single_id] = Message(single_id, "Pravila", flags=["fuzzy"])
    assert _problems(english, catalog, 3) == [f"fuzzy: {single_id!r}"]
    catalog.delete(plural_id)  # assigning over an entry would merge, keeping its text
    catalog[plural_id] = Message(plural_id, ("%(count)s karta", "", "%(count)s karata"))
    assert f"empty: {plural_id[0]!r}" in _problems(english, catalog, 3)


def _compiled_view(catalog: Catalog) -> dict[object, str]:
    """What a compiler makes of a .po: translated, non-fuzzy entries, keyed as gettext keys
    them (a plural's forms under (msgid, index))."""
    entries: dict[object, str] = {}
    for message in catalog:
        if not message.id or message.fuzzy:
            continue
        # gettext keys an entry with a context as "context\x04msgid".
        prefix = f"{message.context}\x04" if message.context else ""
        if isinstance(message.id, tuple):
            if all(message.string):
                for index, form in enumerate(message.string):
                    entries[(prefix + message.id[0], index)] = form
        elif message.string:
            entries[prefix + message.id] = message.string
    return entries


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("lang", list(NPLURALS))
def test_the_committed_mo_matches_its_po(lang, domain):
    """`make run` uses the committed .mo files; after a .po edit, `make messages` recompiles."""
    with (LOCALE / lang / "LC_MESSAGES" / f"{domain}.mo").open("rb") as file:
        compiled = gettext.GNUTranslations(file)
    entries = {key: value for key, value in compiled._catalog.items() if key != ""}
    catalog = _po(lang, domain)
    # An untranslated plural may be compiled as its source text (babel does): the same thing.
    plurals = [message.id for message in catalog if isinstance(message.id, tuple)]
    sources = {(ids[0], index): form for ids in plurals for index, form in enumerate(ids)}
    entries = {key: value for key, value in entries.items() if sources.get(key) != value}
    assert entries == _compiled_view(catalog)
    plural_forms = compiled.info().get("plural-forms", "")
    assert f"nplurals={NPLURALS[lang]};" in plural_forms.replace(" ", "")


@pytest.mark.parametrize("lang", list(NPLURALS))
def test_every_language_has_its_catalogs(lang):
    assert lang in dict(settings.LANGUAGES)
    for domain in DOMAINS:
        assert (LOCALE / lang / "LC_MESSAGES" / f"{domain}.mo").exists()


# The count: 1, 2, 5 and 21 (and 11, 12, 22, where the languages part ways).
CARDS = {
    "hr": {
        1: "1 karta",
        2: "2 karte",
        5: "5 karata",
        11: "11 karata",
        21: "21 karta",
        22: "22 karte",
    },
    "sk": {
        1: "1 karta",
        2: "2 karty",
        5: "5 kariet",
        11: "11 kariet",
        21: "21 kariet",
        22: "22 kariet",
    },
    "pl": {1: "1 karta", 2: "2 karty", 5: "5 kart", 12: "12 kart", 21: "21 kart", 22: "22 karty"},
    "en": {1: "1 card", 2: "2 cards", 5: "5 cards", 21: "21 cards"},
}
MOVES = {
    "hr": {
        1: "1 potez",
        2: "2 poteza",
        5: "5 poteza",
        11: "11 poteza",
        21: "21 potez",
        22: "22 poteza",
    },
    "sk": {1: "1 ťah", 2: "2 ťahy", 5: "5 ťahov", 11: "11 ťahov", 21: "21 ťahov", 22: "22 ťahov"},
    "pl": {
        1: "1 ruch",
        2: "2 ruchy",
        5: "5 ruchów",
        12: "12 ruchów",
        21: "21 ruchów",
        22: "22 ruchy",
    },
    "en": {1: "1 move", 2: "2 moves", 5: "5 moves", 21: "21 moves"},
}


@pytest.mark.parametrize("lang", list(CARDS))
def test_plural_forms_on_the_server(lang):
    """The django domain; Django's own sk and pl catalogs have 4 plural forms and ours 3:
    Django keeps each catalog with its own formula."""
    with translation.override(lang):
        for count, expected in CARDS[lang].items():
            text = translation.ngettext("%(count)s card", "%(count)s cards", count)
            assert text % {"count": count} == expected


@pytest.mark.parametrize("lang", list(MOVES))
def test_plural_forms_of_the_script_catalog(lang):
    catalog = DjangoTranslation(lang, domain="djangojs", localedirs=[])
    for count, expected in MOVES[lang].items():
        text = catalog.ngettext("%(count)s move", "%(count)s moves", count)
        assert text % {"count": count} == expected


def test_djangos_own_four_form_catalog_keeps_its_formula():
    """Our 3-form sk catalog does not bend Django's 4-form one (timesince's "%(num)d year")."""
    with translation.override("sk"):
        forms = [translation.ngettext("%(num)d year", "%(num)d years", n) for n in (1, 2, 5)]
    assert forms == ["%(num)d rok", "%(num)d roky", "%(num)d rokov"]


HEADINGS = {
    "en": "Klondike rules",
    "hr": "Pravila igre Klondike",
    "sk": "Pravidlá hry Klondike",
    "pl": "Zasady pasjansa Klondike",
}


def _lang(response) -> str:
    return re.search(r'<html lang="([^"]+)"', response.content.decode())[1]


@pytest.mark.parametrize(
    ("accept", "lang"),
    [
        ("hr", "hr"),
        ("sk-SK,sk;q=0.9,en;q=0.5", "sk"),
        ("pl-PL", "pl"),
        ("de-DE,de;q=0.9", "en"),  # no catalog: English
        ("", "en"),
    ],
)
def test_the_page_follows_accept_language(client, accept, lang):
    response = client.get("/rules", HTTP_ACCEPT_LANGUAGE=accept)
    assert response.status_code == 200
    assert _lang(response) == lang
    assert f"<h1>{HEADINGS[lang]}</h1>" in response.content.decode()
    assert "Accept-Language" in response["Vary"]
    assert f'src="/jsi18n/{lang}.js"' in response.content.decode()


def test_the_players_choice_beats_accept_language(client):
    answer = client.post("/i18n/setlang/", {"language": "sk", "next": "/rules"})
    assert answer.status_code == 302 and answer["Location"] == "/rules"
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "sk"

    assert _lang(client.get("/rules", HTTP_ACCEPT_LANGUAGE="pl")) == "sk"
    error = client.get("/api/v1/me", HTTP_ACCEPT_LANGUAGE="pl").json()["error"]
    with translation.override("sk"):
        assert error["message"] == str(NotAuthenticated.default_detail)


def test_an_unknown_choice_is_ignored(client):
    client.post("/i18n/setlang/", {"language": "xx", "next": "/rules"})
    assert _lang(client.get("/rules", HTTP_ACCEPT_LANGUAGE="hr")) == "hr"


def test_the_api_message_follows_accept_language_and_the_code_never_changes(client):
    errors = {
        lang: client.get("/api/v1/me", HTTP_ACCEPT_LANGUAGE=lang).json()["error"]
        for lang in NPLURALS
    }
    assert {error["code"] for error in errors.values()} == {"not_authenticated"}
    assert errors["en"]["message"] == "Authentication credentials were not provided."
    # DRF ships sk and pl catalogs, not hr: ours has DRF's messages (config/drf_messages.py).
    assert errors["hr"]["message"] == "Podaci za prijavu nisu poslani."
    assert errors["sk"]["message"] == "Prihlasovacie údaje neboli zadané."
    assert errors["pl"]["message"] == "Nie podano danych uwierzytelniających."
    for lang in TRANSLATED:
        with translation.override(lang):
            assert errors[lang]["message"] == str(NotAuthenticated.default_detail)


@pytest.mark.parametrize("lang", list(MOVES))
def test_the_script_catalog_answers_in_each_language(client, lang):
    response = client.get(f"/jsi18n/{lang}.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    body = response.content.decode()
    if lang != "en":
        assert json.dumps(f"%(count)s {MOVES[lang][1].split()[1]}") in body
        assert "django.pluralidx" in body
    # The catalog holds our words only, not the admin's.
    assert "Show all" not in body and "Choose all" not in body


def test_the_script_catalog_is_revalidated_cheaply(client):
    first = client.get("/jsi18n/pl.js")
    assert "no-cache" in first["Cache-Control"]
    again = client.get("/jsi18n/pl.js", HTTP_IF_MODIFIED_SINCE=first["Last-Modified"])
    assert again.status_code == 304


def test_an_unknown_language_has_no_script_catalog(client):
    assert client.get("/jsi18n/xx.js").status_code == 404
