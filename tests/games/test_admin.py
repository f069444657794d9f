"""Admin lists deals, games and logs read-only (the review of integrity flags:
tests/games/daily/test_integrity_review.py)."""

from __future__ import annotations

import pytest

from games.services import game_start

pytestmark = pytest.mark.django_db


def test_admin_pages_are_read_only(staff_client, make_user):
    user, _ = make_user()
    game = game_start(user=user, code="KL1-D1N-AAAAAAG")
    for path in ("/admin/games/game/", "/admin/games/deal/", "/admin/games/action/",
                 "/admin/games/dailydeal/", f"/admin/games/game/{game.pk}/change/"):  # fmt: skip
        assert staff_client.get(path).status_code == 200, path
    assert staff_client.get("/admin/games/game/add/").status_code == 403
    assert staff_client.post(f"/admin/games/game/{game.pk}/delete/").status_code == 403
    page = staff_client.get(f"/admin/games/game/{game.pk}/change/").content.decode()
    assert 'name="status"' not in page  # no editable form fields
