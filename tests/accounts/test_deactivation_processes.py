"""A deactivated account stops at once in every server process, not only in the one that
cached its token: two gunicorn servers on one embedded database, each with its own
process-local token cache, both warmed up before the account is deactivated."""

from __future__ import annotations

import sqlite3
import time

from tests.servers import call, embedded_env, free_port, serving

__all__ = ["embedded_env"]  # the fixture, used by name


def test_a_deactivated_account_stops_at_once_in_every_process(embedded_env, tmp_path):
    ports = [free_port(), free_port()]
    with (
        serving(embedded_env, ports[0], tmp_path / "a.log"),
        serving(embedded_env, ports[1], tmp_path / "b.log"),
    ):
        body = {"username": "doomed", "password": "correct-horse-battery"}
        status, registered = call(ports[0], "POST", "/api/v1/auth/register", None, body)
        assert status == 201, registered
        token = registered["token"]
        games = []
        for port in ports:  # each process caches the token, and the account has a game there
            status, game = call(port, "POST", "/api/v1/games", token, {"draw": 1, "preset": "N"})
            assert status == 201, game
            assert call(port, "GET", f"/api/v1/games/{game['id']}/hint", token)[0] == 200
            games.append(game)
        with sqlite3.connect(tmp_path / "klondike.sqlite3") as db:  # as an admin would
            db.execute("UPDATE accounts_user SET is_active = 0 WHERE username = 'doomed'")
        today = time.strftime("%Y-%m-%d", time.gmtime())
        for port, game in zip(ports, games, strict=True):
            gid = game["id"]
            for method, path, payload in (
                ("POST", f"/api/v1/daily/{today}/D1N/start", None),
                ("POST", "/api/v1/games", {"draw": 1, "preset": "N"}),
                ("GET", f"/api/v1/games/{gid}/hint", None),
                ("POST", f"/api/v1/games/{gid}/actions", {"seq": 0, "action": "draw"}),
            ):
                status, answer = call(port, method, path, token, payload)
                assert status == 401, (port, path, answer)
                assert answer["error"]["code"] == "authentication_failed"
        with sqlite3.connect(tmp_path / "klondike.sqlite3") as db:
            assert db.execute("SELECT COUNT(*) FROM games_game").fetchone() == (2,)
            assert db.execute("SELECT COUNT(*) FROM games_action").fetchone() == (0,)
