"""Klondike solver, hints and post-game analysis ("thoughtful" Klondike: every card is known).

>>> from games.engine import GameState
>>> v = solve(GameState.from_code("KL1-D1N-AAAAAAG"), budget_s=5)
>>> type(v).__name__ in ("Solved", "Unwinnable", "Unknown")
True

How it works (docs/solver.md has the long version):

* A compact internal position: 7 columns as ``bytes`` (first byte ``100 + face-down count``,
  then the cards bottom first, engine ints), the *talon* (waste bottom..top then stock in draw
  order) as ``bytes`` with ``pos`` = how many of its cards are on the waste, passes used, and
  the foundation counts.
* Stock moves are macros: "draw (and recycle if needed) until card X is on the waste, then play
  it". For a talon of ``L`` cards and ``pos`` cards on the waste, the reachable waste sizes are
  ``pos`` itself, ``pos + k*draw`` and ``L``; after one recycle ``k*draw`` and ``L``. Reaching a
  card without a recycle dominates reaching it with one (same position, fewer passes used), so a
  card gives one child at most. In draw 1 with unlimited passes every talon card is reachable at
  any time, so the talon is kept as a sorted set.
* Depth-first search with a transposition table keyed on the sorted columns (column order does
  not matter), the talon, and - only where it changes what is reachable - ``pos`` and the passes.
* Sound cuts: safe foundation moves are played automatically (see ``_safe``); a king that
  lies at the bottom of its column never moves to an empty column; a column is emptied only
  when a king can move in next; a partial run move only when the next move can use the card
  it leaves; with the talon as a set, a talon card goes to a column only as the start of a
  chain that a face-up card or a foundation top can end (``_down_useful``). Dead positions,
  where some column card can never leave the card it lies on, are cut at once (``_stuck``).
* Fast cuts, for wins only: a foundation return only when the next move uses the card
  (``_return_useful``), a talon card up only when a chain to a column top follows
  (``_up_useful``). They can cut every winning line, so the searches that use them prove
  nothing by running dry: then a search with the sound cuts only takes over, and only its
  running dry is ``Unwinnable`` (see ``_schedule``).
* For draw 3 or a pass limit, a third search runs the relaxed game where the talon is a set
  (draw 1, unlimited passes), with the sound cuts: it allows every real move and more, so its
  loss is a proof.
* Solutions are expanded into engine actions (Draw/Recycle/Move) and replayed through the
  engine before they are returned, so a ``Solved`` verdict is always a checked win.

The package, one concern a module (a module imports only those above it):

* :mod:`.positions`: the compact position, the card tables and the macro moves;
* :mod:`.pruning`: the dead-position check (``_stuck``) and the cuts of the move generator;
* :mod:`.moves`: the game as a search sees it (``_Game``): move generation and application;
* :mod:`.search`: the searches (``_Solver``: depth-first, best-first) and their tables;
* :mod:`.verdicts`: ``Solved`` / ``Unwinnable`` / ``Unknown`` and the engine check of a line;
* :mod:`.schedule`: :func:`solve`, the turns of the searches and the helper process;
* :mod:`.shortening`: :func:`shorten`, the shortest winning line found within a fixed number
  of positions (a daily deal's par);
* :mod:`.hints`: :func:`hint`, :func:`line_rest`; :mod:`.analysis`: :func:`analyse`;
* :mod:`.cli`: the batch runner and the ``solve`` command line;
* :mod:`.native`: whether the compiled build of the hot modules (mypyc) is loaded.
"""

from __future__ import annotations

from . import native

# The compiled build of the hot modules, when it matches their sources (see .native); the
# imports below then load it.
__path__[:0] = native.native_path()

from .analysis import Analysis, analyse, effective_line
from .cli import SUMMARY_HEADER, BatchRow, batch, format_summary, main_solve, summarize
from .hints import Hint, hint, line_rest
from .schedule import solve
from .shortening import shorten
from .verdicts import Solved, SolverError, Unknown, Unwinnable, Verdict, replay_wins

__all__ = [
    "SUMMARY_HEADER",
    "Analysis",
    "BatchRow",
    "Hint",
    "Solved",
    "SolverError",
    "Unknown",
    "Unwinnable",
    "Verdict",
    "analyse",
    "batch",
    "effective_line",
    "format_summary",
    "hint",
    "line_rest",
    "main_solve",
    "replay_wins",
    "shorten",
    "solve",
    "summarize",
]
