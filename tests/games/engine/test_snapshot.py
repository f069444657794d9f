"""The binary snapshot kept in each game row: exact round trip, plain data only."""

from __future__ import annotations

import pickle
import random

import pytest

from games.engine import UNDO_LIMIT, GameState, Undo, public_view
from games.engine.snapshot import SnapshotError, dumps, loads
from games.engine.state import HistoryNotLoadedError


def _played(code: str, steps: int, seed: int) -> GameState:
    rnd = random.Random(seed)
    g = GameState.from_code(code)
    for _ in range(steps):
        moves = g.legal_moves()
        if g.is_over or not moves:
            break
        g.apply(Undo() if g.can_undo and rnd.random() < 0.1 else rnd.choice(moves))
    return g


@pytest.mark.parametrize("code", ["KL1-D1N-AAAAAAG", "KL1-D3V-ZZZZZZZ", "KL1-D3C-AAAABCD"])
def test_round_trip_keeps_position_counters_and_history(code: str) -> None:
    g = _played(code, 250, seed=3)
    h = loads(dumps(g))
    assert h.position_key() == g.position_key()
    assert (h.score, h.moves, h.undos, h.passes_used, h.status, h.can_undo) == (
        g.score, g.moves, g.undos, g.passes_used, g.status, g.can_undo,
    )  # fmt: skip
    assert h.rules == g.rules
    # The undo history survives: undoing on both gives the same states all the way back.
    while g.can_undo:
        g.undo()
        h.undo()
        assert h.position_key() == g.position_key() and h.score == g.score
    assert not h.can_undo
    assert public_view(h) == public_view(g)


def test_loaded_state_plays_on_like_the_original() -> None:
    g = _played("KL1-D1N-AAAAAAG", 40, seed=9)
    h = loads(dumps(g))
    for move in g.legal_moves()[:1]:
        assert g.apply(move) == h.apply(move)


def test_refuses_anything_but_plain_data() -> None:
    class Evil:
        def __reduce__(self) -> tuple[object, tuple[str]]:
            return (print, ("pwned",))

    with pytest.raises(SnapshotError, match="plain data"):
        loads(pickle.dumps((1, {}, {"x": Evil()})))


def test_refuses_garbage_and_other_versions() -> None:
    with pytest.raises(SnapshotError):
        loads(b"not a pickle")
    g = GameState.from_code("KL1-D1N-AAAAAAG")
    version, rules, fields = pickle.loads(dumps(g))
    with pytest.raises(SnapshotError, match="version"):
        loads(pickle.dumps((version + 1, rules, fields)))
    del fields["_moves"]
    with pytest.raises(SnapshotError, match="fields"):
        loads(pickle.dumps((version, rules, fields)))


def test_without_history_counts_the_missing_steps() -> None:
    g = _played("KL1-D1N-AAAAAAG", 150, seed=5)
    assert g.can_undo
    lean = dumps(g, history=False)
    assert len(lean) * 5 < len(dumps(g))
    h = loads(lean)
    assert h.position_key() == g.position_key() and public_view(h) == public_view(g)
    assert h.can_undo and not h.history_complete and g.history_complete
    with pytest.raises(HistoryNotLoadedError):
        h.undo()


@pytest.mark.parametrize("seed", range(6))
def test_lean_snapshots_count_undo_steps_like_the_whole_history(seed: int) -> None:
    """Saved and loaded without history after every action (as the server does), a game
    still agrees with the original on `can_undo`; the steps it holds undo like the original's,
    and the count of missing ones stays within the 100-step limit."""
    rnd = random.Random(seed)
    g = GameState.from_code("KL1-D3N-AAAAAAG")
    h = loads(dumps(g, history=False))
    for _ in range(400):
        moves = g.legal_moves()
        if g.is_over or not (moves or g.can_undo):
            break
        if g.can_undo and (not moves or rnd.random() < 0.2) and h._history:
            action: object = Undo()
        elif moves:
            action = rnd.choice(moves)
        else:
            break
        assert g.apply(action) == h.apply(action)  # type: ignore[arg-type]
        if rnd.random() < 0.7:
            h = loads(dumps(h, history=False))
        assert h.can_undo == g.can_undo
        assert h._unloaded + len(h._history) == len(g._history) <= UNDO_LIMIT


@pytest.mark.parametrize(("seed", "kept"), [(s, k) for s in range(3) for k in (1, 4, 9)])
def test_a_snapshot_with_its_last_steps_undoes_them_like_the_original(seed: int, kept: int) -> None:
    """`dumps(state, history=n)` keeps the newest n steps: they undo exactly as the whole
    history does, and the next undo asks for the rest (HistoryNotLoadedError)."""
    g = _played("KL1-D3N-AAAAAAG", 120, seed=seed)
    steps = len(g._history)
    assert steps > kept
    h = loads(dumps(g, history=kept))
    assert h._unloaded + len(h._history) == steps and len(h._history) == kept
    assert len(dumps(g, history=False)) < len(dumps(g, history=kept)) < len(dumps(g))
    for _ in range(kept):
        assert h.can_undo and h.undo() == g.undo()
        assert h.position_key() == g.position_key()
    assert h.can_undo
    with pytest.raises(HistoryNotLoadedError):
        h.undo()


def test_a_snapshot_keeps_no_more_steps_than_the_state_has() -> None:
    g = _played("KL1-D1N-AAAAAAG", 3, seed=1)
    h = loads(dumps(g, history=50))
    assert h.history_complete and len(h._history) == len(g._history)


def test_reads_version_1_snapshots_with_their_whole_history() -> None:
    g = _played("KL1-D1N-AAAAAAG", 60, seed=2)
    _, rules, fields = pickle.loads(dumps(g))
    del fields["_unloaded"]
    h = loads(pickle.dumps((1, rules, fields)))
    assert h.history_complete and h.can_undo == g.can_undo
    assert h.undo() == g.undo()
