"""Tokens end at once in every server process, not only in the one that revoked them: two
gunicorn servers on one embedded database, each with its own token cache and memory, both
warmed up with the token first. An expired token is refused by every endpoint (the servers'
clock is moved on past its expiry); a revoked one moves nothing, and one device's logout
leaves the account's other devices logged in."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.servers import call, embedded_env, free_port, serving

__all__ = ["embedded_env"]  # the fixture, used by name

PASSWORD = "correct-horse-battery"
GAME = {"draw": 1, "preset": "N"}
DAYS = 86_400


def _count(db: Path, table: str) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def _warm(port: int, token: str) -> dict:
    """A game, a hint and a move in this process: the token is in its cache and its memory."""
    status, game = call(port, "POST", "/api/v1/games", token, GAME)
    assert status == 201, game
    assert call(port, "GET", f"/api/v1/games/{game['id']}/hint", token)[0] == 200
    status, game = call(port, "POST", f"/api/v1/games/{game['id']}/actions", token,
                        {"seq": 0, "action": "draw"})  # fmt: skip
    assert status == 200, game
    return game


def test_an_expired_token_is_refused_by_every_endpoint_in_every_process(embedded_env, tmp_path):
    ports, clock = [free_port(), free_port()], tmp_path / "clock"
    with (
        serving(embedded_env, ports[0], tmp_path / "a.log", clock),
        serving(embedded_env, ports[1], tmp_path / "b.log", clock),
    ):
        body = {"username": "leaver", "password": PASSWORD}
        status, registered = call(ports[0], "POST", "/api/v1/auth/register", None, body)
        assert status == 201, registered
        token = registered["token"]
        games = [_warm(port, token) for port in ports]
        clock.write_text(str(31 * DAYS))  # a month unused: past TOKEN_TTL_DAYS (30)
        for port, game in zip(ports, games, strict=True):
            gid = game["id"]
            for method, path, payload in (
                ("GET", "/api/v1/me", None),
                ("GET", "/api/v1/games", None),
                ("GET", f"/api/v1/games/{gid}", None),
                ("GET", f"/api/v1/games/{gid}/replay", None),
                ("GET", "/api/v1/users/leaver", None),
                ("POST", "/api/v1/games", GAME),
                ("GET", f"/api/v1/games/{gid}/hint", None),
                ("POST", f"/api/v1/games/{gid}/actions", {"seq": 1, "action": "draw"}),
                ("POST", "/api/v1/auth/logout-all", None),
            ):
                status, answer = call(port, method, path, token, payload)
                assert status == 401, (port, path, answer)
                assert answer["error"]["code"] == "authentication_failed"
        clock.write_text("0")  # back to now: the token was never revoked, only out of date
        assert call(ports[1], "GET", "/api/v1/me", token)[0] == 200
    db = tmp_path / "klondike.sqlite3"
    assert (_count(db, "games_game"), _count(db, "games_action")) == (2, 2)


def test_a_revoked_token_moves_nothing_in_any_process(embedded_env, tmp_path):
    ports = [free_port(), free_port()]
    with (
        serving(embedded_env, ports[0], tmp_path / "a.log"),
        serving(embedded_env, ports[1], tmp_path / "b.log"),
    ):
        body = {"username": "twice", "password": PASSWORD}
        status, registered = call(ports[0], "POST", "/api/v1/auth/register", None, body)
        assert status == 201, registered
        phone = registered["token"]
        status, login = call(ports[1], "POST", "/api/v1/auth/login", None, body)
        assert status == 200, login
        laptop = login["token"]
        games = {(port, token): _warm(port, token) for port in ports for token in (phone, laptop)}

        def move(port: int, token: str) -> int:
            game = games[port, token]
            status, answer = call(port, "POST", f"/api/v1/games/{game['id']}/actions", token,
                                  {"seq": game["seq"], "action": "draw"})  # fmt: skip
            if status == 200:
                games[port, token] = answer
            else:
                assert answer["error"]["code"] == "authentication_failed", answer
            return int(status)

        assert call(ports[0], "POST", "/api/v1/auth/logout", phone)[0] == 204
        # The phone's token is refused by both processes' moves; the laptop plays on.
        assert [move(port, phone) for port in ports] == [401, 401]
        assert [move(port, laptop) for port in ports] == [200, 200]
        assert call(ports[1], "GET", "/api/v1/me", laptop)[0] == 200

        assert call(ports[1], "POST", "/api/v1/auth/logout-all", laptop)[0] == 204
        assert [move(port, laptop) for port in ports] == [401, 401]
    db = tmp_path / "klondike.sqlite3"
    assert _count(db, "knox_authtoken") == 0
    assert _count(db, "games_action") == 4 + 2  # the warm-up moves and the laptop's two


def test_a_token_deleted_or_expired_in_the_database_stops_reading_within_a_second(
    embedded_env, tmp_path
):
    """Deleted or cut short in the database, not through the service: every process's reads
    answered 200 for about 5 minutes (the token cache's lifetime)."""
    import time

    ports = [free_port(), free_port()]
    db = tmp_path / "klondike.sqlite3"
    with (
        serving(embedded_env, ports[0], tmp_path / "a.log"),
        serving(embedded_env, ports[1], tmp_path / "b.log"),
    ):
        tokens = []
        for name in ("deleted", "expired"):
            body = {"username": name, "password": PASSWORD}
            status, registered = call(ports[0], "POST", "/api/v1/auth/register", None, body)
            assert status == 201, registered
            tokens.append(registered["token"])
        games = {(port, token): _warm(port, token) for port in ports for token in tokens}
        with sqlite3.connect(db) as conn:
            ids = dict(conn.execute("SELECT username, id FROM accounts_user"))
            conn.execute("DELETE FROM knox_authtoken WHERE user_id = ?", [ids["deleted"]])
            conn.execute(
                "UPDATE knox_authtoken SET expiry = '2000-01-01 00:00:00' WHERE user_id = ?",
                [ids["expired"]],
            )
        time.sleep(1.2)
        for (port, token), game in games.items():
            for path in ("/api/v1/me", f"/api/v1/games/{game['id']}", "/api/v1/daily"):
                status, answer = call(port, "GET", path, token)
                assert status == 401, (port, path, answer)
