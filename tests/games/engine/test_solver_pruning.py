"""games/engine/solver/: the soundness of the pruning behind ``Unwinnable`` verdicts.

Every technique is checked two ways: hand-made positions where it must (or must not) fire,
and properties over real play (a winning line never passes a position the technique calls
lost; on small endgames the verdicts with and without it never contradict each other).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from games.engine import DRAW, Deal, GameState, Rules
from games.engine.cards import CARD_NAMES
from games.engine.solver import (
    Solved,
    Unknown,
    Unwinnable,
    solve,
)
from games.engine.solver import search as solver_search
from games.engine.solver.positions import _RETURN
from games.engine.solver.pruning import _stuck
from games.engine.solver.schedule import _verdict
from games.engine.solver.search import _dominating, _pass_dominated, _Solver
from games.engine.solver.verdicts import _expand

from .conftest import make_position


def wins(state: GameState, actions: list) -> bool:
    g = state.copy()
    for a in actions:
        assert not g.is_won
        g.apply(a)
    return g.is_won


def stuck(g: GameState) -> bool:
    """The dead-position check as the searches run it (in the last pass, with its pile and
    its stock)."""
    s = _Solver(g)
    cols, _talon, _pos, _passes, found = p = s.start
    return _stuck(cols, found, s.returns, pile=s._pile(p), stock=s._stock(p), draw=s.draw)


def exhaust(s: _Solver) -> object:
    """Run one depth-first search to the end (small positions only): its line, or None."""
    return exhaust_gen(s.dfs())


# -- the dead-position check (_stuck) -----------------------------------------------------------

# 2S lies on AS (so it cannot go up first) and needs a red 3: 3H is under AS, 3D under AD
# under 2D. 2D lies on AD and needs a black 3: 3S and 3C lie under it all. A deadlock even
# with foundation return and every other card in the stock.
DEADLOCK = dict(tableau=[["2S"], ["2D"]], hidden=[["3S", "3H", "AS"], ["3C", "3D", "AD"]])


@pytest.mark.parametrize("draw", [1, 3])
def test_mutual_block_is_unwinnable_at_once(draw: int) -> None:
    g = make_position(**DEADLOCK, draw=draw)  # type: ignore[arg-type]
    assert stuck(g)
    v = solve(g, budget_s=5)
    assert isinstance(v, Unwinnable) and v.nodes < 50


def test_block_opened_by_a_stock_card_is_not_stuck() -> None:
    # The same, but 3D waits in the stock: 2S goes onto it from there, the chain unwinds.
    g = make_position(tableau=[["2S"], ["2D"]], hidden=[["3S", "3H", "AS"], ["3C", "AD"]])
    assert not stuck(g)
    v = solve(g, budget_s=5)
    assert isinstance(v, Solved) and wins(g, v.actions)


def test_foundation_card_serves_only_with_return() -> None:
    # 2S lies on AS, so it must go onto a red 3 first; both are on their foundations.
    kw = dict(tableau=[["2S"]], hidden=[["AS"]], foundations=(0, 3, 3, 0))
    with_return = make_position(**kw, rules=Rules(1, "N", None, True))  # type: ignore[arg-type]
    without = make_position(**kw, rules=Rules(1, "N", None, False))  # type: ignore[arg-type]
    assert not stuck(with_return)
    assert stuck(without)
    assert isinstance(solve(without, budget_s=5), Unwinnable)
    v = solve(with_return, budget_s=5)
    assert isinstance(v, Solved) and wins(with_return, v.actions)


def test_king_can_always_wait_for_an_empty_column() -> None:
    # KS lies on AS (same suit, lower): it has no parent, but an empty column can come.
    g = make_position(tableau=[["KS"]], hidden=[["AS"]])
    assert not stuck(g)


# In the last pass the waste is a pile that cards leave only from the top. 5H lies under 9C
# there; 9C needs a red 10 (both in the pile under it, or on 5H) or its foundation (8C is in
# the pile under it): 9C never leaves, and neither does 5H. With a pass left the waste goes
# back to the stock, and nothing is stuck.
PILE = ["8C", "10H", "10D", "5H", "9C"]


@pytest.mark.parametrize("draw", [1, 3])
def test_a_card_buried_in_the_last_pass_pile_is_stuck(draw: int) -> None:
    last = make_position(waste=PILE, rules=Rules.from_preset(draw, "V"))
    s = _Solver(last)
    cols, talon, pos, _passes, found = s.start
    pile = s._pile(s.start)
    assert pile == talon[:pos] and len(pile) == len(PILE)
    assert _stuck(cols, found, True, pile=pile)
    assert isinstance(solve(last, budget_s=5), Unwinnable)
    # A pass left (or unlimited passes): the waste is no pile, and the position is open.
    for rules in (Rules(draw, "N", 2), Rules.from_preset(draw, "N")):
        g = make_position(waste=PILE, rules=rules)
        s = _Solver(g)
        assert s._pile(s.start) == b""
        assert not stuck(g)


def test_the_pile_is_left_from_the_top() -> None:
    # The same cards the other way up: 8C leaves first (the clubs under it are in the
    # stock), then the red 10s (onto black jacks from the stock), then 5H and 9C onto them.
    g = make_position(waste=PILE[::-1], rules=Rules.from_preset(1, "V"))
    s = _Solver(g)
    assert not _stuck(s.start[0], s.start[4], True, pile=s._pile(s.start))


# The stock of the last pass is drawn in stages: 2C comes first and cannot leave before the
# next draw (AC is still in the stock; the red 3s are up for good, with no return), so 3C
# covers it, and 3C needs 2C up first. AC comes too late: lost. (The other clubs wait in a
# column, under 4C.) Drawn the other way (3C first), 2C covers 3C, leaves once AC is up, and
# 3C after it.
CLUBS = dict(
    tableau=[["4C"]],
    hidden=[["KC", "QC", "JC", "10C", "9C", "8C", "7C", "6C", "5C"]],
    foundations=(13, 13, 13, 0),
)


@pytest.mark.parametrize("draw", [1, 3])
def test_a_stock_card_that_cannot_leave_before_the_next_draw_is_covered(draw: int) -> None:
    rules = Rules(draw, "V", 1, False)
    g = make_position(stock=["2C", "3C", "AC"], **CLUBS, rules=rules)  # type: ignore[arg-type]
    s = _Solver(g)
    assert len(s._stock(s.start)) == 3 and len(s._pile(s.start)) == 0
    assert stuck(g)
    assert not _stuck(s.start[0], s.start[4], False)  # the stock taken as reachable at will
    v = solve(g, budget_s=5)
    assert isinstance(v, Unwinnable) and v.nodes == 0
    other_way = make_position(stock=["3C", "2C", "AC"], **CLUBS, rules=rules)  # type: ignore[arg-type]
    assert not stuck(other_way)
    v = solve(other_way, budget_s=5)
    assert isinstance(v, Solved) and wins(other_way, v.actions)
    # With foundation return 2C goes onto a red 3 taken back, and nothing is stuck; with a
    # pass left in draw 1 the stock comes round again, one card at a time.
    for more in (Rules(draw, "V", 1, True), Rules(1, "C", 2, False)):
        h = make_position(stock=["2C", "3C", "AC"], **CLUBS, rules=more)  # type: ignore[arg-type]
        assert not stuck(h)
        assert isinstance(solve(h, budget_s=5), Solved)


LINE_DEALS = {
    "D1N": range(12),
    "D3N": range(12),
    "D3C": range(12),
    "D1R": range(12),
    # One pass: deals that a search without the check wins within the bound.
    "D1V": (19, 22, 33, 78),
    "D1C": (5, 18, 19, 33),
}


@pytest.mark.parametrize("mode", LINE_DEALS)
def test_winning_lines_never_pass_a_stuck_position(mode: str) -> None:
    """Lines found without the check (within 20 000 positions, the same search on any
    machine): no position on them may be called lost."""
    draw, preset = int(mode[1]), mode[2]
    checked = 0
    for n in LINE_DEALS[mode]:
        g = GameState.new(Deal.from_number(n), Rules.from_preset(draw, preset))
        v = _verdict(g, budget_s=600, max_nodes=20000, stuck_check=False)
        if not isinstance(v, Solved):
            continue
        h = g.copy()
        assert not stuck(h), (n, 0)
        for i, a in enumerate(v.actions):
            h.apply(a)
            assert not stuck(h), (n, i + 1)
            checked += 1
    assert checked > 20


# -- random endgames: with and without each technique, never a contradiction -------------------

RULES = [
    Rules(1),
    Rules(3),
    Rules(1, "V", 1),
    Rules(3, "C", 3, False, False, "none"),
    Rules(1, "C", 1, False, False, "none"),
]


def endgame(seed: int, rules: Rules, out: int, stock_max: int = 4, ncols: int = 7) -> GameState:
    """``out`` cards off the foundations, dealt at random: a face-up card on top of each
    column (of the first ``ncols``), the rest face down under it, up to ``stock_max`` in the
    stock."""
    rng = random.Random(seed)
    found = [13] * 4
    cards: list[int] = []
    while len(cards) < out:
        s = rng.randrange(4)
        if found[s]:
            found[s] -= 1
            cards.append(s * 13 + found[s])
    rng.shuffle(cards)
    k = rng.randrange(0, stock_max + 1)
    stock, rest = cards[:k], cards[k:]
    up: list[list[str]] = [[] for _ in range(7)]
    down: list[list[str]] = [[] for _ in range(7)]
    for x in rest:
        c = rng.randrange(ncols)
        down[c].extend(up[c])
        up[c] = [CARD_NAMES[x]]
    return GameState.from_position(
        rules,
        tableau=up,
        hidden=down,
        stock=[CARD_NAMES[x] for x in stock],
        foundations=found,
    )


# (Its switched-off variants patch the solver; the rest checks the compiled build too.)
@pytest.mark.pure_solver(native_too=True)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    rules=st.sampled_from(RULES),
    out=st.integers(8, 24),
)
def test_endgame_verdicts_agree(seed: int, rules: Rules, out: int) -> None:
    g = endgame(seed, rules, out)
    plain = _verdict(g, budget_s=3, max_nodes=None, stuck_check=False)
    full = solve(g, budget_s=3)
    verdicts = [plain, full]
    # Each technique switched off in turn: the shared tables, the waste size dominance.
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(solver_search, "_SHARED", False)
        verdicts.append(solve(g, budget_s=3))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_Solver, "_by_pos", lambda self: None)
        verdicts.append(solve(g, budget_s=3))
    kinds = {v.verdict for v in verdicts}
    # Each search alone, with a table of its own: with the fast cuts (a win, or nothing), and
    # with the sound cuts only (a win, or a proof).
    for search in SEARCHES:
        kinds.add(alone(g, search))
        kinds.add(alone(g, search, sound=True))
    assert not {"solved", "unwinnable"} <= kinds, (seed, rules, out, verdicts)
    for v in verdicts:
        if isinstance(v, Solved):
            assert wins(g, v.actions)
    # The relaxed game (talon as a set) allows more: its loss implies the real one's.
    if exhaust(_Solver(g, relax=True, stuck_check=False)) is None:
        assert not isinstance(plain, Solved) and not isinstance(full, Solved)


SEARCHES = {
    "dfs": lambda s: s.dfs(),
    "talon_first_dfs": lambda s: s.dfs(talon_first=True),
    "best_first": lambda s: s.best_first(),
    "talon_first": lambda s: s.best_first(talon_first=True),
}
"""Every search of the solver, each order (``talon_first``: the talon's moves first)."""


def alone(g: GameState, search: str, limit: int = 20000, *, sound: bool = False) -> str:
    """The verdict of one of :data:`SEARCHES` run by itself, "unknown" past about ``limit``
    positions; with the fast cuts (``sound`` false) running dry is "exhausted", no proof."""
    s = _Solver(g, sound=sound)
    s.shared = False
    gen = SEARCHES[search](s)
    try:
        while s.nodes < limit:
            next(gen)
    except StopIteration as stop:
        if stop.value is None:
            return "unwinnable" if sound else "exhausted"
        assert wins(g, _expand(g, stop.value))
        return "solved"
    return "unknown"


def brute_force(g: GameState, limit: int = 20000) -> bool | None:
    """Won or lost, by every legal engine action (foundation moves tried first), with only
    the column order factored out of the table; None past ``limit`` positions."""

    def key(h: GameState) -> tuple[object, ...]:
        r = h.raw()
        cols = tuple(sorted(zip(r.tableau, r.down, strict=True)))
        return (cols, r.foundations, r.stock, r.waste, h.passes_used)

    seen = {key(g)}
    stack = [g]
    while stack:
        h = stack.pop()
        legal = h.legal_moves()
        legal.sort(key=lambda a: str(getattr(a, "dst", "")).startswith("f"))
        for a in legal:
            c = h.copy()
            c.apply(a)
            if c.is_won:
                return True
            k = key(c)
            if k in seen:
                continue
            seen.add(k)
            if len(seen) > limit:
                return None
            stack.append(c)
    return False


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), rules=st.sampled_from(RULES), out=st.integers(4, 13))
# 6D lies on 10D, 5D, 8D, 7D, 9D and JD, face down; a black 7 for it comes only from the
# foundations, after spades and clubs are taken back from the king down in turn: the
# "next move must use it" cut on returns called it lost (issue #22).
@example(seed=4724, rules=Rules.from_preset(1, "N"), out=12)
def test_endgames_against_brute_force(seed: int, rules: Rules, out: int) -> None:
    """Small endgames (three columns, a short stock): every verdict matches an independent
    search over the engine's own legal actions, and so does the search with the sound cuts
    alone (its running dry is what proves a loss)."""
    g = endgame(seed, rules, out, stock_max=2, ncols=3)
    truth = brute_force(g)
    if truth is None:
        return
    v = solve(g, budget_s=3)
    if not isinstance(v, Unknown):
        assert isinstance(v, Solved) is truth, (seed, rules, out, v)
    if isinstance(v, Solved):
        assert wins(g, v.actions)
    sound = _Solver(g, sound=True)
    assert (exhaust(sound) is not None) is truth, (seed, rules, out)
    if truth and not sound.talon_is_set:
        # The relaxed game allows more: a won real game never makes it run dry.
        assert exhaust(_Solver(g, relax=True)) is not None, (seed, rules, out)


LIMITED = [r for r in RULES if r.passes is not None] + [Rules.from_preset(3, "V")]


def drawn_endgame(
    seed: int, rules: Rules, out: int, draws: int, stock_max: int, ncols: int
) -> GameState:
    """An :func:`endgame` with up to ``draws`` cards (or groups) of its stock drawn."""
    g = endgame(seed, rules, out, stock_max=stock_max, ncols=ncols)
    for _ in range(draws):
        if DRAW not in g.legal_moves():
            break
        g.apply(DRAW)
    return g


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    rules=st.sampled_from(LIMITED),
    out=st.integers(6, 12),
    draws=st.integers(0, 6),
)
def test_pass_limited_endgames_against_brute_force(
    seed: int, rules: Rules, out: int, draws: int
) -> None:
    """Pass limits with a longer stock, some of it already drawn: the last pass's pile (the
    waste, left only from the top) is where the dead-position check cuts, and the verdicts
    still match the brute-force search."""
    g = drawn_endgame(seed, rules, out, draws, stock_max=7, ncols=3)
    truth = brute_force(g)
    if truth is None:
        return
    v = solve(g, budget_s=3)
    if not isinstance(v, Unknown):
        assert isinstance(v, Solved) is truth, (seed, rules, out, draws, v)
    assert (exhaust(_Solver(g, sound=True)) is not None) is truth, (seed, rules, out, draws)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    rules=st.sampled_from(LIMITED),
    out=st.integers(8, 18),
    ncols=st.integers(3, 4),
    draws=st.integers(0, 6),
)
def test_a_last_pass_called_stuck_is_lost(
    seed: int, rules: Rules, out: int, ncols: int, draws: int
) -> None:
    """Last-pass endgames with a long stock (the stages of its draws matter): a position the
    check calls dead is lost by the brute-force search."""
    g = drawn_endgame(seed, rules, out, draws, stock_max=12, ncols=ncols)
    if stuck(g):
        assert brute_force(g, 100000) is not True, (seed, rules, out, ncols, draws)


# -- the relaxation ----------------------------------------------------------------------------


def test_relaxed_loss_proves_a_draw_3_loss() -> None:
    # Deal 66 is lost in draw 1 (unlimited passes), so it is lost in draw 3 as well; the
    # relaxed search proves it long before the draw-3 space is exhausted.
    d1 = GameState.new(Deal.from_number(66), Rules.from_preset(1, "N"))
    d3 = GameState.new(Deal.from_number(66), Rules.from_preset(3, "N"))
    assert isinstance(solve(d1, budget_s=5), Unwinnable)
    assert exhaust(_Solver(d3, relax=True)) is None
    assert isinstance(solve(d3, budget_s=5), Unwinnable)


def test_relaxed_solver_treats_the_talon_as_a_set() -> None:
    g = GameState.new(Deal.from_number(3), Rules.from_preset(3, "V"))
    s = _Solver(g, relax=True)
    assert s.talon_is_set and s.draw == 1 and s.unlimited
    assert list(s.start[1]) == sorted(s.start[1])


# -- checks skipped, tables shared ----------------------------------------------------------


@pytest.mark.pure_solver
@pytest.mark.parametrize("mode", ["D1N", "D3N", "D3C", "D1V", "D3V"])
def test_a_skipped_check_would_have_passed(mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whenever the searches skip the dead-position check (_stays_open), the check passes
    (in the last pass, with the waste as a pile)."""
    draw, preset = int(mode[1]), mode[2]
    rules = Rules.from_preset(draw, preset)
    real = solver_search._stays_open
    skipped = 0

    def spy(p: tuple, child: tuple, m: tuple, returns: bool, pile: bytes, parent: bytes) -> bool:  # type: ignore[type-arg]
        nonlocal skipped
        ok = real(p, child, m, returns, pile, parent)  # type: ignore[arg-type]
        if ok:
            skipped += 1
            assert not _stuck(child[0], child[4], rules.foundation_return, pile=pile), m
        return ok

    monkeypatch.setattr(solver_search, "_stays_open", spy)
    for n in range(6):
        solve(GameState.new(Deal.from_number(n), rules), budget_s=0.5)
    assert skipped > 20


@pytest.mark.pure_solver
def test_shared_tables_prove_only_when_every_search_ran_dry() -> None:
    # Deal 66 is lost in draw 1: with shared tables the space is exhausted only when both
    # searches ran dry (then the search with the sound cuts proves the loss); either way the
    # verdict is the same, and with the tables shared no position is searched twice.
    g = GameState.new(Deal.from_number(66), Rules.from_preset(1, "N"))
    shared = solve(g, budget_s=10)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(solver_search, "_SHARED", False)
        separate = solve(g, budget_s=10)
    assert isinstance(shared, Unwinnable) and isinstance(separate, Unwinnable)
    s = _Solver(g)
    dfs, bfs = s.dfs(), s.best_first()
    assert exhaust_gen(dfs) is None and exhaust_gen(bfs) is None
    assert s._shared is not None
    seen = s._shared[0]
    assert len(seen) <= shared.nodes + 1


def test_emptying_the_talon_first_wins_what_the_plain_order_misses() -> None:
    # Deal 842 in draw 3: the best-first order that empties the talon first wins it in a few
    # hundred positions; the plain order (fewest face-down cards) finds nothing in 2000.
    g = GameState.new(Deal.from_number(842), Rules.from_preset(3, "N"))
    assert alone(g, "talon_first", limit=2000) == "solved"
    assert alone(g, "best_first", limit=2000) == "unknown"


def test_a_search_with_a_table_of_its_own_proves_alone() -> None:
    # Deal 66 is lost in draw 1: a best-first search with the sound cuts and its own table
    # runs dry by itself, while the depth-first search sharing the solver's table has not
    # started.
    g = GameState.new(Deal.from_number(66), Rules.from_preset(1, "N"))
    s = _Solver(g, sound=True)
    assert exhaust_gen(s.best_first(own_table=True)) is None
    assert s._shared is None


def test_waste_size_dominance_wherever_the_talon_is_not_a_set() -> None:
    deal = Deal.from_number(5)
    for rules, on in [
        (Rules.from_preset(3, "N"), True),
        (Rules.from_preset(1, "N"), False),
        (Rules.from_preset(3, "C"), True),
        (Rules.from_preset(1, "V"), True),
    ]:
        s = _Solver(GameState.new(deal, rules))
        assert (s._by_pos() is not None) is on


def test_the_waste_sizes_and_passes_that_reach_a_position() -> None:
    """Under a pass limit a position is reached, with nothing played, from the same one with
    a smaller waste size in the same pass (a multiple of the draw count less), or with any
    waste size in an earlier pass when a recycle and draws lead to it."""

    def reaching(p: int, passes: int, n: int, draw: int) -> set[tuple[int, int]]:
        bits = _dominating(p, passes, n, draw)
        return {
            (q, used)
            for used in range(passes + 1)
            for q in range(n + 1)
            if bits >> (used * 64 + q) & 1
        }

    assert reaching(6, 0, 10, 3) == {(0, 0), (3, 0), (6, 0)}
    assert reaching(5, 0, 10, 3) == {(2, 0), (5, 0)}
    # 5 cannot be drawn to after a recycle: only from 2 or 5, in this pass or an earlier one.
    assert reaching(5, 1, 10, 3) == {(2, 0), (5, 0), (2, 1), (5, 1)}
    assert reaching(6, 1, 10, 3) == {(q, 0) for q in range(11)} | {(0, 1), (3, 1), (6, 1)}
    assert reaching(10, 0, 10, 3) == {(q, 0) for q in range(11)}  # the end of the stock
    assert reaching(4, 0, 10, 1) == {(q, 0) for q in range(5)}


def test_a_position_with_a_pass_more_used_is_skipped() -> None:
    g = GameState.new(Deal.from_number(8), Rules.from_preset(3, "C"))
    s = _Solver(g)
    talon = s.start[1]
    by_pos = s._by_pos()
    assert by_pos == {}
    base = s._key(s.start)

    def dominated(pos: int, passes: int) -> bool:
        reaching = _dominating(pos, passes, len(talon), 3)
        return _pass_dominated(by_pos, base, passes * 64 + pos, reaching)

    assert not dominated(3, 0)
    assert dominated(6, 0)
    assert dominated(3, 1)
    # A waste size the position seen cannot draw to is kept.
    assert not dominated(2, 1)


def test_the_table_by_position_alone_catches_a_repeat() -> None:
    # Wherever there is a table by position, it is the only one a search records in: a
    # position seen again, with the very same waste size, counts as dominated.
    for preset in ("N", "C"):
        g = GameState.new(Deal.from_number(8), Rules.from_preset(3, preset))
        s = _Solver(g)
        cols, talon, _pos, _passes, found = s.start
        by_pos = s._by_pos()
        assert by_pos is not None
        p = (cols, talon, 4, 0, found)
        assert s._dominated(by_pos, s._key(p), p) >= 0
        assert s._dominated(by_pos, s._key(p), p) < 0
        # ... its key holds neither the waste size nor the passes used (its bits do)
        assert s._key(p) == s._key((cols, talon, 7, 1, found))
        # ... and a search's tables hold the start there from the outset
        start = s._start()[0]
        _seen, tables_by_pos = s._tables(start, own=True)
        assert tables_by_pos is not None
        assert s._dominated(tables_by_pos, s._key(start), start) < 0


def exhaust_gen(gen: object) -> object:
    try:
        while True:
            next(gen)  # type: ignore[call-overload]
    except StopIteration as stop:
        return stop.value


# -- shortcuts of the hot path: the same answers as the long way ----------------------------------


def _searched_positions(mode: str, deals: range, per_deal: int) -> list[tuple]:  # type: ignore[type-arg]
    """Positions the depth-first search makes (its children, before any check), per deal."""
    rules = Rules.from_preset(int(mode[1]), mode[2])
    out: list[tuple] = []  # type: ignore[type-arg]
    for n in deals:
        s = _Solver(GameState.new(Deal.from_number(n), rules))
        real = s._apply
        made: list[tuple] = []  # type: ignore[type-arg]

        def spy(p: tuple, m: tuple, autos: list, made: list = made, real=real) -> tuple:  # type: ignore[type-arg, no-untyped-def]
            child = real(p, m, autos)
            made.append((p, m, child))
            return child

        s._apply = spy  # type: ignore[method-assign]
        gen = s.dfs()
        try:
            while len(made) < per_deal:
                next(gen)
        except StopIteration:
            pass
        out.extend(made[:per_deal])
    return out


@pytest.mark.pure_solver
@pytest.mark.parametrize("mode", ["D1N", "D3N", "D3C", "D1V"])
def test_dead_check_does_not_depend_on_the_order_hint(mode: str) -> None:
    """The hint (the parent's derivation order) and the early end of the passes only save
    work: any order gives the same answer, and so does no hint (with the last pass's pile
    too)."""
    rules = Rules.from_preset(int(mode[1]), mode[2])
    returns = rules.foundation_return
    pile_of = _Solver(GameState.new(Deal.from_number(0), rules))._pile
    dead = 0
    for p, _m, child in _searched_positions(mode, range(8), 400):
        pile = pile_of(child)
        order: list[int] = []
        ref = _stuck(child[0], child[4], returns, (), order, pile)
        assert _stuck(child[0], child[4], returns, order, None, pile) is ref
        assert _stuck(child[0], child[4], returns, order[::-1], None, pile) is ref
        parent_order: list[int] = []
        _stuck(p[0], p[4], returns, (), parent_order, pile_of(p))
        assert _stuck(child[0], child[4], returns, parent_order[::-1], None, pile) is ref
        dead += ref
    assert dead > 10


@pytest.mark.pure_solver
@pytest.mark.parametrize("mode", ["D1N", "D3N", "D1V", "D3V"])
def test_a_column_move_leaves_nothing_for_the_automatic_moves(mode: str) -> None:
    """_apply skips the automatic moves after a column-to-column move unless the card it
    uncovers can go up: running them anyway changes nothing."""
    rules = Rules.from_preset(int(mode[1]), mode[2])
    s = _Solver(GameState.new(Deal.from_number(0), rules))  # _auto depends on the rules only
    moves = 0
    for _p, m, child in _searched_positions(mode, range(6), 300):
        if m[0] != 0:
            continue
        moves += 1
        cols, found, autos = list(child[0]), list(child[4]), []  # type: ignore[var-annotated]
        s._auto(cols, child[1], child[2], found, autos, child[3] >= s.recycles)
        assert not autos, m
    assert moves > 100


@pytest.mark.pure_solver
def test_dead_check_answer_is_shared_by_the_waste_sizes_of_a_position(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Draw 3: the check depends on the columns and foundations only, so its answer is kept
    per position and reused for its other waste sizes; the verdict and the positions
    searched are the same as with a check every time."""
    g = GameState.new(Deal.from_number(1), Rules.from_preset(3, "N"))
    calls = 0
    real = solver_search._stuck

    def counting(*args: object) -> bool:
        nonlocal calls
        calls += 1
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(solver_search, "_stuck", counting)
    cached = solve(g, budget_s=60, max_nodes=30000)
    cached_calls, calls = calls, 0
    monkeypatch.setattr(solver_search, "_ALIVE", 1 << 40)  # never recorded: every check runs
    monkeypatch.setattr(solver_search, "_DEAD", 1 << 41)
    monkeypatch.setattr(solver_search, "_waste_seen", _waste_seen_without_verdicts)
    plain = solve(g, budget_s=60, max_nodes=30000)
    assert (cached.verdict, cached.nodes) == (plain.verdict, plain.nodes)
    assert cached_calls < calls


def _waste_seen_without_verdicts(by_pos: dict[bytes, int], base: bytes, q: int) -> int:
    prev = _real_waste_seen(by_pos, base, q)
    return prev if prev < 0 else prev & ((1 << 30) - 1)


_real_waste_seen = solver_search._waste_seen


@pytest.mark.parametrize(("hearts", "useful"), [(3, False), (6, True)])
def test_a_return_is_generated_only_when_its_use_can_follow(hearts: int, useful: bool) -> None:
    # 7D could come back onto 8C for 6C, but 6C lies on 7D's twin 7H: moving it leaves 7H,
    # which the next move must use in turn. 6S (6C's twin) is face down, so only 7H going
    # up (hearts up to 6H) can do so.
    g = make_position(
        tableau=[["7H", "6C"], ["8C"]],
        hidden=[["6S"], ["7S", "7C"]],
        foundations=(0, hearts, 7, 0),
        draw=3,
    )
    s = _Solver(g, sound=False)  # (the fast cut: draw 3 searches with the sound ones)
    returns = [m for m in s._moves(s._start()[0]) if m[0] == _RETURN]
    assert bool(returns) is useful
