"""The engine's command line: ``python -m games.engine show|replay|play|solve`` (docs/notation.md,
"Command line").

A local tool: ``show`` prints the whole layout, face-down cards included; ``replay`` checks a
replay text and prints the outcome as JSON; ``play`` is a terminal game that reads actions in
the notation, one a line, from stdin; ``solve`` hands its arguments to the solver module.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Final, TextIO, cast

from .actions import Auto
from .cards import CARD_NAMES
from .codes import DealCode
from .errors import DealCodeError, IllegalMoveError, NotationError, ReplayError
from .notation import format_action, parse_action
from .replay import replay
from .rules import Rules
from .state import Applied, GameState
from .views import full_view

__all__ = ["main", "render_board", "render_layout"]

EXIT_OK: Final = 0
EXIT_ERROR: Final = 2
"""Exit status for bad input: a malformed code, an unreadable or illegal replay line."""

_PRESET_NAMES: Final = {"N": "Normal", "V": "Vegas", "C": "Classic", "R": "Relaxed"}
_SUIT_LETTERS: Final = "SHDC"
_RED: Final = "\x1b[31m"
_DIM: Final = "\x1b[2m"
_BOLD: Final = "\x1b[1m"
_RESET: Final = "\x1b[0m"

PLAY_HELP: Final = """\
commands (one a line, any case):
  draw                 turn 1 or 3 cards from the stock
  recycle              turn the waste back into the stock (stock empty)
  t3-t5, t3-t5x3       move the top card, or a run of 3, from t3 to t5
  t3-t5@9H             move the run starting at 9H
  t1-f, waste-f        to the foundation of the card's suit (or name it: t1-f2)
  f2-t4                take a card back from a foundation
  tap t7, tap waste    top card to its foundation
  dtap t3, dtap t3 9H  quick placement (longest column that fits, then an empty one)
  undo, resign         undo the last action (counts as a move); give up
  moves                list the legal moves
  board                show the board again
  help                 this text
  quit                 leave (end of input quits too)
piles: stock (s), waste (w), f1..f4 = spades hearts diamonds clubs, t1..t7; ## = face down"""


# -- rendering ----------------------------------------------------------------------------------


def _rules_line(rules: Rules) -> str:
    passes = "unlimited" if rules.passes is None else str(rules.passes)
    return (
        f"draw {rules.draw}, preset {rules.preset} ({_PRESET_NAMES[rules.preset]}), "
        f"passes {passes}, foundation return {'yes' if rules.foundation_return else 'no'}, "
        f"auto-finish {'yes' if rules.auto_finish else 'no'}, scoring {rules.scoring}"
    )


def render_layout(code: DealCode) -> str:
    """The whole layout of a deal, face-down cards in brackets, the stock in draw order.

    >>> print(render_layout(DealCode.parse("KL1-D1N-AAAAAAG")).splitlines()[4])
    t2: [2H] JC
    """
    deal = code.deal
    lines = [
        f"{code}  (deal {code.number})",
        f"rules: {_rules_line(code.rules)}",
        "columns (bottom to top, [face down]):",
    ]
    for i, col in enumerate(deal.columns, 1):
        cards = [f"[{c}]" for c in col[:-1]] + [str(col[-1])]
        lines.append(f"t{i}: " + " ".join(cards))
    lines.append(f"stock (draw order): {' '.join(str(c) for c in deal.stock)}")
    return "\n".join(lines)


def _paint(name: str, width: int, color: bool) -> str:
    """``name`` padded to ``width``; red suits in red and ``##`` dimmed when ``color``."""
    text = name.ljust(width)
    if not color:
        return text
    if name == "##":
        return _DIM + text + _RESET
    if name[-1:] in ("H", "D"):
        return _RED + name + _RESET + text[len(name) :]
    return text


def render_board(state: GameState, code: DealCode | None = None, *, color: bool = False) -> str:
    """The position as a player sees it: face-down cards as ``##``, the waste top (draw 3: the
    last three), foundation tops, stock count, score, moves and pass.

    >>> print(render_board(GameState.from_code("KL1-D1N-AAAAAAG")).splitlines()[5])
     AD   ##   ##   ##   ##   ##   ##
    """
    rules = state.rules
    tab, down, found, stock, waste = state.raw()
    head = f"{code}  " if code is not None else ""
    head += f"draw {rules.draw} | {_PRESET_NAMES[rules.preset]}"
    score = f"score {state.score_display} | " if rules.scoring != "none" else ""
    limit = "(unlimited)" if rules.passes is None else f"of {rules.passes}"
    status = f"{score}moves {state.moves} | pass {state.passes_used + 1} {limit}"
    shown = waste[-rules.draw :] if waste else ()
    under = len(waste) - len(shown)
    waste_txt = " ".join(_paint(CARD_NAMES[x], 0, color) for x in shown) or "--"
    if under:
        waste_txt = f"({under} under) " + waste_txt
    tops = []
    for s in range(4):
        top = CARD_NAMES[s * 13 + found[s] - 1] if found[s] else "-" + _SUIT_LETTERS[s]
        tops.append(f"f{s + 1} " + (_paint(top, 0, color) if found[s] else top))
    lines = [
        head,
        status,
        f"stock {len(stock)} | waste {waste_txt}",
        "foundations  " + "  ".join(tops),
        "".join(f" t{c + 1}  " for c in range(7)).rstrip(),
    ]
    height = max(len(col) for col in tab)
    if height == 0:
        lines.append(" --   --   --   --   --   --   --")
    for r in range(height):
        cells = []
        for c in range(7):
            if r < len(tab[c]):
                name = "##" if r < down[c] else CARD_NAMES[tab[c][r]]
                cells.append(" " + _paint(name, 4, color))
            elif r == 0:
                cells.append(" --  ")
            else:
                cells.append("     ")
        lines.append("".join(cells).rstrip())
    return "\n".join(lines)


# -- commands -----------------------------------------------------------------------------------


def _parse_code(text: str, err: TextIO) -> DealCode | None:
    try:
        return DealCode.parse(text)
    except DealCodeError as e:
        print(f"error: {e}", file=err)
        return None


def _cmd_show(args: argparse.Namespace) -> int:
    code = _parse_code(args.code, sys.stderr)
    if code is None:
        return EXIT_ERROR
    if args.json:
        print(json.dumps(full_view(GameState.from_code(code)), indent=2))
    else:
        print(render_layout(code))
    return EXIT_OK


def _cmd_replay(args: argparse.Namespace) -> int:
    err = sys.stderr
    code = _parse_code(args.code, err)
    if code is None:
        return EXIT_ERROR
    name = "stdin" if args.file == "-" else args.file
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as f:
                text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        print(f"error: cannot read {name}: {e}", file=err)
        return EXIT_ERROR
    # Same reading as parse_actions, but keeping each action's line number in the file.
    lines: list[int] = []
    actions = []
    for no, line in enumerate(text.splitlines(), 1):
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        try:
            actions.append(parse_action(body))
        except NotationError as e:
            print(f"error: {name} line {no}: {e}", file=err)
            return EXIT_ERROR
        lines.append(no)
    try:
        result = replay(code, actions)
    except ReplayError as e:
        if e.index < len(lines):
            where = f"line {lines[e.index]} ({format_action(actions[e.index])!r})"
        else:
            where = "end of file"
        print(f"error: {name} {where}: {e.message}", file=err)
        return EXIT_ERROR
    o = result.outcome
    out = {
        "code": str(code),
        "won": o.won,
        "status": o.status,
        "score": o.score,
        "score_display": o.score_display,
        "moves": o.moves,
        "undos": o.undos,
        "foundations": o.foundations,
    }
    print(json.dumps(out, indent=2))
    return EXIT_OK


def _use_color(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _describe(rec: Applied, before: int | None) -> str:
    text = f"played {format_action(rec.action)}"
    if rec.score is not None and before is not None and rec.score != before:
        text += f" ({rec.score - before:+d})"
    if rec.flipped is not None:
        text += f", turned up {rec.flipped}"
    for a in rec.auto:
        if isinstance(a.action, Auto):
            text += f"\nthe game played {format_action(a.action.action)} by itself"
    return text


def play(code: DealCode, inp: TextIO, out: TextIO, *, color: bool = False) -> int:
    """Run an interactive game of ``code``, reading commands from ``inp`` line by line.

    Returns 0 when the game is won, resigned or left (``quit`` or end of input).
    """
    state = GameState.from_code(code)
    prompt = bool(getattr(inp, "isatty", None) and inp.isatty())

    def say(text: str = "") -> None:
        print(text, file=out)

    def board() -> None:
        say(render_board(state, code, color=color))

    say(f"Klondike {code}. Type 'help' for the commands.")
    say()
    board()
    while True:
        if prompt:
            out.write("> ")
            out.flush()
        line = inp.readline()
        if not line:
            say()
            say("end of input: bye")
            return EXIT_OK
        cmd = " ".join(line.split("#", 1)[0].lower().split())
        if not cmd:
            continue
        if cmd in ("quit", "exit", "q"):
            say("bye")
            return EXIT_OK
        if cmd in ("help", "?", "h"):
            say(PLAY_HELP)
            continue
        if cmd in ("board", "b", "show"):
            board()
            continue
        if cmd == "moves":
            legal = state.legal_moves()
            say("legal moves: " + (" ".join(format_action(m) for m in legal) or "none"))
            continue
        try:
            action = parse_action(cmd)
            before = state.score
            rec = state.apply(action)
        except NotationError as e:
            say(f"?? {e} (type 'help')")
            continue
        except IllegalMoveError as e:
            say(f"illegal: {e}")
            continue
        if state.status == "resigned":
            say(f"resigned after {state.moves} moves." + _final_score(state))
            return EXIT_OK
        say(_describe(rec, before))
        say()
        board()
        if state.is_won:
            say()
            win = f"You won in {state.moves} moves!" + _final_score(state)
            say(_BOLD + win + _RESET if color else win)
            return EXIT_OK


def _final_score(state: GameState) -> str:
    return f" Score {state.score_display}." if state.rules.scoring != "none" else ""


def _cmd_play(args: argparse.Namespace) -> int:
    code = _parse_code(args.code, sys.stderr)
    if code is None:
        return EXIT_ERROR
    color = {"always": True, "never": False}.get(args.color, _use_color(sys.stdout))
    return play(code, sys.stdin, sys.stdout, color=color)


def _solve(argv: list[str]) -> int:
    """Forward to ``games.engine.solver.main_solve``, imported only now (it is optional)."""
    try:
        module = importlib.import_module(f"{__package__}.solver")
    except ModuleNotFoundError as e:
        if e.name not in (f"{__package__}.solver", None):
            raise
        print(
            "error: the solver is not available (games.engine.solver is missing)", file=sys.stderr
        )
        return EXIT_ERROR
    fn = getattr(module, "main_solve", None)
    if not callable(fn):
        print(
            "error: games.engine.solver has no main_solve(argv); the solver has no command line",
            file=sys.stderr,
        )
        return EXIT_ERROR
    return int(cast(Callable[[list[str]], int], fn)(argv))


# -- entry point --------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m games.engine``."""
    p = argparse.ArgumentParser(
        prog="python -m games.engine",
        description="Klondike Daily's rules engine on the command line.",
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    s = sub.add_parser("show", help="print a deal's full layout and rules")
    s.add_argument("code", metavar="CODE", help="deal code, e.g. KL1-D1N-AAAAAAG")
    s.add_argument("--json", action="store_true", help="print the full view as JSON")
    s.set_defaults(run=_cmd_show)
    r = sub.add_parser("replay", help="replay a text log and print the outcome as JSON")
    r.add_argument("code", metavar="CODE")
    r.add_argument("file", metavar="FILE", help="replay text, one action a line ('-' = stdin)")
    r.set_defaults(run=_cmd_replay)
    g = sub.add_parser("play", help="play a deal in the terminal (commands on stdin)")
    g.add_argument("code", metavar="CODE")
    g.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="red suits in colour (auto: when stdout is a terminal and NO_COLOR is unset)",
    )
    g.set_defaults(run=_cmd_play)
    sub.add_parser(
        "solve",
        help="run the solver (arguments go to games.engine.solver.main_solve)",
        add_help=False,
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit status (0 ok, 2 bad input).

    >>> main(["show", "KL1-D1N-AAAAAAG"])  # doctest: +ELLIPSIS
    KL1-D1N-AAAAAAG  (deal 6)
    ...
    0
    """
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] == "solve":
        # Everything after "solve", options included, belongs to the solver's own parser.
        return _solve(args_list[1:])
    args = build_parser().parse_args(args_list)
    run = cast(Callable[[argparse.Namespace], int], args.run)
    return run(args)
