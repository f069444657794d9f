"""The landing, sign-in, sign-up and password reset pages in each language (docs/i18n.md)."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db

PAGES = {
    "/": {
        "en": ["One deal a day. Everyone plays it once.", "Sign up — it's free"],
        "hr": ["Jedna podjela na dan. Svatko je igra jednom.", "Registrirajte se — besplatno je"],
        "sk": ["Jedno rozdanie denne. Každý ho hrá raz.", "Zaregistrujte sa — je to zadarmo"],
        "pl": ["Jedno rozdanie dziennie. Każdy gra w nie raz.", "Zarejestruj się — to nic nie"],
    },
    "/signin": {
        "en": ["Welcome back", "Forgot your password?"],
        "hr": ["Dobro došli natrag", "Zaboravili ste lozinku?"],
        "sk": ["Vitajte späť", "Zabudli ste heslo?"],
        "pl": ["Witaj ponownie", "Nie pamiętasz hasła?"],
    },
    "/signup": {
        "en": ["Create your account", "Have an account?"],
        "hr": ["Izradite svoj račun", "Već imate račun?"],
        "sk": ["Vytvorte si účet", "Máte už účet?"],
        "pl": ["Załóż konto", "Masz już konto?"],
    },
    "/password-reset": {
        "en": ["Forgot your password?", "Send the link"],
        "hr": ["Zaboravili ste lozinku?", "Pošalji poveznicu"],
        "sk": ["Zabudli ste heslo?", "Poslať odkaz"],
        "pl": ["Nie pamiętasz hasła?", "Wyślij link"],
    },
}
# English words of these pages' own text that no translation keeps.
ENGLISH = re.compile(
    r"\b(deal a day|ranked attempt|Welcome back|Forgot your|Have an account|New here|"
    r"Username|Password|Send the link|Back to sign in|optional|learn from)\b"
)


def _main(html: str) -> str:
    """The page's own part: the header and footer are base.html's (another page's test)."""
    return html.split("<main", 1)[1].split("</main>", 1)[0]


@pytest.mark.parametrize("path", list(PAGES))
@pytest.mark.parametrize("lang", ["en", "hr", "sk", "pl"])
def test_the_page_speaks_the_language(client, path, lang):
    response = client.get(path, HTTP_ACCEPT_LANGUAGE=lang)
    assert response.status_code == 200
    main = _main(response.content.decode())
    for text in PAGES[path][lang]:
        assert text in main
    if lang != "en":
        assert not ENGLISH.search(main), ENGLISH.search(main)


@pytest.mark.parametrize("lang", ["en", "hr", "sk", "pl"])
def test_the_language_picker_names_each_language_in_itself(client, lang):
    """Not "anglicky" or "angielski" beside "Hrvatski" (issue 39): every reader finds their
    own language under its own name."""
    page = client.get("/signin", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    options = re.findall(r'<option value="(\w+)" lang="\w+"(?: selected)?>([^<]+)</option>', page)
    assert options == [
        ("en", "English"),
        ("hr", "Hrvatski"),
        ("sk", "Slovenčina"),
        ("pl", "Polski"),
    ]
