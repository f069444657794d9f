"""The site's own links (config/site.py, SITE_URL) and its root (config/wsgi.py): no client
header moves the site under a prefix, and no Host port goes into a link."""

from __future__ import annotations

import http.client
import re
from typing import Any

import pytest
from django.core import mail
from django.core.exceptions import ImproperlyConfigured

from config import env
from config.wsgi import at_the_root
from tests.accounts.conftest import celery_tasks_eager
from tests.config.test_metrics_processes import gunicorn
from tests.games.daily.conftest import clock, daily
from tests.games.daily.test_sharing import won
from tests.servers import embedded_env, free_port

__all__ = ["celery_tasks_eager", "clock", "daily", "embedded_env", "won"]  # fixtures, used by name


def _raw_get(port: int, path: str, headers: dict[str, str]) -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.putrequest("GET", path, skip_host=True)
        connection.putheader("Host", "127.0.0.1")
        for name, value in headers.items():
            connection.putheader(name, value)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, response.getheader("Location") or ""
    finally:
        connection.close()


def test_a_node_takes_no_prefix_from_a_client(embedded_env, tmp_path):
    """gunicorn honoured a `SCRIPT_NAME` header from loopback: `//evil.example/admin` was cut to
    `/admin` and redirected to `//evil.example/admin/`, off the site."""
    port = free_port()
    with gunicorn(embedded_env, port, tmp_path / "gunicorn.log", workers=1):
        for header in ("SCRIPT_NAME", "X-Script-Name", "X-Forwarded-Prefix"):
            status, location = _raw_get(port, "//evil.example/admin", {header: "//evil.example"})
            assert "evil" not in location, (header, status, location)
            assert status == 404, (header, status, location)
        assert _raw_get(port, "/admin", {"SCRIPT_NAME": "/admin"})[1] in ("", "/admin/")


def test_the_wsgi_application_serves_the_root_whatever_the_prefix():
    seen: dict[str, Any] = {}

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        seen.update(environ)
        return []

    environ = {"SCRIPT_NAME": "//evil.example", "PATH_INFO": "/admin",
               "HTTP_X_FORWARDED_PREFIX": "/x", "HTTP_X_SCRIPT_NAME": "/y"}  # fmt: skip
    at_the_root(app)(environ, None)
    assert seen["SCRIPT_NAME"] == "" and seen["PATH_INFO"] == "//evil.example/admin"
    assert "HTTP_X_FORWARDED_PREFIX" not in seen and "HTTP_X_SCRIPT_NAME" not in seen


@pytest.mark.django_db
def test_a_share_link_has_the_sites_origin_not_the_hosts_port(won, settings):
    settings.SITE_URL = "https://klondike.example"
    game_id = won["game"]["id"]
    body = won["client"].get(f"/api/v1/games/{game_id}/share", HTTP_HOST="testserver:6666")
    assert body.json()["url"] == f"https://klondike.example/share/{game_id}?lang=en"
    assert body.json()["image_url"] == f"https://klondike.example/share/{game_id}.png?lang=en"
    page = won["client"].get(f"/share/{game_id}", HTTP_HOST="testserver:6666").content.decode()
    assert "6666" not in page
    assert f'content="https://klondike.example/share/{game_id}.png?lang=en"' in page


@pytest.mark.django_db
@pytest.mark.usefixtures("celery_tasks_eager")
def test_a_mailed_link_has_the_sites_origin_not_the_hosts_port(api_client, make_user, settings):
    settings.SITE_URL = "https://klondike.example"
    user, _ = make_user("Mailed")
    user.email = "mailed@example.com"
    user.save(update_fields=["email"])
    api_client.post(
        "/api/v1/auth/password-reset",
        {"email": "mailed@example.com"},
        format="json",
        HTTP_HOST="testserver:6666",
    )
    (message,) = mail.outbox
    assert re.search(r"https://klondike\.example/password-reset/\S+", message.body), message.body
    assert "6666" not in message.body


@pytest.mark.parametrize(
    ("value", "debug", "hosts", "https", "expected"),
    [
        (None, True, ["*"], False, "http://127.0.0.1:8000"),
        (None, False, [".example.com", "klondike.example"], True, "https://klondike.example"),
        ("https://klondike.example/", False, ["*"], True, "https://klondike.example"),
        ("http://127.0.0.1:8480", False, [], False, "http://127.0.0.1:8480"),
    ],
)
def test_the_site_url_and_its_defaults(monkeypatch, value, debug, hosts, https, expected):
    monkeypatch.setattr(env, "DEBUG", debug)
    monkeypatch.setattr(env, "ALLOWED_HOSTS", hosts)
    monkeypatch.setattr(env, "HTTPS", https)
    assert env._site_url(value) == expected


@pytest.mark.parametrize(
    "value", ["klondike.example", "ftp://x", "https://x.example/play", "https://"]
)
def test_a_site_url_that_is_no_origin_is_refused(value):
    with pytest.raises(ImproperlyConfigured, match="SITE_URL"):
        env._site_url(value)


def test_with_no_single_allowed_host_a_site_url_is_needed(monkeypatch):
    monkeypatch.setattr(env, "DEBUG", False)
    monkeypatch.setattr(env, "ALLOWED_HOSTS", ["*"])
    with pytest.raises(ImproperlyConfigured, match="SITE_URL is not set"):
        env._site_url(None)
