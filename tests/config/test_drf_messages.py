"""config/drf_messages.py: DRF's own messages, in our catalogs for the languages DRF lacks."""

from __future__ import annotations

from pathlib import Path

import knox
import pytest
import rest_framework
from django.utils import translation
from rest_framework import exceptions

from config.drf_messages import DRF_MESSAGES


def _source(package: object) -> str:
    root = Path(package.__file__).parent  # type: ignore[attr-defined]
    return "".join(path.read_text() for path in root.rglob("*.py"))


def test_every_entry_is_a_message_drf_or_knox_writes_word_for_word():
    """A typo would be an entry no gettext call ever asks for."""
    source = _source(rest_framework) + _source(knox)
    missing = [message for message in DRF_MESSAGES if f"_('{message}')" not in source]
    assert missing == []


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("hr", "Podaci za prijavu nisu poslani."),
        ("sk", "Prihlasovacie údaje neboli zadané."),  # DRF's own words, kept
        ("pl", "Nie podano danych uwierzytelniających."),
        ("en", "Authentication credentials were not provided."),
    ],
)
def test_drf_speaks_croatian_too(lang, text):
    with translation.override(lang):
        assert str(exceptions.NotAuthenticated().detail) == text


def test_a_throttled_wait_in_croatian():
    with translation.override("hr"):
        detail = str(exceptions.Throttled(wait=7).detail)
    assert detail == "Previše zahtjeva. Ponovno dostupno za 7 s."
