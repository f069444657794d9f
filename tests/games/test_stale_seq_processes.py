"""A stale `seq` answers 409 `seq_mismatch` first, whatever the action, also when the
process that gets it keeps the game's row from before another process's action."""

from __future__ import annotations

from tests.games.conftest import CODE
from tests.servers import call, embedded_env, free_port, serving

__all__ = ["embedded_env"]  # the fixture, used by name


def test_a_stale_seq_is_409_before_an_illegal_move_is_422(embedded_env, tmp_path):
    a, b = free_port(), free_port()
    with serving(embedded_env, a, tmp_path / "a.log"), serving(embedded_env, b, tmp_path / "b.log"):
        body = {"username": "racer", "password": "correct-horse-battery"}
        token = call(a, "POST", "/api/v1/auth/register", None, body)[1]["token"]
        status, game = call(a, "POST", "/api/v1/games", token, {"code": CODE})
        assert status == 201, game
        actions = f"/api/v1/games/{game['id']}/actions"
        assert (
            call(a, "POST", actions, token, {"seq": 0, "action": "draw"})[0] == 200
        )  # a keeps seq 1
        assert call(b, "POST", actions, token, {"seq": 1, "action": "draw"})[0] == 200  # now 2
        # Illegal in the position `a` keeps (t6's 3S does not go on t1's AD): still a 409.
        illegal = {"seq": 1, "action": "move", "from": "t6", "to": "t1"}
        status, answer = call(a, "POST", actions, token, illegal)
        assert status == 409, answer
        assert answer["error"]["code"] == "seq_mismatch" and answer["error"]["expected"] == 2
        # At the right seq the same move is refused by the rules, in either process.
        for port in (a, b):
            status, answer = call(port, "POST", actions, token, {**illegal, "seq": 2})
            assert (status, answer["error"]["code"]) == (422, "illegal_move")
