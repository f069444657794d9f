"""Lighthouse scores of every page: performance, accessibility, best practices and SEO.

How to run (PostgreSQL at 127.0.0.1:5432 as `postgres` with trust auth, Redis at
127.0.0.1:6379, Debian's Chromium at /usr/bin/chromium, and the npm package `lighthouse`
installed outside the project)::

    (mkdir -p /tmp/lh && cd /tmp/lh && npm install lighthouse)
    flock /tmp/klondike-bench.lock .venv/bin/python bench/lighthouse.py \\
        --lighthouse /tmp/lh/node_modules/.bin/lighthouse

What it does: re-creates the database `klondike_bench_lighthouse` and Redis db 11
(bench/harness.py), runs `collectstatic` and starts gunicorn with DEBUG off, as in
production. Through the API it signs a player up (with a session), deals a casual game and
plays a move (for `/play/<id>`), and plays and resigns another (for its replay). Then it runs
Lighthouse (mobile, its default: a phone's screen, simulated slow 4G and CPU) on each page,
one at a time, the signed-in pages with the player's session cookie, and prints the four
scores per page against the target (95). The JSON and HTML reports go to `--out`
(var/lighthouse-reports/, about 1 MB a page, not kept in git).
"""

from __future__ import annotations

import argparse
import contextlib
import http.cookiejar
import json
import os
import secrets
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Iterator
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
CHROME_FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu"]
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
TARGET = 95
CODE = "KL1-D1N-AAAAAAG"  # AD is the top of column 1
LIGHTHOUSE_TIMEOUT_S = 300
ATTEMPTS = 3


class Client:
    """The API as a browser page calls it: a cookie jar (session, CSRF) and JSON."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def cookie(self, name: str) -> str:
        return next(c.value for c in self.jar if c.name == name and c.value is not None)

    def call(self, method: str, path: str, body: object = None) -> dict[str, object]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if method != "GET":
            headers["X-CSRFToken"] = self.cookie("csrftoken")
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.base_url + path, data=data, method=method, headers=headers
        )
        with self.opener.open(request, timeout=30) as response:
            raw = response.read()
        return dict(json.loads(raw)) if raw else {}


def ranked_attempt(base_url: str, token: str) -> int:
    """A verified player's (`token`) ranked attempt at today's first daily, resigned (any
    move may be illegal on the day's deal): the id of a shared result (/share/<id>)."""

    def call(method: str, path: str, body: object = None) -> dict[str, object]:
        request = urllib.request.Request(
            base_url + path,
            data=None if body is None else json.dumps(body).encode(),
            method=method,
            headers={"Content-Type": "application/json", "Authorization": f"Token {token}"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return dict(json.loads(response.read()))

    today = call("GET", "/api/v1/daily")
    challenges = today["challenges"]
    assert isinstance(challenges, list) and challenges, today
    game = call("POST", f"/api/v1/daily/{today['date']}/{challenges[0]['mode']}/start")
    call("POST", f"/api/v1/games/{game['id']}/actions", {"action": "resign", "seq": 0})
    return int(str(game["id"]))


def prepare(base_url: str) -> tuple[Client, str, int, int]:
    """A signed-in player with a game in progress and a finished one: (client, name, id of the
    game in progress, id of the finished one)."""
    client = Client(base_url)
    client.call("GET", "/api/v1/auth/csrf")
    name = f"lh{secrets.token_hex(3)}"
    client.call(
        "POST", "/api/v1/auth/register", {"username": name, "password": secrets.token_hex(8)}
    )
    finished = client.call("POST", "/api/v1/games", {"code": CODE})
    seq = client.call(
        "POST", f"/api/v1/games/{finished['id']}/actions", {"action": "tap", "from": "t1", "seq": 0}
    )["seq"]
    client.call("POST", f"/api/v1/games/{finished['id']}/actions", {"action": "resign", "seq": seq})
    playing = client.call("POST", "/api/v1/games", {"code": CODE})
    client.call(
        "POST", f"/api/v1/games/{playing['id']}/actions", {"action": "tap", "from": "t1", "seq": 0}
    )
    return client, name, int(str(playing["id"])), int(str(finished["id"]))


@contextlib.contextmanager
def signed_in_chromium(base_url: str, client: Client) -> Iterator[int]:
    """A headless Chromium holding the player's session cookie; yields its DevTools port, for
    Lighthouse to run in (a Cookie header of Lighthouse's own is replaced by the browser's
    cookies on the page's API calls)."""
    from playwright.sync_api import sync_playwright

    port = free_port()
    with tempfile.TemporaryDirectory() as profile:
        chromium = subprocess.Popen(
            [CHROMIUM, *CHROME_FLAGS, f"--remote-debugging-port={port}",
             f"--user-data-dir={profile}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.connect_over_cdp(f"http://{HOST}:{port}")
                cookies = [
                    {"name": c.name, "value": c.value or "", "url": base_url} for c in client.jar
                ]
                browser.contexts[0].add_cookies(cookies)  # type: ignore[arg-type]
            yield port
        finally:
            chromium.terminate()
            chromium.wait(timeout=30)


def lighthouse(binary: str, url: str, out: Path, port: int | None) -> dict[str, int]:
    """Runs Lighthouse on `url` (mobile), in a Chromium of its own, or in the one at DevTools
    `port` with its cookies kept; writes `out`.report.json and .html; returns the four scores
    out of 100."""
    command = [
        binary,
        url,
        "--quiet",
        "--output=json",
        "--output=html",
        f"--output-path={out}",
        f"--only-categories={','.join(CATEGORIES)}",
    ]
    if port:
        command += [f"--port={port}", "--disable-storage-reset"]
    else:
        command.append(f"--chrome-flags={' '.join(CHROME_FLAGS)}")
    env = {**os.environ, "CHROME_PATH": CHROMIUM}
    for attempt in range(ATTEMPTS):
        # Lighthouse sometimes loses the page load's trace (NO_NAVSTART) and asks to run again.
        done = subprocess.run(command, env=env, timeout=LIGHTHOUSE_TIMEOUT_S)
        if done.returncode == 0:
            break
        print(f"lighthouse failed on {url} (attempt {attempt + 1} of {ATTEMPTS})", flush=True)
    else:
        raise RuntimeError(f"lighthouse failed {ATTEMPTS} times on {url}")
    report = json.loads(out.with_suffix(".report.json").read_text())
    return {c: round(100 * (report["categories"][c]["score"] or 0)) for c in CATEGORIES}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--lighthouse", default="lighthouse", help="the lighthouse CLI")
    parser.add_argument("--out", type=Path, default=ROOT / "var" / "lighthouse-reports")
    parser.add_argument("--pages", nargs="*", help="only these reports (landing, daily, ...)")
    parser.add_argument("--db", default="klondike_bench_lighthouse")
    parser.add_argument("--redis-db", type=int, default=11)
    args = parser.parse_args()
    args.port, args.workers, args.threads = free_port(), 2, 1
    args.secret_key = secrets.token_urlsafe(50)
    env = server_env(args)
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    # One verified player (bench0), whose ranked attempt is the shared result, and whose
    # profile the signed-in player sees as another's (its Follow line).
    (token,) = fresh_stores(env, args.db, args.redis_db, users=1)
    django_run(env, "manage.py", "collectstatic", "--noinput")
    args.out.mkdir(parents=True, exist_ok=True)
    base_url = f"http://{HOST}:{args.port}"
    rows = []
    with serving(env, "lighthouse-gunicorn.log", args.port):
        client, name, playing, finished = prepare(base_url)
        shared = ranked_attempt(base_url, token)
        pages = [  # (report name, path, shown as, signed in)
            ("landing", "/", "/", False),
            ("daily", "/daily", "/daily", False),
            ("leaderboards", "/leaderboards", "/leaderboards", False),
            ("signin", "/signin", "/signin", False),
            ("play", "/play", "/play", False),
            ("play-game", f"/play/{playing}", "/play/<id> (signed in)", True),
            ("replay", f"/replay/{finished}", "/replay/<id> (signed in)", True),
            ("profile", f"/u/{name}", "/u/<name>, own (signed in)", True),
            ("daily-signed-in", "/daily", "/daily (signed in)", True),
            ("calendar", "/daily/calendar", "/daily/calendar", False),
            ("calendar-signed-in", "/daily/calendar", "/daily/calendar (signed in)", True),
            ("ratings", "/leaderboards?board=ratings&draw=1", "/leaderboards, ratings", False),
            (
                "following",
                "/leaderboards?following=1",
                "/leaderboards, following (signed in)",
                True,
            ),
            ("other-profile", "/u/bench0", "/u/<name>, another's (signed in)", True),
            ("share", f"/share/{shared}", "/share/<id>", False),
        ]
        pages = [p for p in pages if not args.pages or p[0] in args.pages]
        with signed_in_chromium(base_url, client) as port:
            for label, path, shown, signed_in in pages:
                out = args.out / label
                scores = lighthouse(
                    args.lighthouse, base_url + path, out, port if signed_in else None
                )
                rows.append((shown, scores))
                print(shown, scores, flush=True)
    print(f"\n| page | {' | '.join(CATEGORIES)} |\n|---|{'---|' * len(CATEGORIES)}")
    for shown, scores in rows:
        cells = [f"{s}" if s >= TARGET else f"**{s}**" for s in scores.values()]
        print(f"| `{shown}` | {' | '.join(cells)} |")
    below = [(shown, c, s) for shown, scores in rows for c, s in scores.items() if s < TARGET]
    print(f"\ntarget ≥ {TARGET} in every category: {'met' if not below else f'missed {below}'}")


if __name__ == "__main__":
    main()
