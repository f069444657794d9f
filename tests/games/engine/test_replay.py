"""replay(): rebuild a game from its deal and log."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    Action,
    Auto,
    DealCode,
    Draw,
    GameState,
    IllegalMoveError,
    Move,
    ReplayError,
    Resign,
    Rules,
    Undo,
    action_to_dict,
    format_action,
    net_line,
    replay,
)


def test_replay_outcome_and_scores() -> None:
    log: list[Action] = [Draw(), Move("t1", "f3"), Undo(), Move("t1", "f3"), Resign()]
    r = replay("KL1-D1N-AAAAAAG", log)
    assert r.scores == [0, 10, 0, 10, 10]
    o = r.outcome
    assert (o.status, o.won, o.score, o.score_display, o.moves, o.undos, o.foundations) == (
        "resigned",
        False,
        10,
        "10",
        4,
        1,
        1,
    )


def test_replay_accepts_code_objects_deal_rules_text_and_dicts() -> None:
    log: list[Action] = [Draw(), Move("t1", "f3")]
    code = DealCode.parse("KL1-D3V-AAAAAAG")
    a = replay(code, log)
    b = replay((code.deal, Rules.from_preset(3, "V")), [format_action(x) for x in log])
    c = replay(str(code), [action_to_dict(x) for x in log])
    assert a.state.position_key() == b.state.position_key() == c.state.position_key()
    assert a.scores == b.scores == c.scores == [-52, -47]


def test_replay_error_names_index_and_rule() -> None:
    with pytest.raises(ReplayError, match=r"action 1: .*empty column accepts only a king") as e:
        replay("KL1-D1N-AAAAAAG", [Move("t1", "f3"), Move("t2", "t1")])
    assert e.value.index == 1 and isinstance(e.value, IllegalMoveError)
    with pytest.raises(ReplayError, match=r"action 0: .*not an action"):
        replay("KL1-D1N-AAAAAAG", ["bogus"])


def _relaxed() -> GameState:
    return GameState.from_position(
        Rules.from_preset(1, "R"),
        tableau=[["QS"]],
        hidden=[["KS"]],
        stock=["KC"],
        foundations=(11, 13, 13, 12),
    )


def test_replay_checks_automatic_entries() -> None:
    g = _relaxed()
    rec = g.apply(Move("t1", "f1"))
    log = [rec.action, *(x.action for x in rec.auto)]
    assert [format_action(a) for a in log] == ["t1-f1", "*t1-f1", "*draw", "*waste-f4"]
    r = replay(_relaxed(), [format_action(a) for a in log])
    assert r.outcome.won and r.outcome.moves == 1 and r.scores == [None] * 4
    with pytest.raises(ReplayError, match="action 2: expected the automatic action \\*draw"):
        replay(_relaxed(), [log[0], log[1], Auto(Move("waste", "f4"))])
    with pytest.raises(ReplayError, match="action 2: the log ends before"):
        replay(_relaxed(), log[:2])
    with pytest.raises(ReplayError, match="action 0: unexpected automatic"):
        replay("KL1-D1N-AAAAAAG", [Auto(Draw())])
    with pytest.raises(ReplayError, match="action 4: the game is over"):
        replay(_relaxed(), [*log, Undo()])


def test_replay_of_live_play_with_auto_finish() -> None:
    # Play a relaxed game by a simple greedy policy until it wins or 400 actions pass; the log
    # (with automatic entries) must replay to the same state.
    g = GameState.from_code("KL1-D1R-AAAAAAB")
    log: list[object] = []
    import random

    rng = random.Random(7)
    while not g.is_over and len(log) < 400:
        legal = g.legal_moves()
        if not legal:
            break
        founds = [m for m in legal if isinstance(m, Move) and m.dst.startswith("f")]
        rec = g.apply(rng.choice(founds or legal))
        log.append(rec.action)
        log.extend(x.action for x in rec.auto)
    r = replay("KL1-D1R-AAAAAAB", log)  # type: ignore[arg-type]
    assert r.state.position_key() == g.position_key()
    assert r.outcome.moves == g.moves
    # Dropping the automatic tail is refused.
    autos = [i for i, a in enumerate(log) if isinstance(a, Auto)]
    if autos:
        with pytest.raises(ReplayError, match="automatic"):
            replay("KL1-D1R-AAAAAAB", log[: autos[0]] + log[autos[0] + 1 :])  # type: ignore[arg-type]


def test_revealed_lists_the_cards_each_entry_turned_face_up():
    # KL1-D1N-AAAAAAG: t7 is [9H 3C QD 7S QS 4D] AH; the stock draws QH, JH, AS first.
    result = replay(
        "KL1-D1N-AAAAAAG", ["draw", "t7-f2", "undo", "undo", "draw"], track_revealed=True
    )
    assert [[str(c) for c in cards] for cards in result.revealed] == [
        ["QH"], ["4D"], [], [], ["QH"]
    ]  # fmt: skip
    assert replay("KL1-D1N-AAAAAAG", ["draw"]).revealed is None


def test_revealed_cards_come_again_when_drawn_again():
    result = replay("KL1-D3N-AAAAAAG", ["draw"] * 8 + ["recycle", "draw"], track_revealed=True)
    revealed = [[str(c) for c in cards] for cards in result.revealed]
    assert revealed[:2] == [["QH", "JH", "AS"], ["QC", "2S", "2C"]]
    assert sum(len(cards) for cards in revealed[:8]) == 24  # the whole stock, once each
    assert revealed[8:] == [[], ["QH", "JH", "AS"]]  # turned face up again after the recycle


def test_the_net_line_leaves_out_undone_actions_and_their_automatic_moves() -> None:
    assert net_line(["draw", "undo", "t1-f1", "draw", "draw", "undo", "undo"]) == ["t1-f1"]
    assert net_line(["undo", "t1-f1", "*t2-f1", "undo", "draw"]) == ["draw"]
    assert net_line([]) == []


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    mode=st.sampled_from([(d, p) for d in (1, 3) for p in "NVCR"]),
    number=st.integers(0, 26**7 - 1),
    choices=st.lists(st.integers(0, 10_000), max_size=120),
)
def test_the_net_line_replays_to_the_same_position(
    mode: tuple[int, str], number: int, choices: list[int]
) -> None:
    """Whatever was tried and taken back, the net line reaches the position the log does."""
    code = str(DealCode(mode[0], mode[1], number))
    state = GameState.from_code(code)
    log: list[str] = []
    for choice in choices:
        if state.is_over:
            break
        legal = [a for a in state.legal_moves() if not isinstance(a, Resign)]
        if state.can_undo and choice % 4 == 0:
            legal = [Undo()]
        applied = state.apply(legal[choice % len(legal)])
        log += [format_action(applied.action)] + [format_action(a.action) for a in applied.auto]
    net = net_line(log)
    assert "undo" not in net
    assert replay(code, net).state.position_key() == replay(code, log).state.position_key()
