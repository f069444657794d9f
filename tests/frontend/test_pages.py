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
