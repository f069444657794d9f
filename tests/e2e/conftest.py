"""Browser tests: a real headless Chromium against the live Django server.

Chromium is Debian's (`/usr/bin/chromium`); Playwright's own browser downloads are not used.
Without it the tests skip locally but fail under CI (`CI` set), so CI can never pass by
skipping them.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import time
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path(os.environ.get("KLONDIKE_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).parent / "artifacts"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
LANDSCAPE_PHONE = {"width": 844, "height": 390}
SCREENS = [PHONE, LANDSCAPE_PHONE, DESKTOP]  # the sizes every page is shot at
PASSWORD = "correct-horse-battery"

_names = itertools.count()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        message = f"Chromium not found at {CHROMIUM}"
        if os.environ.get("CI"):
            pytest.fail(f"{message}: CI must run the browser tests (install chromium)")
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop running in this thread, and Django then
    # refuses database calls (flushing between tests) as if they came from async code. They
    # do not: everything here is synchronous, so the guard is lifted while the browser runs.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            yield browser
            browser.close()
    finally:
        del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]


@pytest.fixture
def base_url(live_server: Any, transactional_db: None) -> str:
    """The live server's address; its thread sees what the test commits, and vice versa."""
    return str(live_server.url)


@contextlib.contextmanager
def watched_page(browser: Any, base_url: str, **options: Any) -> Iterator[Any]:
    """A page in a fresh browser context (no cookies; `options` for the context); page
    errors, and anything the page's Content-Security-Policy blocked, fail the test."""
    context = browser.new_context(**{"viewport": DESKTOP, "base_url": base_url, **options})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "console",
        lambda message: "Content Security Policy" in message.text and errors.append(message.text),
    )
    page.set_default_timeout(15_000)
    yield page
    # Let requests in flight finish before the database is flushed: a server thread still
    # inside a move's transaction would deadlock with the flush's TRUNCATE (PostgreSQL).
    page.wait_for_load_state("networkidle")
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.fixture
def page(browser: Any, base_url: str) -> Iterator[Any]:
    """A page of a fresh browser context (see `watched_page`)."""
    with watched_page(browser, base_url) as page:
        yield page


@pytest.fixture
def touch_page(browser: Any, base_url: str) -> Iterator[Any]:
    """Like `page`, in a context with a touch screen."""
    with watched_page(browser, base_url, has_touch=True) as page:
        yield page


def wait_until(page: Any, expression: str, arg: Any = None, timeout_s: float = 15.0) -> None:
    """Polls a JavaScript expression (or a function of `arg`) until it is truthy.
    `page.wait_for_function` cannot serve: it runs its predicate through `eval`, which the
    page's Content-Security-Policy refuses; `page.evaluate` goes through the debugger."""
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression, arg):
        assert time.monotonic() < deadline, f"waited {timeout_s} s for: {expression}"
        page.wait_for_timeout(50)


def sign_up(page: Any, username: str | None = None, *, verified: bool = True) -> str:
    """Signs a new user up through the sign-up form; returns the name. Unless `verified` is
    False, the account then gets the verified address `<name>@example.com`, as if its link
    had been opened (ranked play needs one; tests/accounts test the link itself)."""
    name = username or f"e2e{next(_names)}"
    page.goto("/signup")
    page.fill("#username", name)
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/daily$"))
    if verified:
        from django.utils import timezone

        from accounts.models import User

        User.objects.filter(username=name).update(
            email=f"{name}@example.com", email_verified_at=timezone.now()
        )
    return name


def start_casual(page: Any, code: str) -> int:
    """Deals `code` through the new-game dialog; returns the game id."""
    page.goto("/play")
    page.wait_for_selector("#new-game-dialog[open]")
    page.fill("#deal-code", code)
    page.click("[data-start]")
    page.wait_for_url(re.compile(r"/play/\d+$"))
    page.wait_for_selector(".board .card.up")
    return int(page.url.rsplit("/", 1)[1])


def start_ranked(page: Any, mode: str = "D1N") -> int:
    """Starts today's ranked attempt in `mode` from the daily page (confirming the one-attempt
    warning); returns the game id."""
    page.goto("/daily")
    page.click(f'[data-mode="{mode}"] [data-start]')
    page.click("dialog[open] [data-confirm]")
    page.wait_for_url(re.compile(r"/play/\d+$"))
    page.wait_for_selector(".board .card.up")
    return int(page.url.rsplit("/", 1)[1])


def resign_todays_ranked_attempt(page: Any) -> str:
    """The signed-in page starts today's draw-1 ranked attempt and resigns it at once, through
    the API; returns the day, ranked (in the scaled run, the test is the worker)."""
    day = str(page.request.get("/api/v1/daily").json()["date"])
    page.evaluate(
        """async (day) => {
            const headers = {"X-CSRFToken": document.cookie.match(/csrftoken=([^;]+)/)[1],
                             "Content-Type": "application/json"};
            const game = await (await fetch(`/api/v1/daily/${day}/D1N/start`,
                {method: "POST", headers})).json();
            await fetch(`/api/v1/games/${game.id}/actions`, {method: "POST", headers,
                body: JSON.stringify({action: "resign", seq: game.seq})});
        }""",
        day,
    )
    from django.conf import settings

    if not getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False):
        from games.tasks import rank_daily

        rank_daily(day, "D1N")
    return day


def play_rated_boards(
    boards: list[list[tuple[str, bool, int]]], mode: str = "D1N", first: date | None = None
) -> list[date]:
    """Final, rated daily boards of `mode`, one a day from `first` (40 days ago unless given):
    each board's (player, won, leaderboard score) finish a ranked attempt in that order, and the
    board closes as at 01:00 the day after next (the server's clock travels; the page's never
    does). A player missing is made, with a verified address. Returns the boards' days."""
    import time_machine
    from django.utils import timezone

    from accounts.models import User
    from games import tasks
    from games.daily.services import attempts, closing, deals, ratings
    from games.models import Game

    first = first or timezone.now().date() - timedelta(days=40)
    days = [first + timedelta(days=k) for k in range(len(boards))]
    for day, results in zip(days, boards, strict=True):
        noon = datetime.combine(day, datetime.min.time(), tzinfo=UTC) + timedelta(hours=12)
        with time_machine.travel(noon, tick=False):
            daily = deals.daily_deal_get_or_create(day=day, mode=mode)
            for name, won, score in results:
                user = User.objects.filter(username=name).first() or User.objects.create_user(
                    username=name, password=PASSWORD, email=f"{name}@example.com",
                    email_verified_at=timezone.now(),
                )  # fmt: skip
                game, _ = attempts.daily_start(user=user, day=day, mode=mode)
                Game.objects.filter(pk=game.pk).update(
                    status="won" if won else "resigned", leaderboard_score=score, score=score,
                    moves=100, elapsed_ms=1000, finished_at=game.started_at + timedelta(seconds=1),
                )  # fmt: skip
        with time_machine.travel(noon + timedelta(days=1, hours=13, minutes=1), tick=False):
            assert closing.daily_close(daily_id=daily.pk)
            # The close queued its rating on the background thread: one at a time, so that
            # the next board's writes never meet it.
            tasks._analysis_thread.submit(lambda: None).result()
    ratings.ratings_update(draw=int(mode[1]))
    return days


def pile_cards(page: Any, pile: str) -> list[str | None]:
    """The cards drawn in a pile, bottom to top; None for a face-down card."""
    cards = page.eval_on_selector_all(
        f'[data-pile="{pile}"] .card', "nodes => nodes.map(n => n.dataset.card || null)"
    )
    return list(cards)


def centre(page: Any, selector: str, dy: float | None = None) -> tuple[float, float]:
    """A point in an element: its centre, or `dy` pixels below its top."""
    box = page.locator(selector).bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + (box["height"] / 2 if dy is None else dy)


def touch_drag(page: Any, start: tuple[float, float], end: tuple[float, float]) -> None:
    """Drags a finger from `start` to `end` in ten steps: a real touch (CDP), so the browser
    makes its pointer events as for a phone's screen."""
    (x, y), (tx, ty) = start, end
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for i in range(1, 11):
        point = {"x": x + (tx - x) * i / 10, "y": y + (ty - y) * i / 10}
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def drag(page: Any, card: str, onto: str) -> None:
    """Drags a card with the mouse, in steps, onto another card or pile."""
    source = page.locator(f'.board [data-card="{card}"]').bounding_box()
    target = page.locator(onto).bounding_box()
    page.mouse.move(source["x"] + source["width"] / 2, source["y"] + 8)
    page.mouse.down()
    page.mouse.move(target["x"] + target["width"] / 2, target["y"] + 12, steps=10)
    page.mouse.up()


def follow_hints_to_the_end(page: Any) -> str:
    """Plays the hint endpoint's moves through the page's own API until the game ends;
    returns its status."""
    for _ in range(400):
        state = page.evaluate(
            """async () => {
                const move = await klondike.hint();
                if (move) await klondike.act(move);
                return klondike.game().status;
            }"""
        )
        if state != "playing":
            break
    return str(state)


def status(page: Any) -> dict[str, str]:
    return {key: page.inner_text(f"[data-{key}]").strip() for key in ("score", "moves", "passes")}


def settle(page: Any) -> None:
    """Waits until the page has laid itself out for its present size: two frames (resize
    observers run before the first), and no card in flight."""
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    wait_until(page, "!document.querySelector('.board .card.moving')")


def screenshot(page: Any, name: str) -> None:
    """Saves the page at each of `SCREENS` (artifacts, git-ignored; CI keeps them); restores
    the size."""
    ARTIFACTS.mkdir(exist_ok=True)
    size = page.viewport_size
    for viewport in SCREENS:
        page.set_viewport_size(viewport)
        settle(page)
        label = f"{viewport['width']}x{viewport['height']}"
        page.screenshot(path=str(ARTIFACTS / f"{name}-{label}.png"), full_page=True)
    page.set_viewport_size(size)


@pytest.fixture(autouse=True)
def ratings_settle_in_five_boards(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pages' boards have three to five players, which say little: a real rating settles
    (deviation at most rating.PROVISIONAL_SIGMA, 110) after a score of them. Here five boards
    settle one, and one or two do not (the live server runs in this process)."""
    from games.daily import rating

    monkeypatch.setattr(rating, "PROVISIONAL_SIGMA", 240.0)
