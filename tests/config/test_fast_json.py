"""The move endpoint's lean DRF parts (config.jsonio): orjson in and out, no Accept parsing for
JSON clients. Each must answer exactly as DRF's own part does."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest
from rest_framework.exceptions import ParseError
from rest_framework.renderers import JSONRenderer

from config.jsonio import FastJSONParser, FastJSONRenderer

DOCUMENT = {
    "id": 7,
    "started_at": datetime(2026, 12, 1, 8, 0, 0, 123456, tzinfo=UTC),
    "finished_at": datetime(2026, 12, 1, 9, 0, 0, tzinfo=UTC),
    "score": None,
    "won": False,
    "state": {"waste": ["10H", "QS"], "tableau": [[None, "AD"]]},
    "message": 'é ♠ \u2028 \u2029 "quoted"',
}


def test_the_renderer_writes_the_bytes_drf_writes():
    assert FastJSONRenderer().render(DOCUMENT) == JSONRenderer().render(DOCUMENT)


def test_the_renderer_leaves_indented_answers_to_drf():
    media = "application/json; indent=2"
    assert FastJSONRenderer().render(DOCUMENT, media) == JSONRenderer().render(DOCUMENT, media)


@pytest.mark.parametrize("body", [b"NaN", b'{"seq": Infinity}', b"{", b'{"seq": 1,}', b"\xff"])
def test_the_parser_refuses_what_strict_json_refuses(body):
    with pytest.raises(ParseError):
        FastJSONParser().parse(io.BytesIO(body), "application/json", {})


def test_the_parser_leaves_other_charsets_to_drf():
    body = '{"card": "é"}'.encode("latin-1")
    parsed = FastJSONParser().parse(io.BytesIO(body), "application/json", {"encoding": "latin-1"})
    assert parsed == {"card": "é"}


@pytest.mark.parametrize("encoding", ["utf-8", "latin-1"])
def test_the_parser_refuses_bodies_nested_too_deep(encoding):
    from config.jsonio import MAX_JSON_DEPTH

    ok = b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH
    assert FastJSONParser().parse(io.BytesIO(ok), "application/json", {"encoding": encoding})
    for depth in (MAX_JSON_DEPTH + 1, 1000, 5000):
        body = b'{"a":' * depth + b"1" + b"}" * depth
        with pytest.raises(ParseError, match="nests deeper"):
            FastJSONParser().parse(io.BytesIO(body), "application/json", {"encoding": encoding})
