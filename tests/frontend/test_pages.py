"""The landing page says what the service is and links to sign up and sign in."""

from __future__ import annotations

import re
from typing import Any

import pytest

pytestmark = pytest.mark.django_db


def test_landing_page(client):
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Klondike Daily" in html
    assert "daily challenge" in html.lower()
    assert 'href="/signup"' in html and 'href="/signin"' in html
    assert "csrftoken" in response.cookies


@pytest.mark.parametrize("path", ["/signin", "/signup"])
def test_auth_pages(client, path):
    response = client.get(path)
    assert response.status_code == 200
    assert b"data-auth-form" in response.content


def test_static_assets_are_served(client):
    from django.contrib.staticfiles import finders

    assert finders.find("frontend/site.css")
    assert finders.find("frontend/site.js")


@pytest.mark.parametrize(
    ("path", "script"),
    [
        ("/play", "frontend/play.js"),
        ("/play/42", "frontend/play.js"),
        ("/daily", "frontend/daily.js"),
        ("/leaderboards", "frontend/leaderboards.js"),
        ("/replay/42", "frontend/replay.js"),
        ("/u/someone", "frontend/profile.js"),
        ("/daily/calendar", "frontend/calendar.js"),
        ("/daily/calendar?month=2026-02", "frontend/calendar.js"),
    ],
)
def test_app_pages_share_the_nav_and_load_their_module(client, path, script):
    """Each page is a shell: the nav, a CSRF cookie, and its script module (which calls
    the API); a game id in the URL is handed to the script, not looked up here."""
    response = client.get(path)
    assert response.status_code == 200
    html = response.content.decode()
    for link in ('href="/play"', 'href="/daily"', 'href="/leaderboards"'):
        assert link in html
    assert f'type="module" src="/static/{script}"' in html
    assert "csrftoken" in response.cookies


# What one page may load of its own JS and CSS (its stylesheet, its module and every module it
# imports, uncompressed): the game page, the heaviest, loads about 113 KB.
PAGE_ASSETS_LIMIT = 125_000
# All of the site's JS and CSS together: still no framework.
SITE_ASSETS_LIMIT = 200_000
_IMPORT = re.compile(r"""(?:from|import)\s*\(?\s*["']\./([\w-]+\.js)["']""")


def _module_graph(static: Any, first: str) -> set[str]:
    """`first` and every module it imports, transitively (the page's own imports are relative)."""
    seen, todo = set(), [first]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(_IMPORT.findall((static / name).read_text()))
    return seen


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/play",
        "/daily",
        "/daily/calendar",
        "/leaderboards",
        "/replay/42",
        "/u/someone",
        "/rules",
    ],
)
def test_each_page_loads_little_of_its_own(client, path):
    """A page loads its stylesheet and its module graph, under PAGE_ASSETS_LIMIT bytes."""
    from pathlib import Path

    import frontend

    static = Path(frontend.__file__).parent / "static" / "frontend"
    html = client.get(path).content.decode()
    sheets = re.findall(r'<link rel="stylesheet" href="/static/frontend/([\w.-]+)"', html)
    modules = re.findall(r'<script type="module" src="/static/frontend/([\w.-]+)"', html)
    loaded = set(sheets).union(*(_module_graph(static, m) for m in modules))
    total = sum((static / name).stat().st_size for name in loaded)
    assert sheets and modules and total < PAGE_ASSETS_LIMIT, f"{path}: {total} bytes"


def test_the_sites_assets_stay_small():
    """All the page's own JS and CSS together stay under SITE_ASSETS_LIMIT (no framework)."""
    from pathlib import Path

    import frontend

    static = Path(frontend.__file__).parent / "static" / "frontend"
    total = sum(p.stat().st_size for p in static.iterdir() if p.suffix in {".js", ".css"})
    assert total < SITE_ASSETS_LIMIT, f"{total} bytes of JS and CSS"


@pytest.mark.parametrize(
    "path", ["/", "/signin", "/play", "/daily", "/leaderboards", "/replay/1", "/password-reset"]
)
def test_every_page_has_a_content_security_policy_without_inline_script(client, path):
    response = client.get(path)
    policy = dict(
        part.strip().split(" ", 1) for part in response["Content-Security-Policy"].split(";")
    )
    assert policy["script-src"] == "'self'" and policy["style-src"] == "'self'"
    assert policy["object-src"] == "'none'" and policy["frame-ancestors"] == "'none'"
    html = response.content.decode()
    for tag in html.split("<script")[1:]:  # every script is loaded from a file
        assert " src=" in tag.split(">", 1)[0], tag[:120]
    assert " style=" not in html and "<style" not in html
    assert " onclick=" not in html and " onload=" not in html


def test_the_api_docs_page_allows_inline_styles_but_no_inline_script(client):
    response = client.get("/api/v1/docs/")
    policy = dict(
        part.strip().split(" ", 1) for part in response["Content-Security-Policy"].split(";")
    )
    assert policy["script-src"] == "'self'" and policy["style-src"] == "'self' 'unsafe-inline'"
    html = response.content.decode()
    assert all(" src=" in tag.split(">", 1)[0] for tag in html.split("<script")[1:])


def test_the_deploy_checks_are_clean_with_production_settings():
    """`manage.py check --deploy` with debug off, TLS on, a real key and a mail server."""
    import os
    import secrets
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "EMAIL_"))}
    env |= {
        "DJANGO_DEBUG": "0",
        "DJANGO_HTTPS": "1",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "EMAIL_HOST": "mail.example.com",
    }
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=root, env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    "path", ["/", "/signin", "/signup", "/play", "/daily", "/leaderboards", "/replay/1", "/u/x"]
)
def test_every_page_has_a_meta_description(client, path):
    html = client.get(path).content.decode()
    match = re.search(r'<meta name="description" content="([^"]+)">', html)
    assert match and len(match.group(1)) > 50, path


def test_the_page_tells_its_scripts_whether_the_visitor_is_signed_in(client, django_user_model):
    """A signed-out page does not ask /api/v1/me (a 401 in the console); api.js reads this."""
    assert 'data-signed-in="0"' in client.get("/daily").content.decode()
    client.force_login(django_user_model.objects.create_user("flag", password="x" * 12))
    assert 'data-signed-in="1"' in client.get("/daily").content.decode()


def test_the_daily_page_keeps_a_place_for_each_challenge(client, settings):
    """One placeholder a configured mode, so the challenges arrive without moving the page."""
    html = client.get("/daily").content.decode()
    grid = html.split("data-challenges", 1)[1].split("</div>", 1)[0]
    assert grid.count('<article class="tile"') == len(settings.DAILY_MODES) > 0


@pytest.mark.parametrize("debug", [False, True])
def test_an_unknown_page_is_the_sites_own_404_in_the_readers_language(client, settings, debug):
    """With debug on too, as under `make run`, where Django once showed its English debug
    page (issue 39). The API keeps its JSON 404; a path that names a page with a slash added
    still goes there."""
    settings.DEBUG = debug
    page = client.get("/no-such-page", HTTP_ACCEPT_LANGUAGE="hr")
    assert page.status_code == 404
    html = page.content.decode()
    assert 'lang="hr"' in html and "data-language-select" in html  # the site's own frame
    assert "Using the URLconf" not in html  # not Django's technical page
    api = client.get("/api/v1/no-such-endpoint", HTTP_ACCEPT_LANGUAGE="hr")
    assert api.status_code == 404 and api.json()["error"]["code"] == "not_found"
    admin = client.get("/admin")
    assert admin.status_code == 301 and admin["Location"] == "/admin/"


@pytest.mark.parametrize(
    ("language", "first", "weeks"), [("en", "Sunday", 4), ("hr", "Ponedjeljak", 5)]
)
def test_the_calendar_page_draws_the_months_weeks_in_the_languages_habit(
    client, language, first, weeks
):
    """February 2026 starts on a Sunday: four weeks from Sunday, five from Monday; every day
    a button the script fills in; no month is this one, a malformed one the 400 page."""
    html = client.get("/daily/calendar?month=2026-02", HTTP_ACCEPT_LANGUAGE=language)
    html = html.content.decode()
    assert re.search(r'<th scope="col"><abbr title="([^"]+)"', html).group(1) == first
    assert html.count('class="day"') == 28 and 'data-date="2026-02-28"' in html
    assert html.split("<tbody>")[1].count("<tr>") == weeks
    assert 'data-month="2026-02"' in html
    this_month = client.get("/daily/calendar").content.decode()
    assert 'data-month="20' in this_month
    assert client.get("/daily/calendar?month=nonsense").status_code == 400
