"""The review of integrity flags in Django admin (games.admin, games.daily.integrity): the
evidence in plain words, and a reviewer's clear or confirm, one game or many at once."""

from __future__ import annotations

import pytest

from games.models import FlagReview, Game
from tests.games.daily.conftest import DAY

pytestmark = pytest.mark.django_db


def flag_review_game(game_id: int) -> None:
    """Flag a game as the check does on strong evidence (a link with a sign of its own)."""
    from games.daily.integrity import game_flag

    reasons = ["same browser as scout's attempt", "a sign"]
    game_flag(game_id=game_id, reasons=reasons, conclusive=False)


def test_admin_reviews_flags_in_bulk(staff_client, daily, make_user):
    from games.daily.services.attempts import daily_start

    user, _ = make_user()
    game, _ = daily_start(user=user, day=daily.date, mode=daily.mode)
    Game.objects.filter(pk=game.pk).update(flag_reason="inhuman timing")
    response = staff_client.post(
        "/admin/games/game/", {"action": "clear_flags", "_selected_action": [game.pk]}
    )
    assert response.status_code == 302
    assert Game.objects.get(pk=game.pk).flag_review == FlagReview.CLEARED
    staff_client.post(
        "/admin/games/game/", {"action": "confirm_flags", "_selected_action": [game.pk]}
    )
    assert Game.objects.get(pk=game.pk).flag_review == FlagReview.CONFIRMED


def test_a_flagged_attempts_page_shows_the_evidence_and_reviews_in_one_click(
    staff_client, daily, make_user, clock
):
    """The reviewer sees the linked accounts, what they share, the net line, the timing, and
    clears or confirms with one button."""
    from rest_framework.test import APIClient

    from config.browser import BROWSER_COOKIE
    from games.daily.integrity import game_integrity_check
    from games.models import AttemptLink

    games = []
    for name in ("scout", "main"):
        _, key = make_user(name)
        client = APIClient(REMOTE_ADDR="203.0.113.9")
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        client.cookies[BROWSER_COOKIE] = "b" * 32
        start = client.post(f"/api/v1/daily/{DAY.isoformat()}/D1N/start").json()
        body = {"seq": start["seq"], "action": "resign"}
        games.append(client.post(f"/api/v1/games/{start['id']}/actions", body, format="json"))
    scout, main = (g.json()["id"] for g in games)
    game_integrity_check(game_id=scout)
    game_integrity_check(game_id=main)
    assert AttemptLink.objects.filter(game_id=main, other_id=scout, same_browser=True).exists()
    # A link alone flags nothing: the reviewer finds it in the queue of linked attempts.
    assert Game.objects.get(pk=main).flag_reason == ""
    linked = staff_client.get("/admin/games/game/?flag=linked").content.decode()
    assert f"/admin/games/game/{main}/change/" in linked
    page = staff_client.get(f"/admin/games/game/{main}/change/").content.decode()
    for words in ("Link: same browser as scout", "scout&#x27;s attempt",
                  "same browser and address", "without the undone actions", "Follows the solver",
                  "Timing: too few actions", "not flagged", "203.0.113.9"):  # fmt: skip
        assert words in page, words
    assert "Clear: fair play" not in page
    flag_review_game(main)
    flag_review_game(scout)
    page = staff_client.get(f"/admin/games/game/{main}/change/").content.decode()
    assert "Clear: fair play" in page and "Confirm: cheating" in page
    review = f"/admin/games/game/{main}/review/confirmed/"
    assert staff_client.get(review).status_code == 405
    response = staff_client.post(review)
    assert response.status_code == 302 and response["Location"].endswith(f"/{main}/change/")
    assert Game.objects.get(pk=main).flag_review == FlagReview.CONFIRMED
    queue = staff_client.get("/admin/games/game/?flag=pending").content.decode()
    assert f"/admin/games/game/{scout}/change/" in queue
    assert f"/admin/games/game/{main}/change/" not in queue


@pytest.mark.parametrize("action", ["clear_flags", "confirm_flags"])
def test_view_only_staff_cannot_review_flags_in_bulk(client, daily, make_user, action):
    """The bulk actions need the change permission the per-game buttons need: a staff user
    with only `games.view_game` gets the list, not the review."""
    from django.contrib.auth.models import Permission

    from games.daily.services.attempts import daily_start

    user, _ = make_user()
    game, _ = daily_start(user=user, day=daily.date, mode=daily.mode)
    Game.objects.filter(pk=game.pk).update(flag_reason="inhuman timing")
    viewer, _ = make_user("viewer")
    viewer.is_staff = True
    viewer.save()
    viewer.user_permissions.add(Permission.objects.get(codename="view_game"))
    client.force_login(viewer)
    assert client.get("/admin/games/game/").status_code == 200
    assert client.post(f"/admin/games/game/{game.pk}/review/cleared/").status_code == 403
    client.post("/admin/games/game/", {"action": action, "_selected_action": [game.pk]})
    assert Game.objects.get(pk=game.pk).flag_review == FlagReview.PENDING
