"""The page's JavaScript catalog: Django's JavaScriptCatalog (domain djangojs) for the language
named in the URL, so a player who switches language never gets another language's catalog from
the browser's cache."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.utils import translation
from django.views.decorators.cache import cache_control
from django.views.decorators.http import last_modified
from django.views.i18n import JavaScriptCatalog

_LANGUAGES = frozenset(code for code, _name in settings.LANGUAGES)


def _compiled(lang: str) -> datetime | None:
    """When the language's compiled djangojs catalog (or English's, its fallback) last changed;
    the answer's Last-Modified, so a browser revalidates with a cheap 304."""
    files = [
        Path(path) / code / "LC_MESSAGES" / "djangojs.mo"
        for path in settings.LOCALE_PATHS
        for code in {lang, settings.LANGUAGE_CODE}
    ]
    times = [file.stat().st_mtime for file in files if file.exists()]
    return datetime.fromtimestamp(int(max(times)), tz=UTC) if times else None


class _Catalog(JavaScriptCatalog):
    # Only the catalogs of LOCALE_PATHS (always read): no installed app's djangojs strings
    # (the admin's) go to the page. "frontend" has no locale directory of its own.
    packages = ["frontend"]

    def get(self, request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        lang = kwargs.pop("lang")
        if lang not in _LANGUAGES:
            raise Http404
        with translation.override(str(lang)):
            return super().get(request, *args, **kwargs)


# The Django docs' advice for this view: Last-Modified, so an unchanged catalog is a 304. No
# cache_page: a build is a few hundred entries in memory, and a Redis outage must not cost the
# page its words. no-cache: the browser asks each time, and a deploy's new words show at once.
javascript_catalog = cache_control(no_cache=True)(
    last_modified(lambda request, lang: _compiled(lang) if lang in _LANGUAGES else None)(
        _Catalog.as_view()
    )
)
