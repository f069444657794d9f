"""Shorter winning lines: the shortest line found within a fixed number of positions, a
daily deal's par.

A line of :func:`~.schedule.solve` is the first win its searches find, not a short one: in
draw 1 the talon is a set to them, so the line draws through the stock again and again for
the cards it takes in its own order. :func:`shorten` keeps the shortest of several lines,
each replayed to a win through the engine before it counts, and counts actions as the move
counter does (draws, recycles and moves; a line has no undos):

* the line given, its cycles cut (:func:`cut_cycles`: a stretch that comes back to a
  position the line had, a pass through the stock that moved nothing among them);
* a simple greedy player's line (:func:`greedy_line`), when it wins;
* the lines of the searches from the start (:data:`START_SEARCHES`), beam searches and
  best-first searches over the solver's macro moves with the talon kept in its order: a
  position's cost is the engine actions of its line (each stock move's draws and recycle
  included, and the safe foundation moves played after it), and a search ranks positions by
  cost plus a weighted estimate of what is left (cards not on a foundation, face-down cards,
  draws through the talon);
* then sweeps along the best line so far: a beam from each of :data:`TAIL_POINTS` positions
  on it (the last first), a shorter way from there replacing the rest of the line; and while
  a sweep finds one, another along the new line with twice the points.

Every bound counts positions (``max_nodes``, default :data:`SHORTEN_NODES`) or actions, never
seconds: the same line gives the same result on any machine.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from typing import Final

from ..actions import DRAW, RECYCLE, Move, PlainAction
from ..state import GameState, RawPosition
from .moves import _Game
from .positions import _DOWN0, _TALON, _Macro, _Pos
from .verdicts import SolverError, _expand, replay_wins

SHORTEN_NODES: Final = 400_000
"""The positions :func:`shorten` may generate in all its searches: about a second, compiled
(docs/benchmarks.md, "Par")."""
START_SEARCHES: Final = (
    (50, (1.5, 1.5, 1.5)),
    (50, (2.0, 1.0, 1.0)),
    (50, (1.0, 2.0, 2.0)),
    (0, (2.0, 2.0, 2.0)),
    (0, (2.0, 1.0, 1.0)),
    (0, (1.0, 2.0, 1.0)),
    (200, (1.5, 1.5, 1.5)),
)
"""The searches from the start: (beam width, or 0 for best-first; weights of the estimate:
cards not on a foundation, face-down cards, draws through the talon). Each loses its way in
some deals that others win: a beam cannot back out of a dead end, best-first can but may
not get out of a big one in time; a wider beam loses its way less often, at four times the
cost."""
BEST_FIRST_NODES: Final = 30_000
"""A best-first search's share of the positions."""
TAIL_POINTS: Final = 8
"""The positions along the best line that get a search of their own (:data:`TAIL_SEARCH`):
at 7/8, 6/8, ... 1/8 of its length."""
TAIL_SEARCH: Final = (50, (1.5, 1.5, 1.5))
MAX_TAIL_POINTS: Final = 32
"""While positions are left and the last sweep found a shorter line, another sweep goes along
the new one, with twice the points up to this many."""
GREEDY_ACTIONS: Final = 1000
"""The greedy player gives up after this many actions (it never gets near: it gives up when
a pass through the stock moves no card)."""


def shorten(
    state: GameState, actions: Sequence[PlainAction], *, max_nodes: int = SHORTEN_NODES
) -> list[PlainAction]:
    """The shortest winning line from ``state`` found within ``max_nodes`` positions: never
    longer than ``actions``, which must win from ``state``; ``max_nodes=0`` only cuts the
    cycles of ``actions``.

    >>> g = GameState.from_code("KL1-D1N-AAAAAAG")
    >>> line = solve(g, budget_s=5).actions
    >>> short = shorten(g, line)
    >>> replay_wins(g, short) and len(short) <= len(line)
    True

    :raises ValueError: ``actions`` does not win from ``state``.
    """
    if not replay_wins(state, actions):
        raise ValueError("the line to shorten does not win from this position")
    best = cut_cycles(state, actions)
    if max_nodes <= 0:
        return best
    best = _shorter(state, best, greedy_line(state))
    left = max_nodes
    for search in START_SEARCHES:
        if left <= 0:
            break
        found, used = _search_line(state, search, left)
        left -= used
        best = _shorter(state, best, found)
    points = TAIL_POINTS
    while left > 0:  # sweeps along the best line, twice as many points each time
        before = len(best)
        for point in range(points - 1, 0, -1):
            if left <= 0:
                break
            k = len(best) * point // points
            at = state.copy()
            for a in best[:k]:
                at.apply(a)
            found, used = _search_line(at, TAIL_SEARCH, left)
            left -= used
            if found is not None:
                best = _shorter(state, best, best[:k] + found)
        if len(best) == before:
            break
        points = min(points * 2, MAX_TAIL_POINTS)
    return best


def _shorter(
    state: GameState, best: list[PlainAction], line: list[PlainAction] | None
) -> list[PlainAction]:
    """``line``, its cycles cut, when it is shorter than ``best`` and wins; else ``best``."""
    if line is None or len(line) >= len(best) or not replay_wins(state, line):
        return best
    line = cut_cycles(state, line)
    return line if replay_wins(state, line) else best


def cut_cycles(state: GameState, actions: Sequence[PlainAction]) -> list[PlainAction]:
    """The shortest line that ``actions`` hold once every stretch that comes back to a
    position the line had is cut (the passes used aside: the rest of the line plays the same
    with fewer of them). The positions the line visits, one node each however often it
    visits them, and its actions as edges: the shortest path from the first to the last.

    >>> g = GameState.from_code("KL1-D1N-AAAAAAG")
    >>> cut_cycles(g, [DRAW] * 24 + [RECYCLE]) == []
    True

    :raises IllegalMoveError: an action the engine refuses.
    """
    g = state.copy()
    ids: dict[tuple[object, ...], int] = {_position(g): 0}
    node = [0]  # the node of each position of the line
    for a in actions:
        g.apply(a)
        node.append(ids.setdefault(_position(g), len(ids)))
    leaving: list[list[int]] = [[] for _ in ids]  # the actions out of each node, in order
    for i in range(len(actions)):
        leaving[node[i]].append(i)
    # Breadth first from the start: each node's first way in is a shortest one.
    came: list[int] = [-1] * len(ids)  # the action that first reached each node
    came[0] = len(actions)  # (the start: reached by none)
    queue = [0]
    for at in queue:
        for i in leaving[at]:
            nxt = node[i + 1]
            if came[nxt] < 0:
                came[nxt] = i
                queue.append(nxt)
    out: list[PlainAction] = []
    at = node[-1]
    while at != 0:
        i = came[at]
        out.append(actions[i])
        at = node[i]
    out.reverse()
    return out


def _position(g: GameState) -> tuple[object, ...]:
    """The cards where they lie (the position key without the passes used)."""
    return g.position_key()[:5]


def greedy_line(state: GameState, max_actions: int = GREEDY_ACTIONS) -> list[PlainAction] | None:
    """The line of a simple greedy player from ``state`` if it wins, else None.

    It looks only at the face-up cards and plays the first legal move it likes best
    (:func:`_greedy_value`: a card up that turns a card face up, a run that turns one face up,
    a card up, a king into an empty column, a column emptied for a king, the waste's card onto
    a column, a run off a card that can then go up or take the waste's card), never one that
    comes back to a position it had; else it draws (or recycles). After a pass through the
    stock with no card moved it tries one other move onto a column, then gives up. It never
    undoes.

    >>> g = GameState.from_code("KL1-D1N-AAAAAAG")
    >>> line = greedy_line(g)
    >>> line is None or replay_wins(g, line)
    True
    """
    g = state.copy()
    out: list[PlainAction] = []
    seen = {_position(g)}
    idle = 0
    tried = False
    while not g.is_won:
        if len(out) >= max_actions:
            return None
        raw = g.raw()
        legal = g.legal_moves()
        talon = len(raw.stock) + len(raw.waste)
        best: PlainAction | None = None
        if idle > (talon + g.rules.draw - 1) // g.rules.draw + 2:  # a pass: nothing moved
            if tried:
                return None
            tried = True
            for a in legal:
                if isinstance(a, Move) and a.dst.startswith("t") and not _repeats(g, a, seen):
                    best = a
                    break
            if best is None:
                return None
        else:
            value = 0
            for a in legal:
                if isinstance(a, Move):
                    v = _greedy_value(raw, a)
                    if v > value and not _repeats(g, a, seen):
                        best, value = a, v
        if best is None:
            if DRAW in legal:
                best = DRAW
            elif RECYCLE in legal:
                best = RECYCLE
            else:
                return None
        g.apply(best)
        idle = idle + 1 if best in (DRAW, RECYCLE) else 0
        seen.add(_position(g))
        out.append(best)
    return out


def _repeats(g: GameState, m: Move, seen: set[tuple[object, ...]]) -> bool:
    """Does ``m`` lead back to a position in ``seen``?"""
    trial = g.copy()
    trial.apply(m)
    return _position(trial) in seen


def _greedy_value(raw: RawPosition, m: Move) -> int:
    """How much :func:`greedy_line` likes a card move (0: not at all)."""
    if m.src.startswith("f"):
        return 0
    col: tuple[int, ...] = ()
    down = 0
    if m.src.startswith("t"):
        c = int(m.src[1:]) - 1
        col, down = raw.tableau[c], raw.down[c]
    reveals = down > 0 and m.count == len(col) - down
    if m.dst.startswith("f"):
        return 100 if reveals else 80
    if reveals:
        return 90 + down
    dst = raw.tableau[int(m.dst[1:]) - 1]
    if not col:  # from the waste
        return 70 if not dst else 50
    if not dst:  # a king into an empty column: only off other cards
        return 70 if m.count < len(col) else 0
    if m.count == len(col):  # empties a column: when a king waits for it
        return 60 if _king_waits(raw) else 0
    under = col[len(col) - m.count - 1]
    if raw.foundations[under // 13] == under % 13:
        return 40  # frees a card for its foundation
    if raw.waste and raw.waste[-1] % 13 + 1 == under % 13 and _red(raw.waste[-1]) != _red(under):
        return 35  # makes room for the waste's card
    return 0


def _red(card: int) -> bool:
    return card // 13 in (1, 2)


def _king_waits(raw: RawPosition) -> bool:
    """Is a king on the waste's top, or face up on other cards in a column?"""
    if raw.waste and raw.waste[-1] % 13 == 12:
        return True
    for col, down in zip(raw.tableau, raw.down, strict=True):
        for i in range(max(down, 1), len(col)):
            if col[i] % 13 == 12:
                return True
    return False


def _search_line(
    state: GameState, search: tuple[int, tuple[float, float, float]], max_nodes: int
) -> tuple[list[PlainAction] | None, int]:
    """The line of one search from ``state`` (``search``: as in :data:`START_SEARCHES`),
    checked by the engine, or None; and the positions it generated."""
    game = _ordered_game(state)
    width, weights = search
    if width:
        line, nodes = _beam(game, width, weights, max_nodes)
    else:
        line, nodes = _best_first(game, weights, min(max_nodes, BEST_FIRST_NODES))
    if line is None:
        return None, nodes
    try:
        actions = _expand(state, line)
    except SolverError:  # never expected: the searches play the solver's own moves
        return None, nodes
    return (actions if replay_wins(state, actions) else None), nodes


def _ordered_game(state: GameState) -> _Game:
    """The search's game from ``state`` with the sound cuts and the talon in its order: in
    draw 1 with unlimited passes the searches keep it as a set (any card at any time), which
    says nothing of the draws it takes."""
    game = _Game(state, sound=True)
    if game.talon_is_set:
        raw = state.raw()
        cols, _, _, passes, found = game.start
        game.talon_is_set = False
        game.start = (
            cols,
            bytes(raw.waste) + bytes(reversed(raw.stock)),
            len(raw.waste),
            passes,
            found,
        )
    return game


def _talon_cost(n: int, pos: int, i: int, draw: int) -> int:
    """The draws (and the recycle) that bring talon card ``i`` to the waste's top, from
    ``pos`` cards on the waste in a talon of ``n`` (as :func:`~.verdicts._expand` plays
    them)."""
    if i == pos - 1:
        return 0
    if i >= pos and ((i + 1 - pos) % draw == 0 or i == n - 1):
        return (i + 1 - pos + draw - 1) // draw
    return (n - pos + draw - 1) // draw + 1 + (i + 1 + draw - 1) // draw


def _key(game: _Game, p: _Pos) -> bytes:
    """``p``'s key in the beam's table: its columns sorted, its talon, its waste size and,
    under a pass limit, its passes used."""
    parts = sorted(p[0])
    parts.append(b"\xff")
    parts.append(p[1])
    parts.append(bytes((255, p[2], 0 if game.unlimited else min(p[3], 254))))
    return b"".join(parts)


def _estimate(game: _Game, p: _Pos, weights: tuple[float, float, float]) -> float:
    """What is left to play from ``p``, roughly: its cards not on a foundation, face-down
    cards and draws through the talon, each weighted."""
    hidden = 0
    for col in p[0]:
        hidden += col[0] - _DOWN0
    left = 52 - sum(p[4])
    draws = (len(p[1]) + game.draw - 1) // game.draw
    return weights[0] * left + weights[1] * hidden + weights[2] * draws


class _Node:
    """A step of a line in the beam: the macro and the automatic moves after it."""

    __slots__ = ("parent", "step")

    def __init__(self, parent: _Node | None, step: list[_Macro]) -> None:
        self.parent = parent
        self.step = step


def _beam(
    game: _Game, width: int, weights: tuple[float, float, float], max_nodes: int
) -> tuple[list[_Macro] | None, int]:
    """The cheapest winning macro line a beam of ``width`` finds (automatic moves included),
    or None; and the positions it generated (at most ``max_nodes``, give or take a
    position's children).

    Each round expands every position of the beam; the children, at most one a key (the
    cheapest), new or cheaper than when a beam kept them before, are ranked by cost so far
    plus :func:`_estimate`, and the ``width`` best make the next beam. A win is costed with
    the cards it still has to play up; the beam goes on while a position in it might still
    lead to a cheaper one."""
    p0, autos = game._start()
    if game._won(p0):
        return autos, 0
    kept: dict[bytes, int] = {_key(game, p0): len(autos)}
    beam: list[tuple[float, int, _Pos, _Node | None]] = [(0.0, len(autos), p0, None)]
    nodes = 0
    best_cost = 1 << 30
    best: _Node | None = None
    while beam and nodes < max_nodes:
        level: dict[bytes, tuple[float, int, _Pos, _Node | None]] = {}
        for _, g, p, node in beam:
            if g + 52 - sum(p[4]) >= best_cost or nodes >= max_nodes:
                continue
            for step, child, cost in _children(game, p, g):
                nodes += 1
                if game._won(child):
                    total = cost + 52 - sum(child[4])
                    if total < best_cost:
                        best_cost, best = total, _Node(node, step)
                    continue
                k = _key(game, child)
                before = kept.get(k)
                if before is not None and before <= cost:
                    continue
                mine = level.get(k)
                if mine is not None and mine[1] <= cost:
                    continue
                f = cost + _estimate(game, child, weights)
                level[k] = (f, cost, child, _Node(node, step))
        ranked = sorted(level.items(), key=_rank)[:width]
        beam = []
        for k, entry in ranked:
            kept[k] = entry[1]
            beam.append(entry)
    if best is None:
        return None, nodes
    return _unwind(autos, best), nodes


def _best_first(
    game: _Game, weights: tuple[float, float, float], max_nodes: int
) -> tuple[list[_Macro] | None, int]:
    """The first winning macro line of a best-first search by cost so far plus
    :func:`_estimate` (weighted A*), or None; and the positions it generated. Unlike a beam
    it backs out of a dead end, and finds lines in deals where every beam loses its way."""
    p0, autos = game._start()
    if game._won(p0):
        return autos, 0
    kept: dict[bytes, int] = {_key(game, p0): len(autos)}
    heap: list[tuple[float, int, int, _Pos, _Node | None]] = [(0.0, 0, len(autos), p0, None)]
    nodes = 0
    tick = 0
    while heap and nodes < max_nodes:
        _, _, g, p, node = heapq.heappop(heap)
        if kept.get(_key(game, p), g) < g:
            continue  # reached more cheaply since
        for step, child, cost in _children(game, p, g):
            nodes += 1
            if game._won(child):
                return _unwind(autos, _Node(node, step)), nodes
            k = _key(game, child)
            before = kept.get(k)
            if before is not None and before <= cost:
                continue
            kept[k] = cost
            tick += 1
            f = cost + _estimate(game, child, weights)
            heapq.heappush(heap, (f, tick, cost, child, _Node(node, step)))
    return None, nodes


def _children(game: _Game, p: _Pos, g: int) -> Iterator[tuple[list[_Macro], _Pos, int]]:
    """Each move from ``p``, reached at cost ``g``: its steps (the move, then the automatic
    moves it sets off), the position after them, and the cost there: a move a step, and a
    talon move what its draws and recycles count too (:func:`_talon_cost`)."""
    talon, pos = p[1], p[2]
    for m in game._moves(p):
        step: list[_Macro] = [m]
        child = game._apply(p, m, step)
        cost = g + len(step)
        if m[0] == _TALON:
            cost += _talon_cost(len(talon), pos, talon.index(m[1]), game.draw)
        yield step, child, cost


def _unwind(autos: list[_Macro], node: _Node | None) -> list[_Macro]:
    """The macro line that ends at ``node``, after the start's automatic moves."""
    steps: list[list[_Macro]] = []
    while node is not None:
        steps.append(node.step)
        node = node.parent
    out = list(autos)
    for s in reversed(steps):
        out.extend(s)
    return out


def _rank(item: tuple[bytes, tuple[float, int, _Pos, _Node | None]]) -> float:
    return item[1][0]
