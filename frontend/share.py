"""A shared result's page and its image card (docs/daily.md, "Sharing"): public, so that a
link to it unfurls in chat apps, and in the sharer's language (`?lang=`, which the share's
link carries), whatever the reader's."""

from __future__ import annotations

from types import SimpleNamespace

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation
from django.utils.translation import gettext

from config.errors import NotFoundError
from config.site import site_link
from config.throttles import ScopedThrottle
from games.daily import share_card, sharing
from games.daily.services import sharing as share_services

# How long a browser or a chat app's fetcher may keep a card: a while once the board is final
# (its rank no longer changes), briefly before.
CARD_MAX_AGE_S = {True: 86400, False: 300}


def _language(request: HttpRequest) -> str:
    wanted = request.GET.get("lang", "")
    return wanted if wanted in dict(settings.LANGUAGES) else translation.get_language() or "en"


def _result(request: HttpRequest, game_id: int) -> sharing.SharedResult:
    """The shared result, after the per-address throttle of share pages and cards (scope
    `share`, THROTTLE_SHARE): past it, the site's 429 page."""
    if not ScopedThrottle().allow_request(request, SimpleNamespace(throttle_scope="share")):
        raise TooManyShares
    try:
        game = sharing.shared_game(game_id=game_id, viewer=request.user)
    except NotFoundError:
        raise Http404 from None
    return sharing.shared_result(game)


class TooManyShares(Exception):
    """More share pages and cards than THROTTLE_SHARE from one address."""


def _too_many(request: HttpRequest) -> HttpResponse:
    message = gettext("Request was throttled.")  # DRF's, translated in every catalog
    response = render(
        request, "frontend/error.html", {"status": 429, "message": message}, status=429
    )
    response["Retry-After"] = "60"
    return response


def share_page(request: HttpRequest, game_id: int) -> HttpResponse:
    """The result's page: its lines and row, with OpenGraph tags for the unfurl."""
    try:
        result = _result(request, game_id)
    except TooManyShares:
        return _too_many(request)
    language = _language(request)
    with translation.override(language):
        lines = sharing.share_lines(result)
        return render(
            request,
            "frontend/share.html",
            {
                "nav": "",
                "result": result,
                "title": lines[0],
                "figures": lines[1],
                "rank": lines[2] if len(lines) > 2 else "",
                "row": sharing.symbol_row(result.homed),
                "page_url": site_link(f"/share/{game_id}?lang={language}"),
                "image_url": site_link(f"/share/{game_id}.png?lang={language}"),
            },
        )


def share_image(request: HttpRequest, game_id: int) -> HttpResponse:
    """The result's image card (PNG), drawn once per result and language and kept."""
    try:
        result = _result(request, game_id)
    except TooManyShares:
        return _too_many(request)
    language = _language(request)
    final = result.rank is not None

    def draw() -> bytes:
        with translation.override(language):
            return share_card.share_card_png(result, row=sharing.symbol_row(result.homed))

    png = share_services.share_card_kept(result=result, language=language, draw=draw)
    response = HttpResponse(png, content_type="image/png")
    response["Cache-Control"] = f"public, max-age={CARD_MAX_AGE_S[final]}"
    return response
