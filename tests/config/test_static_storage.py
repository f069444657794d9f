"""Production static files: hashed names, and JS module imports rewritten to them."""

from __future__ import annotations

import re

from django.core.management import call_command


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
