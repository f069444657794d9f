"""Production static files: hashed names, JS module imports rewritten to them, and pages that
work before the files are collected."""

from __future__ import annotations

import re
import urllib.request

from django.core.management import call_command

from tests.servers import embedded_env, free_port, serving

__all__ = ["embedded_env"]  # the fixture, used by name


def test_collectstatic_rewrites_module_imports(settings, tmp_path):
    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "config.storage.StaticStorage"},
    }
    call_command("collectstatic", "--noinput", verbosity=0)
    hashed = [
        p for p in (tmp_path / "frontend").glob("*.js") if re.search(r"\.[0-9a-f]{12}\.js$", p.name)
    ]
    assert hashed
    imports = set()
    for path in hashed:
        imports |= set(re.findall(r'from\s+"(\./[^"]+)"', path.read_text()))
    assert imports, "expected the page's modules to import each other"
    assert all(re.search(r"\.[0-9a-f]{12}\.js$", name) for name in imports), imports


def test_gunicorn_serves_pages_before_collectstatic_has_run(embedded_env, tmp_path):
    """On gunicorn, before `collectstatic`, every non-API page was a 500 ("Missing
    staticfiles manifest entry"): now a page names the apps' own files, which are served."""
    port = free_port()
    assert not (tmp_path / "static" / "staticfiles.json").exists()
    with serving(embedded_env, port, tmp_path / "server.log"):
        for path in ("/", "/play", "/daily", "/rules"):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as page:
                assert page.status == 200, path
                html = page.read().decode()
            for asset in re.findall(r'(?:src|href)="(/static/[^"]+)"', html):
                with urllib.request.urlopen(f"http://127.0.0.1:{port}{asset}", timeout=30) as f:
                    assert f.status == 200, asset
    assert "is not collected" in (tmp_path / "server.log").read_text()
