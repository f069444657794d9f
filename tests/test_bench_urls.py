"""The benchmarks' views (bench/urls.py) never reach production's URL configuration."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve

from config.urls import page_not_found

ROOT = Path(__file__).resolve().parent.parent

# One concrete path per view of bench/urls.py, with its method.
BENCH_PATHS = [
    ("get", "/bench/constant"),
    ("post", "/bench/ladder/body"),
    ("post", "/bench/ladder/select"),
    ("post", "/bench/ladder/drf"),
    ("post", "/bench/ladder/drf-select"),
    ("post", "/bench/plain/games/1/actions"),
]


def _patterns(resolver: URLResolver) -> Iterator[URLPattern | URLResolver]:
    """Every pattern and resolver under `resolver`, depth first."""
    for entry in resolver.url_patterns:
        yield entry
        if isinstance(entry, URLResolver):
            yield from _patterns(entry)


def _module(entry: URLPattern | URLResolver) -> str:
    """The module a pattern's view, or a resolver's URL configuration, comes from."""
    if isinstance(entry, URLResolver):
        module: Any = entry.urlconf_module
        return module.__name__ if hasattr(module, "__name__") else type(module).__module__
    view: Any = entry.callback
    view = getattr(view, "view_class", None) or getattr(view, "cls", None) or view
    return str(view.__module__)


def test_production_settings_use_config_urls() -> None:
    assert settings.ROOT_URLCONF == "config.urls"


@pytest.mark.parametrize(("method", "path"), BENCH_PATHS)
def test_config_urls_resolves_no_bench_path(method: str, path: str) -> None:
    # Every path nothing else takes is the site's own 404 page.
    assert resolve(path, urlconf="config.urls").func is page_not_found


def test_every_bench_view_is_listed() -> None:
    """BENCH_PATHS covers bench/urls.py: each of its own views answers one of them there."""
    bench_resolver = get_resolver("bench.urls")
    own = {
        _module(entry)
        for entry in bench_resolver.url_patterns
        if isinstance(entry, URLPattern) and _module(entry).startswith("bench")
    }
    assert own == {"bench.urls"}
    views = [e for e in bench_resolver.url_patterns if _module(e) == "bench.urls"]
    resolved = {resolve(path, urlconf="bench.urls").route for _, path in BENCH_PATHS}
    assert resolved == {str(e.pattern) for e in views}


@pytest.mark.django_db
@pytest.mark.parametrize(("method", "path"), BENCH_PATHS)
def test_production_answers_404_to_bench_paths(method: str, path: str) -> None:
    response = getattr(Client(), method)(path, data={}, content_type="application/json")
    assert response.status_code == 404


def test_config_urls_patterns_come_from_no_bench_module() -> None:
    modules = {_module(entry) for entry in _patterns(get_resolver("config.urls"))}
    assert modules, "no URL patterns found"
    assert not [m for m in modules if m == "bench" or m.startswith("bench.")]


def test_loading_config_urls_imports_no_bench_module() -> None:
    """In a fresh interpreter (this one may hold bench.urls from the tests above)."""
    code = (
        "import sys, django; django.setup(); "
        "from django.urls import get_resolver; get_resolver('config.urls').url_patterns; "
        "import config.wsgi; "
        "print(sorted(m for m in sys.modules if m == 'bench' or m.startswith('bench.')))"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
