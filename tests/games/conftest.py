"""Fixtures for the games app: a started game on a deal whose layout the tests know."""

from __future__ import annotations

from typing import Any

import pytest

# KL1-D1N-AAAAAAG (deal 6): t1 AD | t2 [2H] JC | t3 [7C 3D] KD | t4 [7H 5D 8D] 10C
# | t5 [4C 6H 6S 7D] 9D | t6 [9C KH JS 5H KC] 3S | t7 [9H 3C QD 7S QS 4D] AH;
# stock, in draw order: QH JH AS QC 2S 2C 3H 6D 4S 5C 4H KS 8H 8C 10S 8S 2D 5S 10D AC 10H JD 9S 6C
CODE = "KL1-D1N-AAAAAAG"
FACE_DOWN = ["2H", "7C", "3D", "7H", "5D", "8D", "4C", "6H", "6S", "7D", "9C", "KH", "JS", "5H",
             "KC", "9H", "3C", "QD", "7S", "QS", "4D"]  # fmt: skip
STOCK = ["QH", "JH", "AS", "QC", "2S", "2C", "3H", "6D", "4S", "5C", "4H", "KS", "8H", "8C",
         "10S", "8S", "2D", "5S", "10D", "AC", "10H", "JD", "9S", "6C"]  # fmt: skip


@pytest.fixture
def start(auth_client: Any) -> Any:
    """POST a new game with the given body (default: the known deal); returns the JSON."""

    def start_game(body: dict[str, Any] | None = None) -> dict[str, Any]:
        response = auth_client.post("/api/v1/games", body or {"code": CODE}, format="json")
        assert response.status_code == 201, response.content
        return response.json()

    return start_game


@pytest.fixture
def act(auth_client: Any) -> Any:
    """POST one action to a game; returns the response."""

    def post_action(game: dict[str, Any], **body: Any) -> Any:
        body.setdefault("seq", game["seq"])
        if "from_" in body:
            body["from"] = body.pop("from_")
        return auth_client.post(f"/api/v1/games/{game['id']}/actions", body, format="json")

    return post_action
