"""games/engine/solver/: verdicts, engine-checked solutions, hints and analysis."""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable, Generator

import pytest

from games.engine import Deal, DealCode, GameState, Move, Rules, format_action, parse_action
from games.engine.solver import (
    Analysis,
    Solved,
    Unknown,
    Unwinnable,
    analyse,
    effective_line,
    hint,
    main_solve,
    replay_wins,
    schedule,
    solve,
)
from games.engine.solver.moves import _extend_most_down_first, _Game
from games.engine.solver.search import _Solver

from .conftest import make_position

SPADES_3_TO_J = [f"{r}S" for r in ("3", "4", "5", "6", "7", "8", "9", "10", "J")]


def wins(state: GameState, actions: list) -> bool:
    """Apply to a copy through the engine: legal all the way, won at the end, nothing after."""
    g = state.copy()
    for i, a in enumerate(actions):
        assert not g.is_won, f"action {i} ({a}) after the game was won"
        g.apply(a)
    return g.is_won


# Deals that the solver decides fast, across presets and draw modes (budget kept small).
CODES = [
    "KL1-D1N-AAAAAAC",
    "KL1-D1N-AAAAAAG",
    "KL1-D3N-AAAAAAD",
    "KL1-D3N-AAAAAAF",
    "KL1-D1R-AAAAAAC",
    "KL1-D3R-AAAAAAF",
    "KL1-D1C-AAAAABH",
    "KL1-D1C-AAAAAAV",  # proven unwinnable
    "KL1-D3C-AAAAAAG",
    "KL1-D1V-AAAAAAW",
    "KL1-D3V-AAAAAAP",
]


@pytest.mark.parametrize("code", CODES)
def test_solutions_replay_to_a_win(code: str) -> None:
    g = GameState.from_code(code)
    v = solve(g, budget_s=3)
    assert not isinstance(v, Unknown), f"{code} undecided in 3 s"
    assert v.nodes >= 0 and v.elapsed_s >= 0
    if isinstance(v, Solved):
        assert wins(g, v.actions)
        assert all(
            isinstance(a, Move) or type(a).__name__ in ("Draw", "Recycle") for a in v.actions
        )


def test_turn_up_moves_come_most_face_down_first_in_a_stable_order() -> None:
    flips = [(0, 1, 1, 2), (0, 2, 1, 3), (0, 3, 2, 0), (0, 4, 1, 5)]
    out: list[tuple[int, int, int, int]] = []
    _extend_most_down_first(out, flips, [1, 3, 0, 3])  # a king off face-up cards: 0
    assert out == [flips[1], flips[3], flips[0], flips[2]]


def test_reach_lists_each_card_that_can_become_the_waste_top_once() -> None:
    game = _Game(GameState.from_code(DealCode(3, "N", 0)))
    # 7 talon cards, 2 on the waste: its top, every third card on, the last one, and after a
    # recycle the third and sixth.
    assert game._reach(bytes(range(7)), 2, 0) == [1, 4, 6, 2, 5]
    assert game._reach(b"", 0, 0) == []


def test_solve_does_not_change_the_state() -> None:
    g = GameState.from_code("KL1-D1N-AAAAAAG")
    key = g.position_key()
    solve(g, budget_s=2)
    assert g.position_key() == key and g.moves == 0


def test_one_move_from_a_win() -> None:
    g = make_position([["KS"]], foundations=(12, 13, 13, 13), stock=[])
    v = solve(g)
    assert isinstance(v, Solved)
    assert v.actions == [Move("t1", "f1")]


def test_won_game_needs_nothing() -> None:
    g = make_position(foundations=(13, 13, 13, 13), stock=[])
    v = solve(g)
    assert isinstance(v, Solved) and v.actions == []


def test_relaxed_auto_finish_cuts_the_solution() -> None:
    # Moving KS to an empty column turns up JS; with nothing face down, preset R plays the
    # rest itself, so the solution is that one move and nothing after it.
    g = make_position(
        [["KS"], ["QS"]], hidden=[["JS"]], foundations=(10, 13, 13, 13), stock=[], preset="R"
    )
    v = solve(g)
    assert isinstance(v, Solved)
    assert len(v.actions) == 1 and v.actions[0].dst.startswith("t")
    assert wins(g, v.actions)


def test_needed_card_under_same_suit_is_unwinnable() -> None:
    # AS lies under 2S; 2S could only go on a red 3, and every red card is on its
    # foundation for good (Classic: no foundation return). The stock is gone.
    g = make_position(
        [["2S"], ["KS"]],
        hidden=[["AS"], [*SPADES_3_TO_J, "QS"]],
        foundations=(0, 13, 13, 13),
        stock=[],
        preset="C",
    )
    v = solve(g, budget_s=5)
    assert isinstance(v, Unwinnable)


def test_foundation_return_rescues_the_same_position() -> None:
    # With foundation return (preset N) the red cards can come back to build a red 3 for 2S,
    # so the verdict must not be "unwinnable" by mistake; any solution must replay.
    g = make_position(
        [["2S"], ["KS"]],
        hidden=[["AS"], [*SPADES_3_TO_J, "QS"]],
        foundations=(0, 13, 13, 13),
        stock=[],
        preset="N",
    )
    v = solve(g, budget_s=5)
    assert not isinstance(v, Unwinnable)
    if isinstance(v, Solved):
        assert wins(g, v.actions)


def test_stock_card_behind_the_pass_limit() -> None:
    # Draw 1: 4C lies at the bottom of the waste under 6C..KC; KC can leave for an empty
    # column, QC cannot (red kings are up, no foundation return), 5C is the last stock card.
    # One pass: lost. With recycles 4C comes round again.
    clubs = [f"{r}C" for r in ("6", "7", "8", "9", "10", "J", "Q", "K")]
    kw: dict[str, object] = dict(foundations=(13, 13, 13, 3), stock=["5C"], waste=["4C", *clubs])
    one = make_position(**kw, rules=Rules(1, "C", 1, False, False, "none"))  # type: ignore[arg-type]
    many = make_position(**kw, rules=Rules(1, "N", None, False))  # type: ignore[arg-type]
    assert isinstance(solve(one, budget_s=5), Unwinnable)
    v = solve(many, budget_s=5)
    assert isinstance(v, Solved) and wins(many, v.actions)
    assert any(type(a).__name__ == "Recycle" for a in v.actions)


# Deal 29 in draw 3: winnable with three passes (Classic), proven lost with one pass.
PASS_LIMIT_DEAL = 29


def test_pass_limit_changes_the_verdict() -> None:
    deal = Deal.from_number(PASS_LIMIT_DEAL)
    three = GameState.new(deal, Rules(3, "C", 3, False, False, "none"))
    one = GameState.new(deal, Rules(3, "C", 1, False, False, "none"))
    v3 = solve(three, budget_s=5)
    assert isinstance(v3, Solved) and wins(three, v3.actions)
    assert sum(type(a).__name__ == "Recycle" for a in v3.actions) >= 1
    assert isinstance(solve(one, budget_s=5), Unwinnable)


def test_budget_gives_unknown() -> None:
    v = solve(GameState.from_code("KL1-D3N-AAAAAAA"), max_nodes=10)
    assert isinstance(v, Unknown | Solved)
    if isinstance(v, Unknown):
        assert v.nodes <= 300


@pytest.mark.pure_solver
def test_a_search_dry_over_the_shared_table_hands_its_turn_to_one_sharing_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # One pass (sound cuts only): depth-first runs dry over the shared table in its first
    # turn. The talon-first best-first search sharing that table then finishes at once (every
    # child of the start is seen): the proof costs not one position more. The plain best-first
    # search with a table of its own, first in the phases, used to take the turn and search
    # the whole space again.
    g = GameState.from_code("KL1-D1V-AAAAAEY")
    monkeypatch.setattr(schedule, "_PHASES_LIMITED", ((schedule._DFS, 1.0),))
    alone = solve(g, budget_s=600, max_nodes=10**6)
    phases = ((schedule._DFS, 0.5), (schedule._BEST_ALONE, 0.75), (schedule._BEST_TALON, 1.0))
    monkeypatch.setattr(schedule, "_PHASES_LIMITED", phases)
    handed_over = solve(g, budget_s=600, max_nodes=10**6)
    assert isinstance(alone, Unwinnable) and isinstance(handed_over, Unwinnable)
    assert alone.nodes > 100
    assert handed_over.nodes == alone.nodes


# -- hints ------------------------------------------------------------------------------------


@pytest.mark.parametrize("code", ["KL1-D1N-AAAAAAG", "KL1-D3V-AAAAAAB", "KL1-D3N-AAAAAAA"])
def test_hint_is_legal(code: str) -> None:
    g = GameState.from_code(code)
    h = hint(g, budget_s=0.3)
    assert h.source in ("solver", "heuristic")
    assert h.action in g.legal_moves()
    assert h.to_dict()["action"] == format_action(h.action)


def test_hint_follows_a_solution_to_the_win() -> None:
    g = make_position([["KS"]], foundations=(12, 13, 13, 13), stock=[])
    h = hint(g)
    assert h.source == "solver" and h.action == Move("t1", "f1")


def test_hint_continues_its_line_without_searching() -> None:
    g = GameState.from_code("KL1-D1N-AAAAAAG")
    first = hint(g, budget_s=5)
    assert first.source == "solver" and first.line[0] == first.action
    assert replay_wins(g, first.line)
    g.apply(first.action)
    # No time to search at all: only the earlier line can give a solver hint.
    follow = hint(g, budget_s=0.0, line=first.line)
    assert follow.source == "solver" and follow.action == first.line[1]
    assert follow.line == first.line[1:]
    again = hint(g, budget_s=0.0, line=follow.line)  # asked again without moving
    assert again.action == follow.action and again.line == follow.line


def test_hint_drops_a_line_the_player_left() -> None:
    g = GameState.from_code("KL1-D1N-AAAAAAG")
    first = hint(g, budget_s=5)
    other = next(a for a in g.legal_moves() if a != first.action)
    g.apply(other)
    h = hint(g, budget_s=0.5, line=first.line)
    # Whatever it suggests now, a solver hint always carries a line that wins from here.
    assert h.action in g.legal_moves()
    if h.source == "solver":
        assert h.line[0] == h.action and replay_wins(g, h.line)


def test_hint_none_when_nothing_productive() -> None:
    # Lost (see above), KS already in its own column, QS stuck: no move changes anything.
    g = make_position(
        [["2S"], ["QS"], ["KS"]],
        hidden=[["AS"], SPADES_3_TO_J],
        foundations=(0, 13, 13, 13),
        stock=[],
        preset="C",
    )
    assert g.legal_moves()  # the engine allows moving KS around, which leads nowhere
    h = hint(g, budget_s=0.3)
    assert h.action is None and h.source == "none"
    assert h.reason.endswith("the deal can no longer be won")  # proven: 2S and AS


def test_hint_out_of_time_says_no_line_yet() -> None:
    """A search with no time finds nothing and proves nothing: the hint never says the
    deal is lost (issue #22), though this one is won."""
    g = GameState.from_code("KL1-D1N-AAAAAAG")
    h = hint(g, budget_s=0.0)
    assert h.source == "heuristic" and h.action in g.legal_moves()
    assert "no line found yet" in h.reason and "no longer" not in h.reason


def test_hint_never_suggests_cycling_a_useless_stock() -> None:
    # Lost as above (2C now lies under 2S too); the stock holds 3C..QC, none of which fits
    # anywhere ever (red cards are up for good, clubs wait for 2C), and every king is alone
    # at the bottom of its column. Cycling the stock would go on forever.
    g = make_position(
        [["2S"], ["QS"], ["KS"], ["KC"]],
        hidden=[["AS", "2C"], SPADES_3_TO_J],
        foundations=(0, 13, 13, 1),
        stock=[f"{r}C" for r in ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q")],
        rules=Rules(1, "C", None, False, False, "none"),
    )
    assert g.legal_moves()
    h = hint(g, budget_s=0.3)
    assert h.action is None and h.source == "none"


# -- analysis ---------------------------------------------------------------------------------


def test_effective_line_resolves_undos() -> None:
    deal = Deal.from_number(6)
    line = effective_line(deal, Rules(), ["draw", "draw", "undo", "draw", "undo", "undo"])
    assert [i for _, i in line] == [-1]
    line = effective_line(deal, Rules(), ["draw", "draw", "undo", "draw"])
    assert [i for _, i in line] == [-1, 0, 3]


def test_analysis_of_a_won_game() -> None:
    g = GameState.from_code("KL1-D1N-AAAAAAG")
    v = solve(g, budget_s=3)
    assert isinstance(v, Solved)
    a = analyse(g.deal, g.rules, v.actions, budget_s_per_position=1)
    assert a.status == "won" and a.point_of_no_return is None
    assert a.to_dict()["status"] == "won"


# A planted point of no return, found once by search and pinned here: in deal 15 under
# Vegas draw 3 (one pass), after t7-t1 t5-t7 t4-t3 draw draw the waste top must be played
# (waste-t6); a third draw buries it for good and the deal is proven lost.
PLANT_DEAL = 15
PLANT_LOG = [
    "t7-t1",
    "t5-t7",
    "draw",
    "undo",
    "t4-t3",
    "draw",
    "draw",
    "draw",  # index 7: the point of no return
    "draw",
    "undo",
    "draw",
    "resign",
]


def test_analysis_finds_the_planted_point_of_no_return() -> None:
    rules = Rules.from_preset(3, "V")
    deal = Deal.from_number(PLANT_DEAL)
    a = analyse(deal, rules, PLANT_LOG, budget_s_per_position=5)
    assert isinstance(a, Analysis)
    assert a.status == "point_of_no_return", a.message
    assert a.point_of_no_return == 7
    assert a.notation == "draw"
    assert a.winning_line_after == 6
    before = GameState.new(deal, rules)
    for x in ["t7-t1", "t5-t7", "t4-t3", "draw", "draw"]:
        before.apply(parse_action(x))
    assert wins(before, a.winning_line)
    d = a.to_dict()
    assert d["point_of_no_return"] == 7 and d["winning_line"][0] != "draw"


def test_analysis_of_a_deal_lost_from_the_start() -> None:
    # Deal PASS_LIMIT_DEAL with one pass in draw 3 is lost before the first move.
    deal = Deal.from_number(PASS_LIMIT_DEAL)
    a = analyse(
        deal, Rules(3, "C", 1, False, False, "none"), ["draw", "draw"], budget_s_per_position=5
    )
    assert a.status == "unwinnable_from_start" and a.point_of_no_return is None


def test_analysis_inconclusive_says_so() -> None:
    a = analyse(
        Deal.from_number(PLANT_DEAL),
        Rules.from_preset(3, "V"),
        PLANT_LOG,
        budget_s_per_position=0.0,
    )
    assert a.status == "inconclusive" and a.point_of_no_return is None


# -- a second process ------------------------------------------------------------------------


def _undecided(self: object, **_: object) -> Generator[None, None, None]:
    """A search that never decides anything (it stands in for the main process's)."""
    while True:
        yield


@pytest.mark.pure_solver
@pytest.mark.parametrize(
    ("position", "verdict"),
    [
        (lambda: GameState.from_code("KL1-D3N-AAAAAAD"), Solved),
        (
            lambda: make_position(
                [["2S"], ["KS"]],
                hidden=[["AS"], [*SPADES_3_TO_J, "QS"]],
                foundations=(0, 13, 13, 13),
                stock=[],
                preset="C",
            ),
            Unwinnable,
        ),
    ],
)
def test_the_helper_process_decides_what_the_main_search_cannot(
    monkeypatch: pytest.MonkeyPatch, position: Callable[[], GameState], verdict: type
) -> None:
    # The main process only runs a search that never ends; the helper (forked with the same
    # patches) runs the talon-first best-first search from the start.
    for name in ("_PHASES_RELAXED", "_PHASES_LIMITED"):
        monkeypatch.setattr(schedule, name, ((schedule._DFS, 1.0),))
    monkeypatch.setattr(_Solver, "dfs", _undecided)
    for name in ("_HELPER_PHASES_RELAXED", "_HELPER_PHASES_LIMITED"):
        monkeypatch.setattr(schedule, name, ((schedule._BEST_TALON_ALONE, 1.0),))
    monkeypatch.setattr(schedule, "_HELPER_AFTER", 0.0)
    g = position()
    v = solve(g, budget_s=20, workers=2)
    assert isinstance(v, verdict)
    if isinstance(v, Solved):
        assert wins(g, v.actions)
    assert not multiprocessing.active_children()
    # One process: nobody decides.
    assert isinstance(solve(g, budget_s=0.3), Unknown)


def _helper_never_answers(*_: object, **__: object) -> None:
    time.sleep(600)


@pytest.mark.pure_solver
def test_the_helper_process_stops_with_the_main_search(monkeypatch: pytest.MonkeyPatch) -> None:
    # Deal 4 takes the main search over a thousand positions: the helper starts at its first
    # turn, and is still running when the main search wins.
    monkeypatch.setattr(schedule, "_HELPER_AFTER", 0.0)
    monkeypatch.setattr(schedule, "_helper_main", _helper_never_answers)
    g = GameState.from_code("KL1-D3N-AAAAAAE")
    v = solve(g, budget_s=10, workers=2)
    assert isinstance(v, Solved) and wins(g, v.actions)
    assert not multiprocessing.active_children()


def _helper_dies(*_: object, **__: object) -> None:
    os._exit(1)  # a helper killed from outside (the OOM killer, say) sends nothing


@pytest.mark.pure_solver
def test_a_helper_that_dies_leaves_the_verdict_to_the_main_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(schedule, "_HELPER_AFTER", 0.0)
    monkeypatch.setattr(schedule, "_helper_main", _helper_dies)
    g = GameState.from_code("KL1-D3N-AAAAAAF")
    assert isinstance(solve(g, budget_s=10, workers=2), Solved)
    # A main search that never decides: the answer is Unknown at the deadline, not a crash.
    monkeypatch.setattr(schedule, "_PHASES_RELAXED", ((schedule._DFS, 1.0),))
    monkeypatch.setattr(_Solver, "dfs", _undecided)
    assert isinstance(solve(g, budget_s=0.5, workers=2), Unknown)
    assert not multiprocessing.active_children()


def _solve_in_a_pool_worker(code: str) -> str:
    return solve(GameState.from_code(code), budget_s=0.5, workers=2).verdict


@pytest.mark.pure_solver
def test_a_pool_worker_solves_without_a_helper(monkeypatch: pytest.MonkeyPatch) -> None:
    # Pool workers are daemonic and may not have children: solve() runs alone there. The
    # forked worker inherits the patches: a main search that never decides, so the helper
    # would be due at its first turn.
    monkeypatch.setattr(schedule, "_HELPER_AFTER", 0.0)
    monkeypatch.setattr(schedule, "_PHASES_RELAXED", ((schedule._DFS, 1.0),))
    monkeypatch.setattr(_Solver, "dfs", _undecided)
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply(_solve_in_a_pool_worker, ("KL1-D3N-AAAAAAD",)) == "unknown"


# -- command line -----------------------------------------------------------------------------


def test_main_solve_single(capsys: pytest.CaptureFixture[str]) -> None:
    assert main_solve(["solve", "KL1-D1N-AAAAAAG", "--budget", "3"]) == 0
    out = capsys.readouterr().out
    assert "KL1-D1N-AAAAAAG: solved" in out and "nodes" in out


def test_main_solve_batch(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main_solve(
            ["--batch", "2", "3", "--preset", "N", "--draw", "1", "--budget", "2", "--jobs", "1"]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "| D1N 2-3 @2s | 2 |" in out


def test_main_solve_bad_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert main_solve(["solve", "KL9-XXX"]) == 2
    assert "error" in capsys.readouterr().err


def test_deal_code_import() -> None:
    assert DealCode.parse("KL1-D1N-AAAAAAG").number == 6


# (Compiled modules keep no doctests: the pure-Python run checks theirs.)
@pytest.mark.pure_solver(native_too=True)
def test_solver_doctests() -> None:
    import doctest
    import importlib
    import pkgutil

    import games.engine
    import games.engine.solver as package

    # Every module of the package, with the package's names at hand as in its docstring.
    names = {**vars(games.engine), **{n: getattr(package, n) for n in package.__all__}}
    attempted = 0
    for info in pkgutil.iter_modules([os.path.dirname(package.__file__ or "")]):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        result = doctest.testmod(module, extraglobs=names, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, info.name
        attempted += result.attempted
    result = doctest.testmod(package, extraglobs=names, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted + attempted > 0
