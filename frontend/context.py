"""What every page's template may use, besides Django's own context processors."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest


def language_names(request: HttpRequest) -> dict[str, Any]:
    """The languages as each names itself (settings.LANGUAGES, untranslated): a picker reads
    "English, Hrvatski, Slovenčina, Polski" in every language, as a reader looks for their
    own. (Django's get_available_languages translates the names into the page's language.)"""
    return {"language_names": settings.LANGUAGES}
