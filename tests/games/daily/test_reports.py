"""Reports of final-board entries (games.daily.services.reports, `POST /games/{id}/report`):
a player reports another's entry with a reason, once; the reviewer sees it; bad input is a
clear 4xx in the error format, and nothing is stored."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from rest_framework.test import APIClient

from games.daily.services import closing as daily_closing
from games.models import EntryReport, Game
from tests.games.daily.conftest import DAY, at

pytestmark = pytest.mark.django_db


def _client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def _report(client: APIClient, game: Game | int, reason: Any = "moves like a solver") -> Any:
    game_id = game if isinstance(game, int) else game.pk
    return client.post(f"/api/v1/games/{game_id}/report", {"reason": reason}, format="json")


@pytest.fixture
def board(daily, finished_attempt, clock) -> dict[str, Game]:
    """A final board with two entries, `leader` and `rival`."""
    figures = {"moves": 120, "elapsed_ms": 200_000}
    games = {
        name: finished_attempt(daily, username=name, won=won, score=score, **figures)
        for name, won, score in (("leader", True, 700), ("rival", False, 90))
    }
    clock(at(DAY + timedelta(days=1), 1, 30))
    assert daily_closing.daily_close(daily_id=daily.pk)
    return games


def _key(name: str) -> str:
    from accounts.models import User
    from accounts.tokens import token_create

    return token_create(user=User.objects.get(username=name))[1]


def test_a_player_reports_an_entry_once_and_the_reviewer_sees_it(board, staff_client):
    rival = _client(_key("rival"))
    answer = _report(rival, board["leader"], "  a 40-second win at par  ")
    assert answer.status_code == 201, answer.content
    assert answer.json()["game"] == board["leader"].pk
    report = EntryReport.objects.get()
    assert (report.reporter.username, report.reason) == ("rival", "a 40-second win at par")
    assert Game.objects.get(pk=board["leader"].pk).flag_reason == ""  # no flag by itself
    page = staff_client.get(f"/admin/games/game/{board['leader'].pk}/change/").content.decode()
    assert "rival on" in page and "a 40-second win at par" in page
    queue = staff_client.get("/admin/games/game/?flag=reported").content.decode()
    assert f"/admin/games/game/{board['leader'].pk}/change/" in queue
    assert f"/admin/games/game/{board['rival'].pk}/change/" not in queue


@pytest.mark.parametrize(
    "case, status, code",
    [
        ("own entry", 409, "report_refused"),
        ("twice", 409, "already_reported"),
        ("empty reason", 400, "invalid"),
        ("blank reason", 400, "invalid"),
        ("no reason", 400, "invalid"),
        ("too long a reason", 400, "invalid"),
        ("a casual game", 404, "not_found"),
        ("an unknown game", 404, "not_found"),
    ],
)
def test_bad_reports_are_refused_and_nothing_is_stored(board, make_user, case, status, code):
    from games.services import game_start

    rival = _client(_key("rival"))
    target: Game | int = board["leader"]
    reason: Any = "moves like a solver"
    if case == "own entry":
        target = board["rival"]
    elif case == "twice":
        assert _report(rival, target).status_code == 201
    elif case == "empty reason":
        reason = ""
    elif case == "blank reason":
        reason = "   "
    elif case == "no reason":
        reason = None
    elif case == "too long a reason":
        reason = "x" * 501
    elif case == "a casual game":
        target = game_start(user=make_user()[0], code="KL1-D1N-AAAAAAK")
    elif case == "an unknown game":
        target = 999_999
    before = EntryReport.objects.count()
    answer = _report(rival, target, reason)
    assert answer.status_code == status, answer.content
    assert answer.json()["error"]["code"] == code
    assert EntryReport.objects.count() == before


def test_an_open_boards_entry_cannot_be_reported(daily, finished_attempt):
    leader = finished_attempt(daily, username="leader", won=True, score=700, moves=120,
                              elapsed_ms=200_000)  # fmt: skip
    finished_attempt(daily, username="rival", won=False, score=90, moves=100, elapsed_ms=9_000)
    answer = _report(_client(_key("rival")), leader)
    assert answer.status_code == 409, answer.content
    assert answer.json()["error"]["code"] == "daily_deal_open"
    assert not EntryReport.objects.exists()


def test_an_entry_its_board_leaves_out_or_a_guest_cannot_report(board, api_client):
    from accounts.services import guest_create

    Game.objects.filter(pk=board["leader"].pk).update(flag_reason="x", flag_withheld=True)
    answer = _report(_client(_key("rival")), board["leader"])
    assert (answer.status_code, answer.json()["error"]["code"]) == (404, "not_found")
    _, token = guest_create()
    guest = APIClient()
    guest.force_authenticate(token.user, token)
    answer = _report(guest, board["rival"])
    assert (answer.status_code, answer.json()["error"]["code"]) == (403, "account_required")
    visitor = _report(api_client, board["rival"])
    assert visitor.status_code == 401
    assert not EntryReport.objects.exists()


def test_reports_are_throttled_per_player(board, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "reports": "2/hour",
        },
    }
    rival = _client(_key("rival"))
    answers = [_report(rival, board["leader"]) for _ in range(3)]
    assert [a.status_code for a in answers] == [201, 409, 429]
    assert answers[2].json()["error"]["code"] == "throttled"


def test_one_report_per_entry_and_player_is_a_database_rule(board):
    from django.db import IntegrityError, transaction
    from django.utils import timezone

    from accounts.models import User

    rival, now = User.objects.get(username="rival"), timezone.now()
    EntryReport.objects.create(game=board["leader"], reporter=rival, reason="a", created_at=now)
    with pytest.raises(IntegrityError), transaction.atomic():
        EntryReport.objects.create(game=board["leader"], reporter=rival, reason="b", created_at=now)
    with pytest.raises(IntegrityError), transaction.atomic():
        EntryReport.objects.create(game=board["rival"], reporter=rival, reason="", created_at=now)
