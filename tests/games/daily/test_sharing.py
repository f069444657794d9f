"""Sharing a ranked result (games.daily.sharing, `GET /api/v1/games/{id}/share`): the text,
its row of symbols, the rank once final, who may share, and no spoiler in any of it."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from rest_framework.test import APIClient

from games import engine
from games.daily import share_card, sharing
from games.daily.services import closing as daily_closing
from games.models import Game
from tests.games.daily.conftest import DAY, at

pytestmark = pytest.mark.django_db

# Anything that would name a card or the deal: "10H", "QS", "A♠", a suit, a deal code.
SPOILER = re.compile(r"\b(?:10|[2-9AJQKT])[SHDC]\b|[♠♥♦♣]|KL1-|\bt[1-7]-|waste|stock")


def _client(token: str | None = None) -> APIClient:
    client = APIClient()
    if token:
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def _play(client: APIClient, game: dict[str, Any], line: list[str]) -> dict[str, Any]:
    for notation in line:
        body = {"seq": game["seq"], **engine.action_to_dict(engine.parse_action(notation))}
        response = client.post(f"/api/v1/games/{game['id']}/actions", body, format="json")
        assert response.status_code == 200, response.content
        game = response.json()
    return game


@pytest.fixture
def won(daily: Any, make_user: Any) -> dict[str, Any]:
    """A ranked attempt won by the solver's line, and a rival's resigned one."""
    _, token = make_user("sharer")
    client = _client(token)
    game = client.post(f"/api/v1/daily/{DAY.isoformat()}/D1N/start").json()
    game = _play(client, game, daily.solution.split())
    assert game["status"] == "won"
    _, rival_token = make_user("rival")
    rival = _client(rival_token)
    other = rival.post(f"/api/v1/daily/{DAY.isoformat()}/D1N/start").json()
    _play(rival, other, ["resign"])
    return {"client": client, "game": game, "rival": rival, "other": other, "daily": daily}


def test_the_share_text_while_the_board_is_open(won):
    body = won["client"].get(f"/api/v1/games/{won['game']['id']}/share").json()
    lines = body["text"].splitlines()
    assert lines[0] == f"Klondike Daily {DAY.isoformat()} · Draw 1 · Normal"
    assert lines[1].startswith("Won · ") and f"{won['game']['moves']} moves" in lines[1]
    row, url = lines[2], lines[3]
    assert 1 <= len(row) <= sharing.ROW_SLICES and set(row) <= set(sharing.SYMBOLS)
    assert row[-1] == sharing.SYMBOLS[2] or "🟩" in row  # the cards went home by the end
    assert url == body["url"] and url.endswith(f"/share/{won['game']['id']}?lang=en")
    assert body["image_url"].endswith(f"/share/{won['game']['id']}.png?lang=en")
    assert body["final"] is False and "Rank" not in body["text"]
    assert not SPOILER.search(body["text"])


def test_the_rank_shows_once_final_and_the_text_is_translated(won, clock):
    clock(at(DAY + timedelta(days=1), 1, 5))
    assert daily_closing.daily_close(daily_id=won["daily"].pk)
    body = (
        won["client"]
        .get(f"/api/v1/games/{won['game']['id']}/share", HTTP_ACCEPT_LANGUAGE="pl")
        .json()
    )
    assert body["final"] is True
    lines = body["text"].splitlines()
    assert lines[0] == f"Klondike Daily {DAY.isoformat()} · Dobierz 1 · Normalny"
    assert lines[1].startswith("Wygrana · ") and " ruchów · " in lines[1]
    assert lines[2] == "Miejsce 1 z 2"
    assert body["url"].endswith("?lang=pl")
    assert "KL1-" not in body["text"]  # never the code, even once final


def test_only_the_player_may_share_their_result(won):
    response = won["rival"].get(f"/api/v1/games/{won['game']['id']}/share")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    visitor = _client().get(f"/api/v1/games/{won['game']['id']}/share")
    assert visitor.status_code == 401


def test_a_casual_or_unfinished_game_has_nothing_to_share(won, daily, make_user):
    _, token = make_user("casual")
    client = _client(token)
    casual = client.post("/api/v1/games", {"draw": 1, "preset": "N"}, format="json").json()
    _play(client, casual, ["resign"])
    playing = client.post(f"/api/v1/daily/{DAY.isoformat()}/D1N/start").json()
    for game_id in (casual["id"], playing["id"], 10**9):
        response = client.get(f"/api/v1/games/{game_id}/share")
        assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"


def test_the_image_card_is_a_png_of_the_shares_own_lines(won, monkeypatch):
    game = Game.objects.get(pk=won["game"]["id"])
    result = sharing.shared_result(game)
    drawn: list[str] = []
    real_text = share_card.ImageDraw.ImageDraw.text

    def record(self: Any, xy: Any, text: str, *args: Any, **kwargs: Any) -> Any:
        drawn.append(text)
        return real_text(self, xy, text, *args, **kwargs)

    monkeypatch.setattr(share_card.ImageDraw.ImageDraw, "text", record)
    png = share_card.share_card_png(result, row=sharing.symbol_row(result.homed))
    assert png.startswith(b"\x89PNG") and len(png) < 200_000
    assert drawn[:2] == sharing.share_lines(result)[:2] and drawn[-1] == "sharer"
    assert not any(SPOILER.search(text) for text in drawn)


def test_the_row_counts_cards_home_per_slice(won):
    game = Game.objects.get(pk=won["game"]["id"])
    homed = sharing.shared_result(game).homed
    assert sum(homed) == 52 and len(homed) == sharing.ROW_SLICES
    resigned = Game.objects.get(pk=won["other"]["id"])
    assert sharing.shared_result(resigned).homed == (0,)


def _shared(won: dict[str, Any], who: str = "client", game: str = "game") -> int:
    """Its player shares the result (the Share button's call): its page is public from now."""
    game_id = won[game]["id"]
    assert won[who].get(f"/api/v1/games/{game_id}/share").status_code == 200
    return int(game_id)


def test_a_result_is_public_only_once_its_player_shared(won, client):
    """Share pages answered for every finished ranked attempt of a public profile, shared or
    not: ids could be counted."""
    game_id = won["game"]["id"]
    for path in (f"/share/{game_id}", f"/share/{game_id}.png"):
        assert client.get(path).status_code == 404, path
    assert won["rival"].get(f"/api/v1/games/{game_id}/share").status_code == 404  # not theirs
    assert client.get(f"/share/{game_id}").status_code == 404
    _shared(won)
    for path in (f"/share/{game_id}", f"/share/{game_id}.png"):
        assert client.get(path).status_code == 200, path
    assert client.get(f"/share/{won['other']['id']}").status_code == 404  # the rival's: not shared


def test_the_card_is_drawn_once_per_game_and_language_and_kept(won, client, monkeypatch):
    from django.core.cache import cache

    game_id = _shared(won)
    drawn: list[str] = []
    real = share_card.share_card_png

    def counted(*args: Any, **kwargs: Any) -> bytes:
        drawn.append("card")
        return real(*args, **kwargs)

    monkeypatch.setattr(share_card, "share_card_png", counted)
    first = client.get(f"/share/{game_id}.png?lang=en").content
    cache.clear()  # kept in the database, not only a cache
    assert client.get(f"/share/{game_id}.png?lang=en").content == first
    assert len(drawn) == 1
    client.get(f"/share/{game_id}.png?lang=pl")
    assert len(drawn) == 2  # one per language


def test_share_pages_and_cards_are_throttled_per_address(won, client, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "share": "3/min",
        },
    }
    game_id = _shared(won)
    paths = [f"/share/{game_id}", f"/share/{game_id}.png", "/share/999999"]
    assert [client.get(p).status_code for p in paths] == [200, 200, 404]
    refused = client.get(f"/share/{game_id}")
    assert refused.status_code == 429 and refused["Retry-After"] == "60"
    assert client.get(f"/share/{game_id}", REMOTE_ADDR="198.51.100.7").status_code == 200


def test_the_shared_page_unfurls_without_a_spoiler(won, client):
    game_id = _shared(won)
    page = client.get(f"/share/{game_id}?lang=hr")
    assert page.status_code == 200
    html = page.content.decode()
    tags = dict(re.findall(r'<meta property="og:([a-z:]+)" content="([^"]*)"', html))
    assert tags["image"].endswith(f"/share/{game_id}.png?lang=hr")
    assert tags["title"].startswith("sharer · Klondike Daily") and "Vuča 1" in tags["title"]
    assert tags["description"].startswith("Pobjeda")
    assert '<html lang="hr">' in html
    main = html.split('<main id="main">')[1].split("</main>")[0]
    assert not SPOILER.search(main) and not any(SPOILER.search(v) for v in tags.values())
    image = client.get(f"/share/{game_id}.png")
    assert image.status_code == 200 and image["Content-Type"] == "image/png"
    assert image.content.startswith(b"\x89PNG") and "max-age=300" in image["Cache-Control"]


def test_a_private_players_share_page_is_404_for_others(won, client):
    game_id = _shared(won)
    Game.objects.get(pk=game_id).user.__class__.objects.filter(username="sharer").update(
        profile_private=True
    )
    assert client.get(f"/share/{game_id}").status_code == 404
    assert client.get(f"/share/{game_id}.png").status_code == 404
    _shared(won, "rival", "other")
    assert client.get(f"/share/{won['other']['id']}").status_code == 200  # the rival's is public
    assert client.get("/share/999999").status_code == 404
