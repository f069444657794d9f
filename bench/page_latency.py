"""The page's feel: time from a click to the answer drawn on the board, in a real browser.

How to run (PostgreSQL at 127.0.0.1:5432 as `postgres` with trust auth, Redis at
127.0.0.1:6379, Debian's Chromium at /usr/bin/chromium)::

    .venv/bin/python bench/page_latency.py                  # loopback
    .venv/bin/python bench/page_latency.py --latency 150    # 150 ms added to every request

What it does: re-creates the database `klondike_bench_page` and Redis db 15 (bench/harness.py),
starts gunicorn (DEBUG off, after `collectstatic`, as in production), signs a new player up
through the page in headless Chromium (Playwright, `--latency` ms of round-trip
time added through the DevTools protocol), deals KL1-D1N-AAAAAAG, then `--rounds` times taps
AD to its foundation and clicks Undo. For each action it records the time from the click's
pointerdown to the first frame after the board changed, and the request's own time from the
browser's resource timing. The tap reveals no card, so the page draws it before its answer
(an optimistic move); an undo waits for the server's. Prints the medians, minimum and maximum
of each. Timing is measured here, never asserted in a test: a busy machine would fail the
test, not the page.
"""

from __future__ import annotations

import argparse
import re
import secrets
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import (  # noqa: E402
    HOST,
    django_run,
    free_port,
    fresh_stores,
    server_env,
    serving,
)

CHROMIUM = "/usr/bin/chromium"
CODE = "KL1-D1N-AAAAAAG"  # AD is the top of column 1
INSTRUMENT = """() => {
    // The click's start, and the first frame after the board changed.
    document.addEventListener("pointerdown", () => {
        window.__t0 = performance.now();
        window.__t1 = null;
    }, true);
    new MutationObserver(() => requestAnimationFrame(() => {
        window.__t1 ??= performance.now();
    })).observe(document.querySelector(".board"), { subtree: true, childList: true });
}"""


def measure(
    base_url: str, rounds: int, latency_ms: float
) -> tuple[dict[str, list[float]], list[float]]:
    """(click-to-drawn times by action, request times) in ms, for `rounds` taps and undos."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_context(base_url=base_url).new_page()
        if latency_ms:
            cdp = page.context.new_cdp_session(page)
            cdp.send("Network.enable")
            cdp.send(
                "Network.emulateNetworkConditions",
                {"offline": False, "latency": latency_ms, "downloadThroughput": -1,
                 "uploadThroughput": -1},
            )  # fmt: skip
        page.goto("/signup")
        page.fill("#username", f"page{secrets.token_hex(4)}")
        page.fill("#password", "correct-horse-battery")
        page.click("button[type=submit]")
        page.wait_for_url(re.compile(r"/daily$"))
        page.goto("/play")
        page.wait_for_selector("#new-game-dialog[open]")
        page.fill("#deal-code", CODE)
        page.click("[data-start]")
        page.wait_for_url(re.compile(r"/play/\d+$"))
        page.wait_for_selector(".board .card.up")
        page.evaluate(INSTRUMENT)
        samples: dict[str, list[float]] = {"tap": [], "undo": []}
        for _ in range(rounds):
            for name, click, drawn in (
                ("tap", '[data-pile="t1"] [data-card="AD"]', '[data-pile="f3"] [data-card="AD"]'),
                ("undo", "[data-undo]", '[data-pile="t1"] [data-card="AD"]'),
            ):
                page.wait_for_timeout(400)  # a player's pace: no tap inside a double tap
                page.click(click)
                page.wait_for_selector(drawn)
                for _ in range(200):
                    if page.evaluate("window.__t1 !== null"):
                        break
                    page.wait_for_timeout(10)
                samples[name].append(page.evaluate("window.__t1 - window.__t0"))
                # The answer is in (a tap is drawn before it): the next click sees it.
                page.wait_for_selector('.board[aria-busy="false"]')
        requests = page.evaluate(
            """(n) => performance.getEntriesByType("resource")
                .filter(e => e.name.endsWith("/actions")).slice(-n)
                .map(e => e.responseEnd - e.requestStart)""",
            2 * rounds,
        )
        browser.close()
    return samples, requests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=10, help="taps and undos, each")
    parser.add_argument("--latency", type=float, default=0.0, help="ms added per round trip")
    parser.add_argument("--db", default="klondike_bench_page")
    parser.add_argument("--redis-db", type=int, default=15)
    args = parser.parse_args()
    # One player sends one request at a time: one worker serves it (and leaves the machine's
    # other core to whatever else runs).
    args.port, args.workers, args.threads = free_port(), 1, 1
    args.secret_key = secrets.token_urlsafe(50)
    env = server_env(args)
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    fresh_stores(env, args.db, args.redis_db, users=0)
    django_run(env, "manage.py", "collectstatic", "--noinput")
    with serving(env, "page-latency-gunicorn.log", args.port):
        samples, requests = measure(f"http://{HOST}:{args.port}", args.rounds, args.latency)
    print(f"click to board drawn, {args.latency:.0f} ms added latency, {args.rounds} rounds:")
    for name, times in samples.items():
        print(
            f"  {name}: median {statistics.median(times):.1f} ms, min {min(times):.1f}, "
            f"max {max(times):.1f}"
        )
    print(f"  the request itself: median {statistics.median(requests):.1f} ms")


if __name__ == "__main__":
    main()
