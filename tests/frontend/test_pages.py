"""The landing page says what the service is and links to sign up and sign in."""

from __future__ import annotations

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


def test_page_assets_stay_small():
    """The page's own JS and CSS together stay under 150 KB uncompressed (no framework)."""
    from pathlib import Path

    import frontend

    static = Path(frontend.__file__).parent / "static" / "frontend"
    total = sum(p.stat().st_size for p in static.iterdir() if p.suffix in {".js", ".css"})
    assert total < 150_000, f"{total} bytes of JS and CSS"
