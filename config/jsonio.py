"""The API's JSON in and out: orjson's speed with DRF's behaviour, a bound on how deep a body
may nest, and content negotiation that answers a JSON client at once. Every API view parses
with `FastJSONParser` (settings.REST_FRAMEWORK); the hot endpoint (the moves) also renders
with `FastJSONRenderer` and negotiates with `JSONFirstNegotiation`.

Kept apart from `config.errors`: DRF reads its parser setting when its views module loads,
which `config.errors` imports.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson
from django.utils.translation import gettext, ngettext
from rest_framework import exceptions, parsers, renderers
from rest_framework.negotiation import DefaultContentNegotiation


class JSONFirstNegotiation(DefaultContentNegotiation):
    """DRF's content negotiation, answered at once when the client takes anything or JSON and
    the first renderer is JSON (no Accept list to parse, no query string to read)."""

    def select_renderer(
        self, request: Any, renderers: Iterable[Any], format_suffix: str | None = None
    ) -> tuple[Any, str]:
        renderers = list(renderers)
        first = renderers[0]
        accept = request.META.get("HTTP_ACCEPT", "*/*")
        override = self.settings.URL_FORMAT_OVERRIDE  # None: DRF reads no `?format=`
        if (
            format_suffix is None
            and accept in ("*/*", "application/json")
            and first.media_type == "application/json"
            and not (override and override in request.META.get("QUERY_STRING", ""))
        ):
            return first, first.media_type
        return super().select_renderer(request, renderers, format_suffix)


# How deep a request body may nest. The API's bodies nest three levels at most; deeper ones
# only feed recursive code (validation, error rendering) until Python's recursion limit.
MAX_JSON_DEPTH = 32


def _depth_check(value: Any) -> Any:
    """`value` if its lists and objects nest at most MAX_JSON_DEPTH deep (checked without
    recursion).

    :raises ParseError: it nests deeper.
    """
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > MAX_JSON_DEPTH:
            raise _too_deep()
        stack.extend((child, depth + 1) for child in children)
    return value


def _too_deep() -> exceptions.ParseError:
    message = ngettext(
        "The body nests deeper than %(depth)s level.",
        "The body nests deeper than %(depth)s levels.",
        MAX_JSON_DEPTH,
    )
    return exceptions.ParseError(message % {"depth": MAX_JSON_DEPTH})


class FastJSONParser(parsers.JSONParser):
    """DRF's JSON parser, decoding with orjson (strict JSON: NaN and Infinity are errors, as
    with DRF's STRICT_JSON) when the body is UTF-8, JSON's own encoding; every API view's
    parser. A body that nests deeper than MAX_JSON_DEPTH is a 400, in any encoding."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        encoding = (parser_context or {}).get("encoding", "utf-8")
        if encoding.lower().replace("_", "-") not in ("utf-8", "utf8"):
            try:
                return _depth_check(super().parse(stream, media_type, parser_context))
            except RecursionError:  # Python's decoder gives up before the check can run
                raise _too_deep() from None
        try:
            return _depth_check(orjson.loads(stream.read()))
        except orjson.JSONDecodeError as exc:
            if "depth limit" in str(exc):  # orjson stops at 1024 levels
                raise _too_deep() from None
            message = gettext("The body is not valid JSON: %(error)s") % {"error": exc}
            raise exceptions.ParseError(message) from None


class FastJSONRenderer(renderers.JSONRenderer):
    """DRF's JSON renderer's output (compact UTF-8, datetimes in ISO 8601 with `Z`), encoded by
    orjson; anything orjson does not know goes through DRF's encoder, and an indented answer
    (`; indent=` in Accept) is left to DRF."""

    _fallback = renderers.JSONRenderer.encoder_class().default

    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None
    ) -> bytes:
        if data is None or self.get_indent(accepted_media_type or "", renderer_context or {}):
            return super().render(data, accepted_media_type, renderer_context)
        # U+2028 and U+2029 are escaped as DRF does, for JSON embedded in a script.
        text = orjson.dumps(data, default=self._fallback, option=orjson.OPT_UTC_Z)
        return text.replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029")
