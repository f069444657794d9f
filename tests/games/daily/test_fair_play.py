"""Fair play on the daily board: nothing of an open daily deal leaves the server beyond what
its owner saw, a deactivated account stops at once, and second accounts get flagged.

Each door a cheater used (issue "Fair play") has a test here; the property test at the end
asks every endpoint, as every kind of caller, for cards it must not know.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from games import engine
from games.daily import services as daily_services
from games.models import AttemptOrigin, DailyDeal, Game
from tests.games.daily.conftest import DAY, at

pytestmark = pytest.mark.django_db

# A card's name standing alone (not inside a word, a hex string or a %-escape).
CARD_RE = re.compile(r"(?<![A-Za-z0-9%])(?:10|[2-9AJQK])[SHDC](?![A-Za-z0-9])")


def _client(key: str | None = None, **extra: Any) -> APIClient:
    client = APIClient(**extra)
    if key:
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def _start(client: APIClient, day=DAY, mode="D1N", **extra: Any) -> Any:
    return client.post(f"/api/v1/daily/{day.isoformat()}/{mode}/start", format="json", **extra)


def _act(client: APIClient, game: dict[str, Any], notation: str) -> dict[str, Any]:
    body = {"seq": game["seq"], **engine.action_to_dict(engine.parse_action(notation))}
    response = client.post(f"/api/v1/games/{game['id']}/actions", body, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def _body(response: Any) -> str:
    raw = b"".join(response.streaming_content) if response.streaming else response.content
    return raw.decode()


def _deal_state(daily: DailyDeal) -> engine.GameState:
    return engine.GameState.from_code(
        str(engine.DealCode(daily.draw, daily.preset, daily.deal.number))
    )


def _seen(daily: DailyDeal, log: list[str]) -> set[str]:
    """Every card the player of `log` had on screen at some point: the public view after
    each action, as the API answered it."""
    state = _deal_state(daily)
    seen: set[str] = set()

    def look() -> None:
        view = engine.public_view(state)
        seen.update(view["waste"], *view["foundations"], *view["tableau"])

    look()
    for notation in log:
        if not notation.startswith("*"):
            state.apply(engine.parse_action(notation))
        look()
    seen.discard(None)
    return seen


def _win(client: APIClient, daily: DailyDeal) -> dict[str, Any]:
    """Start a ranked attempt and play the solver's winning line through the API."""
    game = _start(client).json()
    for notation in daily.solution.split():
        game = _act(client, game, notation)
    assert game["status"] == "won"
    return game


def _resign_at_once(client: APIClient) -> dict[str, Any]:
    game = _start(client).json()
    return _act(client, game, "resign")


def _flag(game: dict[str, Any]) -> str:
    """The integrity check's verdict on a finished game (the task a commit sends)."""
    daily_services.game_integrity_check(game_id=game["id"])
    return Game.objects.get(pk=game["id"]).flag_reason


def _close(clock: Any, daily: DailyDeal) -> None:
    clock(at(DAY + timedelta(days=1), 1, 30))
    assert daily_services.daily_close(daily_id=daily.pk)


# --- Replays, replay.txt, the export, the game itself -------------------------------------


def test_a_resign_at_move_0_gives_its_owner_no_deal_and_no_analysis(daily, make_user, clock):
    from games.services import game_analyse

    _, key = make_user("throwaway")
    owner = _client(key)
    game = _resign_at_once(owner)
    assert game_analyse(game_id=game["id"])["winning_line"]  # computed, kept on the server
    replay = owner.get(f"/api/v1/games/{game['id']}/replay").json()
    assert replay["redacted"] is True
    assert (replay["code"], replay["deal"], replay["analysis"]) == (None, None, None)
    assert replay["initial"] == engine.public_view(_deal_state(daily))
    assert [a["notation"] for a in replay["actions"]] == ["resign"]
    assert replay["actions"][0]["revealed"] == []
    assert set(CARD_RE.findall(json.dumps(replay))) == _seen(daily, ["resign"])
    text = owner.get(f"/api/v1/games/{game['id']}/replay.txt").content.decode()
    assert "# deal hidden until the daily board is final" in text
    assert not CARD_RE.findall(text)
    # Once the board is final, everything is public, the analysis included.
    _close(clock, daily)
    final = _client().get(f"/api/v1/games/{game['id']}/replay").json()
    assert final["redacted"] is False
    assert final["deal"] == daily.deal.layout and final["code"] is not None
    assert final["analysis"]["winning_line"]


def test_the_owners_redacted_replay_lists_the_cards_each_action_turned_up(daily, make_user):
    _, key = make_user()
    owner = _client(key)
    game = _start(owner).json()
    log = ["draw", "draw", "undo", "draw"]
    for notation in log:
        game = _act(owner, game, notation)
    game = _act(owner, game, "resign")
    replay = owner.get(f"/api/v1/games/{game['id']}/replay").json()
    stock = engine.full_view(_deal_state(daily))["stock"]
    assert [a["revealed"] for a in replay["actions"]] == [
        [stock[0]], [stock[1]], [], [stock[1]], []
    ]  # fmt: skip
    assert set(CARD_RE.findall(json.dumps(replay))) <= _seen(daily, [*log, "resign"])


def test_nobody_else_sees_an_open_dailys_games(daily, make_user, clock):
    _, leader_key = make_user("leader")
    _, rival_key = make_user("rival")
    won = _win(_client(leader_key), daily)
    rival = _client(rival_key)
    _resign_at_once(rival)  # finished their own attempt: no longer a reason to see others'
    for client in (rival, _client()):
        for path in ("", "/replay", "/replay.txt"):
            response = client.get(f"/api/v1/games/{won['id']}{path}")
            assert response.status_code == 404, (path, response.content)
            assert response.json()["error"]["code"] == "not_found"
    _close(clock, daily)
    for path in ("", "/replay", "/replay.txt"):
        assert rival.get(f"/api/v1/games/{won['id']}{path}").status_code == 200


def test_the_export_redacts_an_open_daily(daily, make_user, clock):
    _, key = make_user()
    owner = _client(key)
    game = _resign_at_once(owner)
    casual = owner.post("/api/v1/games", {"draw": 1, "preset": "N"}, format="json").json()
    _act(owner, casual, "resign")

    def export() -> dict[int, dict[str, Any]]:
        lines = _body(owner.get("/api/v1/games/export")).splitlines()
        return {doc["id"]: doc for doc in map(json.loads, lines)}

    documents = export()
    assert documents[game["id"]]["redacted"] is True
    assert documents[game["id"]]["deal"] is None and documents[game["id"]]["analysis"] is None
    assert documents[casual["id"]]["deal"] is not None
    _close(clock, daily)
    assert export()[game["id"]]["deal"] == daily.deal.layout


def test_a_random_casual_deal_is_never_an_open_daily(daily, auth_client, monkeypatch):
    from games import pool

    numbers = iter([daily.deal.number, daily.deal.number, 12345])
    monkeypatch.setattr(pool.secrets, "randbelow", lambda _: next(numbers))
    game = auth_client.post("/api/v1/games", {"draw": 1, "preset": "N"}, format="json").json()
    assert Game.objects.get(pk=game["id"]).deal.number == 12345


# --- A deactivated account ----------------------------------------------------------------


def test_a_deactivated_account_stops_at_once(daily, make_user):
    from accounts.models import User

    user, key = make_user()
    client = _client(key)
    casual = client.post("/api/v1/games", {"draw": 1, "preset": "N"}, format="json").json()
    assert client.get(f"/api/v1/games/{casual['id']}/hint").status_code == 200  # token cached
    User.objects.filter(pk=user.pk).update(is_active=False)  # as the admin does, no signal
    games_before = Game.objects.count()
    refused = {
        "start": _start(client),
        "create": client.post("/api/v1/games", {"draw": 1, "preset": "N"}, format="json"),
        "hint": client.get(f"/api/v1/games/{casual['id']}/hint"),
        "act": client.post(
            f"/api/v1/games/{casual['id']}/actions", {"seq": 0, "action": "draw"}, format="json"
        ),
    }
    for name, response in refused.items():
        assert response.status_code == 401, (name, response.content)
        assert response.json()["error"]["code"] == "authentication_failed", name
    assert Game.objects.count() == games_before
    assert Game.objects.get(pk=casual["id"]).seq == 0


# --- Second accounts ----------------------------------------------------------------------


def test_a_start_from_the_address_of_a_finished_attempt_is_flagged(daily, make_user):
    _, b_key = make_user("second")
    _, a_key = make_user("main")
    _resign_at_once(_client(b_key, REMOTE_ADDR="203.0.113.7"))
    # A forged X-Forwarded-For does not hide the connection's own address.
    main = _client(a_key, REMOTE_ADDR="203.0.113.7", HTTP_X_FORWARDED_FOR="198.51.100.1")
    game = _win(main, daily)
    assert "same address or browser" in _flag(game)
    assert AttemptOrigin.objects.get(game_id=game["id"]).address == "203.0.113.7"


def test_a_start_from_the_browser_of_a_finished_attempt_is_flagged(daily, make_user):
    from config.browser import BROWSER_COOKIE

    _, b_key = make_user("second")
    _, a_key = make_user("main")
    browser = _client()
    page = browser.get("/daily")
    cookie = page.cookies[BROWSER_COOKIE].value
    assert len(cookie) == 32
    browser.credentials(HTTP_AUTHORIZATION=f"Token {b_key}")
    _resign_at_once(browser)
    other_network = _client(a_key, REMOTE_ADDR="198.51.100.9")
    other_network.cookies[BROWSER_COOKIE] = cookie
    game = _start(other_network).json()
    game = _act(other_network, game, "resign")
    assert "same address or browser" in _flag(game)


def test_different_addresses_and_browsers_are_not_flagged(daily, make_user):
    _, b_key = make_user()
    _, a_key = make_user()
    _resign_at_once(_client(b_key, REMOTE_ADDR="203.0.113.7"))
    game = _resign_at_once(_client(a_key, REMOTE_ADDR="203.0.113.8"))
    assert _flag(game) == ""


def test_a_new_accounts_flawless_first_win_at_par_is_flagged(daily, make_user):
    _, key = make_user()
    game = _win(_client(key), daily)
    reason = _flag(game)
    assert "new account's first ranked game" in reason
    assert "follows the solver's line for 100%" in reason


def test_only_card_moves_count_towards_the_solver_line_share(daily):
    from games.daily.services import _line_share

    line = daily.solution.split()
    card_moves = [n for n in line if n not in ("draw", "recycle")]
    assert _line_share(["undo", *line, "resign"], line) == 1.0
    # Draws match whoever played; a line of one's own shares few card moves in order.
    assert _line_share(["draw"] * 50 + card_moves[::-1], line) < 0.5
    assert _line_share(line[: len(line) // 2], line) == 1.0  # a prefix follows it all along


def test_flagged_entries_are_under_review_while_open_and_leave_the_final_board(
    daily, finished_attempt, clock, api_client
):
    honest = finished_attempt(daily, username="honest", won=True, score=600, moves=150,
                              elapsed_ms=300_000)  # fmt: skip
    sybil = finished_attempt(daily, username="sybil", won=True, score=700, moves=110,
                             elapsed_ms=9_000)  # fmt: skip
    Game.objects.filter(pk=sybil.pk).update(flag_reason="same address or browser as ...")
    daily_services.daily_rank(daily_id=daily.pk)
    path = f"/api/v1/leaderboards/daily/{DAY.isoformat()}/D1N"
    entries = api_client.get(path).json()["entries"]
    assert [(e["user"], e["under_review"]) for e in entries] == [
        ("sybil", True), ("honest", False)
    ]  # fmt: skip
    _close(clock, daily)
    entries = api_client.get(path).json()["entries"]
    assert [e["user"] for e in entries] == ["honest"]
    daily_services.daily_flag_clear(game_id=sybil.pk)  # an admin's word
    daily_services.daily_rank(daily_id=daily.pk)
    entries = api_client.get(path).json()["entries"]
    assert [(e["user"], e["under_review"]) for e in entries] == [
        ("sybil", False), ("honest", False)
    ]  # fmt: skip
    del honest


def test_origins_are_kept_30_days(daily, make_user, clock):
    _, key = make_user()
    _resign_at_once(_client(key))
    assert AttemptOrigin.objects.count() == 1
    clock(at(DAY + timedelta(days=30), 12))
    assert daily_services.origins_purge() == 0
    clock(at(DAY + timedelta(days=31), 12))
    assert daily_services.origins_purge() == 1


# --- The property: no answer names a card its caller has not seen -------------------------


def _answers(
    client: APIClient, game_ids: list[int], usernames: list[str], *, player: bool
) -> list[Any]:
    day = DAY.isoformat()
    paths = [
        "/api/v1/daily",
        f"/api/v1/daily/{day}",
        f"/api/v1/leaderboards/daily/{day}/D1N",
        "/api/v1/leaderboards/streaks?mode=D1N",
        "/api/v1/me",
        "/api/v1/games?mine=1",
        "/api/v1/games/export",
        *(f"/api/v1/users/{name}" for name in usernames),
        *(f"/api/v1/games/{gid}{p}" for gid in game_ids for p in ("", "/replay", "/replay.txt",
                                                                     "/hint")),
        "/daily",
        "/leaderboards",
        *(f"/replay/{gid}" for gid in game_ids),
    ]  # fmt: skip
    # A player's start answers their own game again (or 409): asked by a spectator, it
    # would make them a player.
    return [client.get(path) for path in paths] + ([_start(client)] if player else [])


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_no_answer_names_a_card_its_caller_has_not_seen(transactional_db, clock, data):
    """Random ranked games (a winner who plays the solver's line, players who make random
    legal moves and resign or stop, a spectator): every answer of every endpoint to each of
    them names only cards that this caller saw in their own game of the deal."""
    from accounts.models import User
    from accounts.tokens import token_create

    clock(at(DAY, 12))
    daily = daily_services.daily_deal_get_or_create(day=DAY, mode="D1N")
    n = User.objects.count()
    callers: dict[str, APIClient] = {}
    for role in ("winner", "a", "b", "spectator"):
        user = User.objects.create_user(username=f"{role}{n}", password="correct-horse-battery")
        callers[user.username] = _client(token_create(user=user)[1])
    names = list(callers)
    games = [_win(callers[names[0]], daily)]
    for name in names[1:3]:
        client = callers[name]
        game = _start(client).json()
        state = _deal_state(daily)
        for _ in range(data.draw(st.integers(0, 25), label=f"{name} moves")):
            legal = [a for a in state.legal_moves() if not isinstance(a, engine.Resign)]
            action = data.draw(st.sampled_from(legal))
            state.apply(action)
            game = _act(client, game, engine.format_action(action))
        if data.draw(st.booleans(), label=f"{name} resigns"):
            game = _act(client, game, "resign")
        games.append(game)
    game_ids = [g["id"] for g in games]
    for name, client in [*callers.items(), ("anonymous", _client())]:
        own = Game.objects.filter(daily=daily, user__username=name).first()
        log = list(own.actions.order_by("seq").values_list("notation", flat=True)) if own else []
        seen = _seen(daily, log) if own else set()
        for response in _answers(client, game_ids, names, player=own is not None):
            named = set(CARD_RE.findall(_body(response)))
            assert named <= seen, (name, response.wsgi_request.path, named - seen)
