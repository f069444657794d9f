"""The service's own PostgreSQL role (DATABASE_URL), which may only read and append to the move
log: how the settings tell it from the owner's (DATABASE_MIGRATE_URL), and what web, workers
and beat do, done as that role: accounts, a casual game from the first move to its analysis,
and a daily board from its deals to the final ranking, whose generations are partition tables
the role creates, attaches and drops (games/migrations/0001_initial.py grants all this)."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from games import engine
from games.daily import integrity
from games.daily.services import closing as daily_closing
from games.daily.services import rankings as daily_rankings
from games.models import Action, DailyDeal, FlagReview, Game, RankingGeneration
from games.services import game_analyse
from tests.games import service_role
from tests.games.conftest import CODE
from tests.games.daily.conftest import DAY, NEXT, at

ROOT = Path(__file__).resolve().parents[2]
BOARD = f"/api/v1/leaderboards/daily/{DAY.isoformat()}/D1N"
PASSWORD = "correct-horse-battery"


@pytest.fixture
def service(transactional_db: None) -> Any:
    """Django's connections log in as the service's role for the test; yields its name."""
    with service_role.logged_in_as_service() as name:
        yield name


def _client(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def _act(client: APIClient, game: dict[str, Any], notation: str) -> dict[str, Any]:
    body = {"seq": game["seq"], **engine.action_to_dict(engine.parse_action(notation))}
    response = client.post(f"/api/v1/games/{game['id']}/actions", body, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def _generations(daily: DailyDeal) -> list[tuple[str, str]]:
    """(schema, owner) of each partition table that holds a ranking generation of the board."""
    names = [
        f"games_leaderboardentry_g{pk}" for pk in daily.generations.values_list("pk", flat=True)
    ]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relnamespace::regnamespace::text, pg_get_userbyid(c.relowner)::text"
            " FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
            " WHERE i.inhparent = 'games_leaderboardentry'::regclass AND c.relname = ANY(%s)",
            [names],
        )
        return cursor.fetchall()


def _settings(**overrides: str) -> subprocess.CompletedProcess[str]:
    """What a fresh process makes of the database variables: the default connection's engine,
    role and database, and SERVICE_DATABASE, printed as JSON."""
    probe = (
        "import json, django; django.setup(); from django.conf import settings as s;"
        " d = s.DATABASES['default'];"
        " print(json.dumps([d['ENGINE'], d.get('USER'), str(d['NAME']), s.SERVICE_DATABASE]))"
    )
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_", "REDIS_"))}
    environ |= {
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    return subprocess.run(
        [sys.executable, "-c", probe],
        cwd=ROOT,
        env=environ | overrides,
        capture_output=True,
        text=True,
    )


SERVICE_URL = "postgres://klondike_app:app-pw@db:5432/klondike"
OWNER_URL = "postgres://klondike:owner-pw@db:5432/klondike"


def test_a_process_with_the_owners_url_connects_as_the_owner():
    out = _settings(DATABASE_URL=SERVICE_URL, DATABASE_MIGRATE_URL=OWNER_URL)
    engine, user, name, service = json.loads(out.stdout.splitlines()[-1])
    assert (engine, user, name) == ("django.db.backends.postgresql", "klondike", "klondike")
    assert service == {"USER": "klondike_app", "PASSWORD": "app-pw", "HOST": "db", "PORT": 5432}
    # Web, workers and beat have DATABASE_URL only: the service's role, and no other.
    out = _settings(DATABASE_URL=SERVICE_URL)
    assert json.loads(out.stdout.splitlines()[-1])[1:] == ["klondike_app", "klondike", None]


@pytest.mark.parametrize(
    "owner",
    [
        "postgres://klondike_app:app-pw@db:5432/klondike",  # the service's own role
        "postgres://klondike:owner-pw@db:5432/another",  # another database
    ],
)
def test_the_owners_url_must_name_another_role_of_the_same_database(owner):
    out = _settings(DATABASE_URL=SERVICE_URL, DATABASE_MIGRATE_URL=owner)
    assert out.returncode != 0
    assert "DATABASE_MIGRATE_URL must name the owner" in out.stderr


def test_embedded_mode_ignores_the_owners_url():
    out = _settings(DATABASE_MIGRATE_URL=OWNER_URL)
    engine, _, _, service = json.loads(out.stdout.splitlines()[-1])
    assert engine == "django.db.backends.sqlite3" and service is None


@pytest.mark.postgres
def test_a_casual_game_as_the_service_role(service, api_client):
    registered = api_client.post(
        "/api/v1/auth/register", {"username": "svc", "password": PASSWORD}, format="json"
    )
    assert registered.status_code == 201, registered.content
    login = api_client.post(
        "/api/v1/auth/login", {"username": "svc", "password": PASSWORD}, format="json"
    )
    client = _client(login.json()["token"])
    game = client.post("/api/v1/games", {"code": CODE}, format="json").json()
    for notation in ("t1-f", "draw", "undo", "draw"):
        game = _act(client, game, notation)
    game = _act(client, game, "resign")  # the end of the game: replayed under the row's lock
    assert game["status"] == "resigned"
    assert game_analyse(game_id=game["id"])["status"]  # the worker's part, stored on the game
    replay = client.get(f"/api/v1/games/{game['id']}/replay")
    assert replay.status_code == 200 and replay.json()["analysis"]
    assert client.get("/api/v1/games/export").status_code == 200
    assert client.get("/api/v1/users/svc").status_code == 200
    assert client.post("/api/v1/auth/logout").status_code == 204
    log = Action.objects.filter(game_id=game["id"]).order_by("seq")
    assert list(log.values_list("seq", flat=True)) == [1, 2, 3, 4, 5]


@pytest.mark.postgres
def test_api_tokens_as_the_service_role(service, api_client):
    """The token table (django-rest-knox's, made by a migration after 0010) as web and beat
    use it: a token made at each login, extended on use, revoked one at a time and all at
    once, and the expired ones deleted."""
    from knox.models import AuthToken

    from accounts import tasks

    body = {"username": "devices", "password": PASSWORD}
    assert api_client.post("/api/v1/auth/register", body, format="json").status_code == 201
    phone, laptop = (
        _client(api_client.post("/api/v1/auth/login", body, format="json").json()["token"])
        for _ in range(2)
    )
    assert laptop.get("/api/v1/me").status_code == 200
    with time_machine.travel(timezone.now() + timedelta(days=2)):
        assert phone.get("/api/v1/me").status_code == 200  # extends the phone's token
        assert phone.post("/api/v1/auth/logout").status_code == 204
        assert laptop.get("/api/v1/me").status_code == 200  # and the laptop's
    with time_machine.travel(timezone.now() + timedelta(days=31)):
        assert tasks.delete_expired_tokens() == 1  # the register's, unused since
    assert AuthToken.objects.count() == 1  # the laptop's
    login = api_client.post("/api/v1/auth/login", body, format="json")
    assert _client(login.json()["token"]).post("/api/v1/auth/logout-all").status_code == 204
    assert AuthToken.objects.count() == 0


@pytest.mark.postgres
def test_a_daily_board_as_the_service_role(service, api_client, make_user):
    with time_machine.travel(at(DAY, 12), tick=False):
        assert api_client.get("/api/v1/daily").status_code == 200  # makes the day's deals
        daily = DailyDeal.objects.get(date=DAY, mode="D1N")
        start = f"/api/v1/daily/{DAY.isoformat()}/D1N/start"
        winner, loser = (_client(make_user(name)[1]) for name in ("winner", "loser"))
        won = winner.post(start, format="json").json()
        for notation in daily.solution.split():
            won = _act(winner, won, notation)
        assert won["status"] == "won"
        lost = _act(loser, loser.post(start, format="json").json(), "resign")
        for game in (won, lost):  # the integrity check each end sends to a worker
            integrity.game_integrity_check(game_id=game["id"])
        # The winner sent the deal's solution at once, which the check withholds (absent from
        # the board until cleared, #50): a reviewer clears it, as the service role may.
        integrity.game_flag_review(game_id=won["id"], review=FlagReview.CLEARED)
        # Ranking builds each generation as a partition table of the role's own, in its schema.
        assert daily_rankings.daily_rank(daily_id=daily.pk) == 2
        assert daily_rankings.daily_rank(daily_id=daily.pk) == 2
        assert _generations(daily) == [(service, service)] * 2
        later = timezone.now() + daily_rankings.GENERATION_GRACE + timedelta(seconds=1)
        assert daily_rankings.generations_drop_retired(now=later) == 1
        assert len(_generations(daily)) == 1
        board = api_client.get(BOARD).json()
        assert board["count"] == 2 and {e["game"] for e in board["entries"]} == {
            won["id"],
            lost["id"],
        }
    with time_machine.travel(at(NEXT, 1, 30), tick=False):
        # The beat's close: final ranking, streaks, the attempts' origins purged.
        assert daily_closing.daily_close(daily_id=daily.pk)
        later = timezone.now() + daily_rankings.GENERATION_GRACE + timedelta(seconds=1)
        assert daily_rankings.generations_drop_retired(now=later) == 1
        assert RankingGeneration.objects.filter(daily=daily).count() == 1
        assert len(_generations(daily)) == 1
        assert api_client.get(BOARD).json()["final"] is True
    assert Game.objects.filter(daily=daily).count() == 2
