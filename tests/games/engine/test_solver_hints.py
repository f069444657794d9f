"""games/engine/solver/hints.py: a player who follows the hints from the deal wins it, in every
preset (issue #22).

For each of the eight presets, the first 50 deals by number that the solver proves winnable
within 5 000 positions (``bench/hint_follow.py --list --prove 600 --prove-nodes 5000``
printed the lists). The first hint of each game searches with that same bound in positions,
not seconds, so the search is the same on any machine, however busy; every later hint
continues the kept line without a search. The server's budget (0.5 s), the deals that take
longer, and the hints of a player who left the line are measured by the benchmark
``bench/hint_follow.py`` (docs/benchmarks.md).

Then (issue #39): a hint prefers a visible move to a draw among the moves that keep the deal
winnable, and says why with a reason code.
"""

from __future__ import annotations

import functools
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    DRAW,
    RECYCLE,
    DealCode,
    GameState,
    Move,
    PlainAction,
    parse_action,
)
from games.engine.solver import Hint, Solved, hint, replay_wins, solve
from games.engine.solver import hints as solver_hints

from .conftest import make_position

PROVEN = {
    "D1N": (
        "0 1 2 3 4 5 6 7 8 9 10 11 13 14 15 16 17 18 19 20 22 23 24 26 27 28 29 30 31 32 "
        "33 34 35 36 37 38 40 41 42 43 44 46 47 48 49 50 51 52 53 54"
    ),
    "D3N": (
        "3 5 6 8 9 10 11 12 14 15 16 17 18 19 20 22 24 26 27 28 29 30 31 32 33 35 36 37 38 "
        "41 44 46 47 48 52 53 54 55 60 61 63 64 67 69 70 72 73 74 75 76"
    ),
    "D1V": (
        "2 3 5 9 18 19 22 26 33 35 65 74 75 78 79 83 101 113 115 125 133 143 144 154 155 "
        "162 170 207 212 216 230 261 262 273 277 296 307 318 325 326 351 352 359 369 371 "
        "377 400 403 404 409"
    ),
    "D3V": (
        "15 22 172 245 250 273 509 527 553 637 691 745 771 892 912 1006 1043 1063 1115 1182 "
        "1251 1272 1276 1339 1350 1387 1398 1532 1612 1648 1761 1812 1819 1838 1857 1958 "
        "1985 1997 2045 2054 2067 2105 2156 2170 2188 2313 2318 2344 2406 2491"
    ),
    "D1C": (
        "3 5 9 18 19 22 26 28 33 35 37 55 65 74 75 77 78 79 83 91 95 101 113 115 125 133 "
        "143 144 154 155 162 170 172 193 207 212 216 230 254 261 262 273 277 296 307 318 "
        "325 326 351 352"
    ),
    "D3C": (
        "3 6 9 11 12 13 14 15 16 19 22 24 27 28 29 38 41 44 45 47 48 50 61 67 69 72 74 76 "
        "77 78 79 81 83 87 93 94 95 96 99 100 112 113 115 117 123 125 130 133 136 141"
    ),
    "D1R": (
        "0 1 2 3 4 5 6 7 8 9 10 11 13 14 15 16 17 18 19 20 22 23 24 26 27 28 29 30 31 32 "
        "33 34 35 36 37 38 40 41 42 43 44 46 47 48 49 50 51 52 53 54"
    ),
    "D3R": (
        "3 5 6 8 9 10 11 12 14 15 16 17 18 19 20 22 24 26 27 28 29 30 31 32 33 35 36 37 38 "
        "41 44 46 47 48 52 53 54 55 60 61 63 64 67 69 70 72 73 74 75 76"
    ),
}
"""Per preset, the deal numbers: the first 50 the solver proves winnable within 5 000
positions."""
PROOF_NODES = 5000


@pytest.mark.parametrize(
    "code",
    [
        str(DealCode(int(mode[1]), mode[2], int(n)))
        for mode, ns in PROVEN.items()
        for n in ns.split()
    ],
)
def test_following_the_hints_wins_the_deal(code: str) -> None:
    g = GameState.from_code(code)
    line: tuple[PlainAction, ...] = ()
    for _ in range(600):
        if g.is_won:
            break
        h = hint(g, budget_s=600, max_nodes=PROOF_NODES, line=line)
        # The first hint finds a line; every later one continues it without a search.
        assert h.source == "solver" and h.action is not None, (code, h)
        g.apply(h.action)
        line = h.line
    assert g.is_won, code


def test_every_preset_has_its_50_deals() -> None:
    assert sorted(PROVEN) == sorted(f"D{d}{p}" for d in (1, 3) for p in "NVCR")
    assert all(len(set(ns.split())) == 50 for ns in PROVEN.values())


# -- a visible move before a draw (issue #39) -------------------------------------------------


def _proof(code: str) -> tuple[GameState, tuple[PlainAction, ...]]:
    """The deal and its line from a search bounded in positions (the same on any machine)."""
    g = GameState.from_code(code)
    v = solve(g, budget_s=600, max_nodes=PROOF_NODES)
    assert isinstance(v, Solved), code
    return g, tuple(v.actions)


def test_a_line_that_draws_first_gives_way_to_the_same_line_with_a_visible_move_first() -> None:
    """Deal 5 of D1N: the line draws first, and later plays 7 of column 7 onto column 3, which
    turns a card up; played first, the rest of the line still wins."""
    g, line = _proof("KL1-D1N-AAAAAAF")
    assert line[0] is DRAW
    h = hint(g, budget_s=0, line=line)  # the kept line: no search of its own
    assert h.source == "solver" and h.action == Move("t7", "t3")
    assert h.reason_code == solver_hints.FREES_FACE_DOWN
    assert h.line[0] == h.action and replay_wins(g, h.line)
    assert Counter(h.line) == Counter(line)  # the same actions, reordered
    again = hint(g, budget_s=0, line=h.line)  # asked again without moving: the same hint
    assert (again.action, again.line) == (h.action, h.line)
    g.apply(h.action)
    follow = hint(g, budget_s=0, line=h.line)  # the move played: the line goes on
    assert follow.source == "solver" and replay_wins(g, follow.line)
    assert Counter(follow.line) == Counter(h.line[1:])


def test_the_line_may_go_on_by_card_after_the_visible_move() -> None:
    """Deal 57 of D1N: moving column 1's card onto column 4 first, the line's later moves no
    longer replay as they are (their piles and counts changed), but they do as a player names
    them, this card onto that one."""
    g, line = _proof("KL1-D1N-AAAAACF")
    assert line[0] is DRAW
    h = hint(g, budget_s=0, line=line)
    assert h.source == "solver" and h.action == Move("t1", "t4")
    assert h.reason_code == solver_hints.EMPTIES_COLUMN
    assert h.line[0] == h.action and replay_wins(g, h.line)
    assert not replay_wins(g, (h.action, *line[1:])) and h.line[1:] != line


def _along(code: str, k: int) -> tuple[GameState, tuple[PlainAction, ...]]:
    """The position ``k`` actions along the proof of ``code``, and the rest of the proof."""
    g, line = _proof(code)
    for a in line[:k]:
        g.apply(a)
    return g, line[k:]


def test_a_hint_that_follows_its_line_searches_nothing_not_even_for_a_visible_move(
    monkeypatch,
) -> None:
    """21 actions into deal 0 of D1N the line draws, and no line made of its own moves starts
    with a visible one; a hint that continues it draws, without a search."""
    g, rest = _along("KL1-D1N-AAAAAAA", 21)
    assert rest[0] is DRAW and solver_hints._visible_moves(g)
    monkeypatch.setattr(solver_hints, "solve", lambda *a, **k: pytest.fail("searched"))
    h = hint(g, budget_s=0.5, line=rest)
    assert (h.source, h.action, h.line) == ("solver", DRAW, rest)
    assert h.reason_code == solver_hints.CARD_IN_STOCK


def test_after_a_search_a_tiny_one_may_find_a_visible_move() -> None:
    """The same position: a hint that searched for its line may search a few hundred positions
    more after a visible move; here playing the waste's card onto column 3 wins."""
    g, rest = _along("KL1-D1N-AAAAAAA", 21)
    line = solver_hints._visible_first(g, rest, search=True)
    assert line[0] == Move("waste", "t3") and replay_wins(g, line)
    assert not any(isinstance(a, Move) and a.src.startswith("f") for a in line)


def test_a_line_that_starts_with_a_move_is_left_alone() -> None:
    g, line = _proof("KL1-D1N-AAAAAAG")
    assert line[0] not in (DRAW, RECYCLE)
    assert hint(g, budget_s=0, line=line).line == line


@functools.cache
def _proven(code: str) -> tuple[PlainAction, ...]:
    return _proof(code)[1]


_CODES = [
    str(DealCode(int(mode[1]), mode[2], int(n)))
    for mode, ns in PROVEN.items()
    for n in ns.split()[:3]
]


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    code=st.sampled_from(_CODES),
    along=st.floats(0, 1),
    wander=st.lists(st.integers(0, 99), max_size=4),
    kept=st.booleans(),
)
def test_a_solver_hints_line_always_replays_to_a_win(code, along, wander, kept) -> None:
    """Anywhere along a proof, off it by a few random moves or not, with the rest of the proof
    as the kept line or none: a solver hint's line starts with its action and wins."""
    proof = _proven(code)
    g = GameState.from_code(code)
    k = int(along * len(proof))
    for a in proof[:k]:
        g.apply(a)
    for i in wander:
        legal = g.legal_moves()
        if not legal:
            break
        g.apply(legal[i % len(legal)])
    h = hint(g, budget_s=600, max_nodes=2000, line=proof[k:] if kept else ())
    assert h.reason_code in solver_hints.REASON_CODES
    if h.source == "solver":
        assert h.action == h.line[0] and replay_wins(g, h.line)
    else:
        assert h.line == ()


# -- the reason codes ------------------------------------------------------------------------


def _winning(g: GameState, notation: str) -> tuple[PlainAction, ...]:
    line = tuple(parse_action(text) for text in notation.split())
    plain = tuple(a for a in line if isinstance(a, Move) or a in (DRAW, RECYCLE))
    assert plain == line and replay_wins(g, plain), notation
    return plain


# Foundations count the cards on f1..f4: spades, hearts, diamonds, clubs.
REASONS = {
    solver_hints.BUILDS_FOUNDATION: (
        dict(tableau=[["KS"]], foundations=(12, 13, 13, 13), stock=[]),
        "t1-f1",
    ),
    solver_hints.FREES_FACE_DOWN: (
        dict(tableau=[["KS"]], hidden=[["QS"]], foundations=(11, 13, 13, 13), stock=[]),
        "t1-t2 t1-f1 t2-f1",
    ),
    solver_hints.EMPTIES_COLUMN: (
        dict(tableau=[["QH"], ["KS"], ["KH"]], foundations=(12, 11, 13, 13), stock=[]),
        "t1-t2 t2-f2 t3-f2 t2-f1",
    ),
    solver_hints.KING_TO_EMPTY: (
        dict(waste=["KH"], foundations=(13, 12, 13, 13), stock=[]),
        "waste-t1 t1-f2",
    ),
    solver_hints.PLAYS_WASTE: (
        dict(tableau=[["KS"], ["KH"]], waste=["QH"], foundations=(12, 11, 13, 13), stock=[]),
        "waste-t1 t1-f2 t2-f2 t1-f1",
    ),
    solver_hints.FREES_CARD: (
        dict(tableau=[["KS", "QH"], ["KC"], ["KH"]], foundations=(12, 11, 13, 12), stock=[]),
        "t1-t2 t1-f1 t2-f2 t3-f2 t2-f4",
    ),
    solver_hints.FROM_FOUNDATION: (
        dict(tableau=[["KS"], ["KH"]], foundations=(12, 12, 13, 13), stock=[]),
        "f2-t1 t1-f2 t2-f2 t1-f1",
    ),
    solver_hints.CARD_IN_STOCK: (
        dict(foundations=(12, 13, 13, 13), stock=["KS"]),
        "draw waste-f1",
    ),
    # Preset R: the draw turns the last card up and the game finishes itself.
    solver_hints.WINNING_LINE: (
        dict(foundations=(12, 13, 13, 13), stock=["KS"], preset="R"),
        "draw",
    ),
}


@pytest.mark.parametrize("code", sorted(REASONS))
def test_each_reason_code_says_what_the_lines_first_action_does(code: str) -> None:
    position, notation = REASONS[code]
    g = make_position(**position)
    line = _winning(g, notation)
    h = hint(g, budget_s=0, line=line)
    assert (h.source, h.action, h.reason_code) == ("solver", line[0], code)


def test_the_heuristics_draw_towards_a_card_has_the_same_reason() -> None:
    """No search at all: the heuristic draws towards a card it can play."""
    g = make_position([["KS"]], foundations=(11, 13, 13, 13), stock=["QS"])
    h = hint(g, budget_s=0, max_nodes=0)
    assert (h.source, h.action, h.reason_code) == ("heuristic", DRAW, solver_hints.CARD_IN_STOCK)


def test_a_heuristic_move_says_what_it_does() -> None:
    h = hint(GameState.from_code("KL1-D1N-AAAAAAG"), budget_s=0, max_nodes=0)
    assert h.source == "heuristic" and h.action == Move("t1", "f3")  # the ace of diamonds
    assert h.reason_code == solver_hints.BUILDS_FOUNDATION


def test_nothing_left_to_do() -> None:
    """Classic (no card back from a foundation), the stock gone: the 2 of spades lies on the
    ace and every other spade, and nothing can move."""
    hidden = [["AS", *(f"{r}S" for r in (3, 4, 5, 6, 7, 8, 9, 10, "J", "Q", "K"))]]
    g = make_position([["2S"]], hidden=hidden, foundations=(0, 13, 13, 13), stock=[], preset="C")
    h = hint(g, budget_s=5)
    assert (h.source, h.action, h.reason_code) == ("none", None, solver_hints.NOTHING_LEFT)


def test_every_reason_code_is_tested_and_a_hint_takes_no_other() -> None:
    assert set(REASONS) | {solver_hints.NOTHING_LEFT} == set(solver_hints.REASON_CODES)
    with pytest.raises(ValueError, match="unknown reason code"):
        Hint(DRAW, "solver", reason_code="because")
    h = Hint(DRAW, "solver", reason_code=solver_hints.CARD_IN_STOCK)
    assert h.to_dict()["reason_code"] == "card_in_stock"
