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
from games.daily import integrity
from games.daily.ranking import is_abort
from games.daily.services import closing as daily_closing
from games.daily.services import deals as daily_deals
from games.daily.services import origins as daily_origins
from games.daily.services import rankings as daily_rankings
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


def _close(clock: Any, daily: DailyDeal) -> None:
    clock(at(DAY + timedelta(days=1), 1, 30))
    assert daily_closing.daily_close(daily_id=daily.pk)


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
    log = ["draw", "draw", "draw"]  # (an undo of a first-pass draw is refused in ranked play)
    for notation in log:
        game = _act(owner, game, notation)
    game = _act(owner, game, "resign")
    replay = owner.get(f"/api/v1/games/{game['id']}/replay").json()
    stock = engine.full_view(_deal_state(daily))["stock"]
    assert [a["revealed"] for a in replay["actions"]] == [
        [stock[0]], [stock[1]], [stock[2]], []
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


# --- Second accounts, scripts and pumping (the attacks of issue "Fair play, round two") ---


def _browser(client: APIClient, browser_id: str) -> APIClient:
    from config.browser import BROWSER_COOKIE

    client.cookies[BROWSER_COOKIE] = browser_id
    return client


def _established(user: Any) -> Any:
    """An account that joined weeks before the day."""
    from accounts.models import User

    User.objects.filter(pk=user.pk).update(date_joined=at(DAY - timedelta(days=40), 9))
    return user


def _timed(
    client: APIClient, game: dict[str, Any], notations: list[str], clock: Any, gap_ms: int
) -> dict[str, Any]:
    """Send `notations` `gap_ms` apart on the server's clock (time stands still otherwise)."""
    from django.utils import timezone

    now = timezone.now()
    for notation in notations:
        now += timedelta(milliseconds=gap_ms)
        clock(now)
        game = _act(client, game, notation)
    return game


def _human(
    client: APIClient, game: dict[str, Any], notations: list[str], clock: Any
) -> dict[str, Any]:
    """Send `notations` at a human's uneven pace (0.9 to 4.3 s apart)."""
    from django.utils import timezone

    now = timezone.now()
    for i, notation in enumerate(notations):
        now += timedelta(milliseconds=(900, 1400, 2300, 1100, 4300, 1700)[i % 6] + 37 * (i % 7))
        clock(now)
        game = _act(client, game, notation)
    return game


def _some_moves(daily: DailyDeal, count: int, *, seed: int = 0) -> list[str]:
    """`count` legal actions of a player of its own (no undo, no resign)."""
    import random

    chooser = random.Random(seed)
    state = _deal_state(daily)
    line = []
    for _ in range(count):
        legal = [a for a in state.legal_moves() if not isinstance(a, engine.Resign | engine.Undo)]
        if not legal:
            break
        action = chooser.choice(legal)
        state.apply(action)
        line.append(engine.format_action(action))
    return line


def _flag(game: dict[str, Any]) -> str:
    """The integrity check's verdict on a finished game (the task a commit sends)."""
    integrity.game_integrity_check(game_id=game["id"])
    return Game.objects.get(pk=game["id"]).flag_reason


def _own_line(monkeypatch: Any) -> None:
    """Let the solver's line stand for a winning line of the player's own (at par): the
    solver-line rule, conclusive, is left out, so that the other rules are seen alone."""
    monkeypatch.setattr(integrity, "SOLVER_LINE_SHARE", 1.01)


def test_a_browser_link_flags_with_a_sign_of_the_attempts_own_whatever_the_order(
    daily, make_user, clock, monkeypatch
):
    """Order does not dodge the rule: A, a new account, starts first and finishes last, with a
    first ranked win at par; B played from the same browser meanwhile."""
    _own_line(monkeypatch)
    _, a_key = make_user("main")
    _, b_key = make_user("scout")
    main = _browser(_client(a_key, REMOTE_ADDR="203.0.113.7"), "a" * 32)
    scout = _browser(_client(b_key, REMOTE_ADDR="203.0.113.7"), "a" * 32)
    a_game = _start(main).json()
    b_game = _timed(scout, _start(scout).json(), _some_moves(daily, 20), clock, 1200)
    b_game = _act(scout, b_game, "resign")
    assert _flag(b_game) == ""  # A is still playing; B itself has no sign
    a_game = _human(main, a_game, daily.solution.split(), clock)
    reason = _flag(a_game)
    assert "same browser as scout's attempt" in reason
    assert "a new account's first ranked game, won in" in reason
    stored = Game.objects.get(pk=a_game["id"])
    assert stored.under_review and not stored.flag_withheld  # a link: a reviewer decides
    assert Game.objects.get(pk=b_game["id"]).flag_reason == ""


def test_a_household_on_one_browser_is_not_flagged_and_counts(daily, make_user, clock, api_client):
    """Seen 5 of issue 50: two or three accounts on one computer, in turn, one of them giving up
    at once: links for reviewers, no flag, on the board with no mark, rated."""
    from games.daily.services import ratings as daily_ratings
    from games.models import RatingChange

    names = ["mum", "dad", "kid"]
    games = []
    for i, name in enumerate(names):
        user, key = make_user(name)
        _established(user)
        client = _browser(_client(key, REMOTE_ADDR="198.51.100.40"), "h" * 32)
        moves = [] if i == 0 else _some_moves(daily, 25 + i, seed=i)  # mum gives up at once
        game = _timed(client, _start(client).json(), moves, clock, 1700)
        games.append(_act(client, game, "resign"))
    for game in games:
        assert _flag(game) == ""
    kid = Game.objects.get(pk=games[2]["id"])
    assert any("same browser as mum's attempt" in link for link in kid.flag_evidence["links"])
    _close(clock, daily)
    board = api_client.get(f"/api/v1/leaderboards/daily/{DAY.isoformat()}/D1N").json()
    assert sorted(e["user"] for e in board["entries"]) == sorted(names)
    assert not any("under_review" in e for e in board["entries"])
    daily_ratings.ratings_update(draw=1)
    # Mum's attempt is an abort (no move): it counts for no rating, by its own rule, not a flag.
    assert set(
        RatingChange.objects.filter(daily=daily).values_list("user__username", flat=True)
    ) == {
        "dad",
        "kid",
    }


def test_padding_a_solver_line_with_undos_changes_no_verdict(daily, make_user, clock):
    """The solver's line with every fifth card move sent as move, undo, move again (where
    the undo is allowed: one that would hide a card turned up is refused in ranked play)."""
    _, key = make_user("fresh")
    client = _client(key)
    state = _deal_state(daily)
    padded, card_moves = [], 0
    for notation in daily.solution.split():
        state.apply(engine.parse_action(notation))
        padded.append(notation)
        if notation not in ("draw", "recycle"):
            card_moves += 1
            if card_moves % 5 == 0 and not state.last_action_revealed and not state.is_over:
                padded += ["undo", notation]
    game = _timed(client, _start(client).json(), padded, clock, 1100)  # human pace
    assert game["status"] == "won"
    reason = _flag(game)
    assert "follows the solver's line for 100% of its net moves" in reason
    stored = Game.objects.get(pk=game["id"])
    assert stored.flag_withheld and stored.undos > 3
    assert stored.flag_evidence["net_moves"] == daily.par


def test_honest_neighbours_behind_one_address_are_not_flagged_and_stay_on_the_final_board(
    daily, make_user, clock, api_client
):
    names = ["first", "second", "third"]
    keys = {name: make_user(name)[1] for name in names}
    games = []
    for i, name in enumerate(names):  # one after the other, each in a browser of their own
        client = _browser(_client(keys[name], REMOTE_ADDR="198.51.100.20"), str(i) * 32)
        game = _timed(client, _start(client).json(), _some_moves(daily, 15 + i, seed=i), clock,
                      1300)  # fmt: skip
        games.append(_act(client, game, "resign"))  # even a plain resign
    for game in games:
        assert _flag(game) == ""
    from games.models import AttemptLink

    assert AttemptLink.objects.filter(same_address=True, same_browser=False).count() == 6
    _close(clock, daily)
    board = api_client.get(f"/api/v1/leaderboards/daily/{DAY.isoformat()}/D1N").json()
    assert sorted(e["user"] for e in board["entries"]) == names
    assert not any("under_review" in e for e in board["entries"])


def _honest_group(
    daily: DailyDeal, make_user: Any, clock: Any, *, size: int, at_once: bool, new_every: int
) -> list[int]:
    """`size` honest players on one address, each in a browser of their own, playing through the
    services (faster than the API): one in 20 gives up at 2-5 moves, the others play 8-20 moves
    of their own at an uneven human pace and resign; every `new_every`-th account joined 2 to
    60 hours before (0: none). `at_once`: all start before anyone plays (a school lab), else
    one after the other over the day (a carrier's NAT). Returns the games' ids."""
    import random

    from django.utils import timezone

    from accounts.models import User
    from games import services as game_services
    from games.daily.services.attempts import daily_start

    chooser = random.Random(size)
    players = []
    for i in range(size):
        user, _ = make_user()
        if new_every and i % new_every == 0:
            age = timedelta(hours=chooser.uniform(2, 60))
            User.objects.filter(pk=user.pk).update(date_joined=timezone.now() - age)
        else:
            _established(user)
        user.refresh_from_db()
        moves = chooser.randint(2, 5) if i % 20 == 7 else chooser.randint(8, 20)
        players.append((user, [*_some_moves(daily, moves, seed=i), "resign"]))

    def start(user: Any, i: int) -> Game:
        return daily_start(user=user, day=DAY, mode="D1N", address="192.0.2.50",
                           browser=f"{i:032d}")[0]  # fmt: skip

    def play(game: Game, user: Any, line: list[str]) -> None:
        now = timezone.now()
        for notation in line:
            now += timedelta(milliseconds=chooser.randint(700, 6000))
            clock(now)
            game_services.game_action_apply(
                game_id=game.pk, user=user, seq=Game.objects.get(pk=game.pk).seq,
                action=engine.parse_action(notation),
            )  # fmt: skip

    ids = []
    if at_once:
        games = [start(user, i) for i, (user, _) in enumerate(players)]
        for game, (user, line) in zip(games, players, strict=True):
            play(game, user, line)
        ids = [g.pk for g in games]
    else:
        for i, (user, line) in enumerate(players):
            game = start(user, i)
            play(game, user, line)
            ids.append(game.pk)
    return ids


@pytest.mark.parametrize(
    "size, at_once, new_every",
    [(100, True, 0), (60, False, 5), (30, False, 1)],
    ids=["a school lab of 100", "a carrier NAT", "new accounts on one address"],
)
def test_honest_groups_on_one_address_are_not_flagged_and_are_rated(
    daily, make_user, clock, size, at_once, new_every
):
    """Seen 5 of issue 50: on a shared address somebody always gives up early, which flagged
    almost everybody after them. Now every game is linked for reviewers, and nobody is flagged,
    withheld or left out of the ratings."""
    from games.daily.services import ratings as daily_ratings
    from games.models import AttemptLink, RatingChange

    ids = _honest_group(daily, make_user, clock, size=size, at_once=at_once, new_every=new_every)
    for game_id in ids:
        assert integrity.game_integrity_check(game_id=game_id) == ""
    games = Game.objects.filter(pk__in=ids)
    assert not games.exclude(flag_reason="").exists()
    # Every game is linked to the others, for reviewers; the scouts' signs are among them.
    linked = AttemptLink.objects.filter(game_id__in=ids, same_address=True)
    assert linked.values("game_id").distinct().count() == size
    assert sum("which ended after" in " ".join(g.flag_evidence.get("links", [])) for g in games)
    _close(clock, daily)
    assert daily.__class__.objects.get(pk=daily.pk).entries_count == size
    daily_ratings.ratings_update(draw=1)
    # Those who gave up within a few moves without a foundation card aborted: no rating, by
    # its own rule; everyone else is rated.
    played = [
        g
        for g in Game.objects.filter(pk__in=ids)
        if not is_abort(won=g.status == "won", moves=g.moves, foundations=g.foundations)
    ]
    assert 0 < len(played) <= size
    assert RatingChange.objects.filter(daily=daily).count() == len(played)


def test_a_scout_that_resigns_at_once_from_the_same_address_is_a_sign_for_reviewers(
    daily, make_user, clock
):
    """Last round's scout: a script (no browser cookie) resigns at move 0; the main account,
    an old one, then plays a line of its own. On a shared address somebody always gives up
    early, so this alone flags nothing: the reviewer sees the link and the scout's sign."""
    _, b_key = make_user("second")
    a_user, a_key = make_user("main")
    _established(a_user)
    _resign_at_once(_client(b_key, REMOTE_ADDR="203.0.113.7"))
    # A forged X-Forwarded-For does not hide the connection's own address.
    main = _client(a_key, REMOTE_ADDR="203.0.113.7", HTTP_X_FORWARDED_FOR="198.51.100.1")
    game = _timed(main, _start(main).json(), [*_some_moves(daily, 20), "resign"], clock, 1400)
    assert _flag(game) == ""
    links = Game.objects.get(pk=game["id"]).flag_evidence["links"]
    scout = game["id"] - 1
    assert links == [f"same address as second's attempt {scout}, which ended after 0 moves"]
    assert AttemptOrigin.objects.get(game_id=game["id"]).address == "203.0.113.7"


def test_a_scout_from_the_same_address_flags_a_main_account_with_a_sign_of_its_own(
    daily, make_user, clock, monkeypatch
):
    """The scout peeks and resigns; the main account, new, wins its first ranked game at par
    from the same address: flagged (not withheld), and the scout's attempt is named."""
    _own_line(monkeypatch)
    _, b_key = make_user("second")
    _, a_key = make_user("main")
    _resign_at_once(_client(b_key, REMOTE_ADDR="203.0.113.7"))
    main = _client(a_key, REMOTE_ADDR="203.0.113.7")
    game = _human(main, _start(main).json(), daily.solution.split(), clock)
    reason = _flag(game)
    assert "same address as second's attempt" in reason and "ended after 0 moves" in reason
    assert "a new account's first ranked game" in reason
    assert not Game.objects.get(pk=game["id"]).flag_withheld


def test_a_start_from_the_browser_of_a_finished_attempt_is_linked(daily, make_user):
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
    assert _flag(game) == ""  # a link alone: for reviewers
    assert (
        "same browser as second's attempt"
        in Game.objects.get(pk=game["id"]).flag_evidence["links"][0]
    )


def _script(username: str, *, address: str, agent: str, cookie: str = "") -> APIClient:
    """A client that logs in through the API from `address` with `agent` (and the browser id
    `cookie`, if any), then plays with the token and no cookies, as a script does."""
    from config.browser import BROWSER_COOKIE

    login = APIClient(REMOTE_ADDR=address, HTTP_USER_AGENT=agent)
    if cookie:
        login.cookies[BROWSER_COOKIE] = cookie
    body = {"username": username, "password": "correct-horse-battery"}
    answer = login.post("/api/v1/auth/login", body, format="json")
    assert answer.status_code == 200, answer.content
    return _client(answer.json()["token"], REMOTE_ADDR=address, HTTP_USER_AGENT=agent)


def test_scripts_logged_in_from_one_origin_link_as_one_device(daily, make_user, clock, monkeypatch):
    """Seen 3 of issue 50: a script carries no browser id, so a scout that played 44 moves
    linked nothing. Now each token carries the device of its login, and two accounts logged
    in from one origin link as a shared browser does: with a sign of the main attempt's own
    (a new account's first ranked win at par), it is flagged."""
    _own_line(monkeypatch)
    make_user("scout")
    make_user("main")
    agent = "python-requests/2.32"
    scout = _script("scout", address="203.0.113.70", agent=agent)
    game = _human(scout, _start(scout).json(), _some_moves(daily, 44), clock)
    scout_game = _act(scout, game, "resign")
    main = _script("main", address="203.0.113.70", agent=agent)
    main_game = _human(main, _start(main).json(), daily.solution.split(), clock)
    devices = {o.browser for o in AttemptOrigin.objects.all()}
    assert len(devices) == 1 and next(iter(devices)).startswith("device:")
    assert _flag(scout_game) == ""
    reason = _flag(main_game)
    assert "same device (API login) as scout's attempt" in reason
    assert "a new account's first ranked game" in reason
    assert not Game.objects.get(pk=main_game["id"]).flag_withheld


def test_a_tokens_device_is_its_logins_browser_or_origin(daily, make_user):
    """A login from a browser page gives its token that browser's id; a script's login, a
    keyed hash of its address and User-Agent (another address or agent, another device)."""
    from accounts.tokens import DEVICE_PREFIX

    for name in ("a", "b", "c", "d"):
        make_user(name)
    clients = {
        "a": _script("a", address="198.51.100.1", agent="curl/8"),
        "b": _script("b", address="198.51.100.2", agent="curl/8"),
        "c": _script("c", address="198.51.100.1", agent="curl/7"),
        "d": _script("d", address="198.51.100.1", agent="curl/8", cookie="c" * 32),
    }
    for client in clients.values():
        assert _start(client).status_code == 201
    browsers = dict(AttemptOrigin.objects.values_list("game__user__username", "browser"))
    assert browsers["d"] == "c" * 32  # the login's browser, though the script sends no cookie
    assert len({browsers[n] for n in "abc"}) == 3
    assert all(browsers[n].startswith(DEVICE_PREFIX) for n in "abc")
    assert "198.51.100" not in "".join(browsers.values())  # the address cannot be read back


def test_different_addresses_and_browsers_are_not_flagged(daily, make_user):
    _, b_key = make_user()
    _, a_key = make_user()
    _resign_at_once(_client(b_key, REMOTE_ADDR="203.0.113.7"))
    game = _resign_at_once(_client(a_key, REMOTE_ADDR="203.0.113.8"))
    assert _flag(game) == ""


@pytest.mark.parametrize("gap_ms", [5, 160])
def test_a_script_is_caught_by_its_timing(daily, make_user, clock, gap_ms):
    """The bot at 5 ms of the last round, and a script that waits 0.16 s."""
    user, key = make_user()
    _established(user)
    client = _client(key)
    game = _timed(client, _start(client).json(), [*_some_moves(daily, 60), "resign"], clock,
                  gap_ms)  # fmt: skip
    reason = _flag(game)
    assert "inhuman timing" in reason, reason
    assert Game.objects.get(pk=game["id"]).flag_withheld


def test_the_solver_line_copied_at_200_ms_is_flagged(daily, make_user, clock):
    user, key = make_user()
    _established(user)
    client = _client(key)
    game = _timed(client, _start(client).json(), daily.solution.split(), clock, 200)
    assert "follows the solver's line for 100%" in _flag(game)


def test_a_new_accounts_first_win_at_par_is_a_sign_not_a_flag(daily, make_user, clock):
    """Honest newcomers often win in fewer moves than par (the solver's first line): it is
    recorded for reviewers, and flags nothing, not even with a neighbour on the address."""
    old, old_key = make_user("old")
    _established(old)
    neighbour = _client(old_key, REMOTE_ADDR="198.51.100.30")
    game = _timed(neighbour, _start(neighbour).json(), _some_moves(daily, 20), clock, 1300)
    _act(neighbour, game, "resign")
    _, key = make_user("newcomer")
    client = _client(key, REMOTE_ADDR="198.51.100.30")
    game = _timed(client, _start(client).json(), daily.solution.split(), clock, 1500)
    reason = _flag(game)  # (flagged for the solver's line, which this test plays)
    assert "same address" not in reason
    assert Game.objects.get(pk=game["id"]).flag_evidence["signs"] == [
        f"a new account's first ranked game, won in {daily.par} net moves (par {daily.par})"
    ]


def test_only_card_moves_count_towards_the_solverline_share(daily):
    from games.daily.integrity import line_share

    line = daily.solution.split()
    card_moves = [n for n in line if n not in ("draw", "recycle")]
    assert line_share(["undo", *line, "resign"], line) == 1.0
    # Draws match whoever played; a line of one's own shares few card moves in order.
    assert line_share(["draw"] * 50 + card_moves[::-1], line) < 0.5
    assert line_share(line[: len(line) // 2], line) == 1.0  # a prefix follows it all along


def test_cycling_a_card_does_not_pump_the_profiles_best_score(make_user, api_client):
    """Twenty foundation → column → foundation cycles: the profile's best score is the
    leaderboard score of the game, not its in-game score."""
    from games.services import game_start

    user, key = make_user("pumper")
    client = _client(key)
    game = game_start(user=user, code="KL1-D1N-AAAAAAK")  # its t1 card goes home and back
    body = _act(client, client.get(f"/api/v1/games/{game.pk}").json(), "t1-f1")
    for _ in range(20):
        body = _act(client, _act(client, body, "f1-t7"), "t7-f1")
    body = _act(client, body, "resign")
    stored = Game.objects.get(pk=game.pk)
    assert stored.score > stored.leaderboard_score == 10
    stats = api_client.get("/api/v1/users/pumper").json()["stats"]
    assert stats["best_score"] == 10 and stats["modes"]["D1N"]["best_score"] == 10


def test_flagged_entries_show_no_mark_and_withheld_ones_are_absent_until_cleared(
    daily, finished_attempt, clock, api_client, make_user
):
    """The public board shows no flag: an entry withheld on conclusive evidence is absent,
    open board or final, until a reviewer clears it; one flagged on links shows, unmarked.
    Only the owner's own daily answer says that it is being checked."""
    from games.daily.integrity import game_flag_review
    from games.models import FlagReview

    honest = finished_attempt(daily, username="honest", won=True, score=600, moves=150,
                              elapsed_ms=300_000)  # fmt: skip
    linked = finished_attempt(daily, username="linked", won=True, score=700, moves=110,
                              elapsed_ms=9_000)  # fmt: skip
    bot = finished_attempt(daily, username="bot", won=True, score=800, moves=100,
                           elapsed_ms=1_000)  # fmt: skip
    integrity.game_flag(game_id=linked.pk, reasons=["same browser as x's attempt 1"],
                        conclusive=False)  # fmt: skip
    integrity.game_flag(game_id=bot.pk, reasons=["inhuman timing: ..."], conclusive=True)
    daily_rankings.daily_rank(daily_id=daily.pk)
    path = f"/api/v1/leaderboards/daily/{DAY.isoformat()}/D1N"

    def board() -> list[str]:
        entries = api_client.get(path).json()["entries"]
        assert not any("under_review" in e for e in entries)
        return [e["user"] for e in entries]

    def note(user: Any) -> bool:
        client = APIClient()
        client.force_authenticate(user)
        return client.get(f"/api/v1/daily/{DAY.isoformat()}").json()["challenges"][0]["my_game"][
            "under_review"
        ]

    assert board() == ["linked", "honest"]  # the open board too
    assert (note(bot.user), note(linked.user), note(honest.user)) == (True, True, False)
    _close(clock, daily)
    assert board() == ["linked", "honest"]
    assert game_flag_review(game_id=linked.pk, review=FlagReview.CONFIRMED)
    daily_rankings.daily_rank(daily_id=daily.pk)
    assert board() == ["honest"]
    assert game_flag_review(game_id=bot.pk, review=FlagReview.CLEARED)
    daily_rankings.daily_rank(daily_id=daily.pk)
    assert board() == ["bot", "honest"]
    assert not note(bot.user)
    assert not game_flag_review(game_id=honest.pk, review=FlagReview.CONFIRMED)  # no flag


def test_origins_are_kept_30_days(daily, make_user, clock):
    _, key = make_user()
    _resign_at_once(_client(key))
    assert AttemptOrigin.objects.count() == 1
    clock(at(DAY + timedelta(days=30), 12))
    assert daily_origins.origins_purge() == 0
    clock(at(DAY + timedelta(days=31), 12))
    assert daily_origins.origins_purge() == 1


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
        "/api/v1/leaderboards/ratings/1?around=me",
        f"/api/v1/daily/calendar?month={day[:7]}",
        *(f"/api/v1/users/{name}/ratings/1" for name in usernames),
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
    from django.utils import timezone

    from accounts.models import User
    from accounts.tokens import token_create

    clock(at(DAY, 12))
    daily = daily_deals.daily_deal_get_or_create(day=DAY, mode="D1N")
    n = User.objects.count()
    callers: dict[str, APIClient] = {}
    for role in ("winner", "a", "b", "spectator"):
        user = User.objects.create_user(
            username=f"{role}{n}",
            password="correct-horse-battery",
            email=f"{role}{n}@example.com",
            email_verified_at=timezone.now(),  # ranked play needs a verified address
        )
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
