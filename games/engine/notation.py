"""One-line text notation for every action (docs/notation.md); the replay export format.

>>> format_action(Move("t3", "t5", 2))
't3-t5x2'
>>> parse_action("*waste-f2")
Auto(action=Move(src='waste', dst='f2', count=1, card=None))
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .actions import (
    COLUMNS,
    DRAW,
    PILE_INDEX,
    RECYCLE,
    RESIGN,
    UNDO,
    Action,
    Auto,
    DoubleTap,
    Draw,
    Move,
    Recycle,
    Resign,
    Tap,
    Undo,
)
from .cards import Card
from .errors import NotationError

__all__ = ["format_action", "format_actions", "parse_action", "parse_actions"]

_WORDS: dict[str, Action] = {"draw": DRAW, "recycle": RECYCLE, "undo": UNDO, "resign": RESIGN}
_MOVE = re.compile(
    r"(?P<src>[a-wyz0-9]+)-(?P<dst>[a-wyz0-9]+)(?:x(?P<count>\d+))?(?:@(?P<card>[0-9a-z]+))?"
)
_ALIASES = {"w": "waste", "s": "stock"}


def format_action(action: Action) -> str:
    """The one-line text of an action.

    >>> format_action(DoubleTap("t3", Card.parse("9H")))
    'dtap t3 9H'

    :raises TypeError: not an action.
    """
    if isinstance(action, Move):
        s = f"{action.src}-{action.dst}"
        if action.count != 1:
            s += f"x{action.count}"
        if action.card is not None:
            s += f"@{action.card}"
        return s
    if isinstance(action, Draw):
        return "draw"
    if isinstance(action, Recycle):
        return "recycle"
    if isinstance(action, Undo):
        return "undo"
    if isinstance(action, Resign):
        return "resign"
    if isinstance(action, Tap):
        return f"tap {action.src}"
    if isinstance(action, DoubleTap):
        return f"dtap {action.src}" + ("" if action.card is None else f" {action.card}")
    if isinstance(action, Auto):
        return "*" + format_action(action.action)
    raise TypeError(f"not an action: {action!r}")


def _pile(name: str, text: str, *, allow_f: bool = False) -> str:
    p = _ALIASES.get(name, name)
    if p in PILE_INDEX or (allow_f and p == "f"):
        return p
    raise NotationError(f"{text!r}: unknown pile {name!r} (use stock, waste, f1..f4, t1..t7)")


_PARSED: dict[str, Action] = {}


def parse_action(text: str) -> Action:
    """Parse one action line (any case, surrounding blanks ignored).

    >>> parse_action("T3-T5x2")
    Move(src='t3', dst='t5', count=2, card=None)

    :raises NotationError: the message says what is wrong.
    """
    # Actions are immutable and a log repeats few distinct lines, so replaying text is
    # dominated by parsing unless results are shared.
    hit = _PARSED.get(text) if isinstance(text, str) else None
    if hit is not None:
        return hit
    action = _parse(text)
    if len(_PARSED) >= 4096:
        _PARSED.clear()
    _PARSED[text] = action
    return action


def _parse(text: str) -> Action:
    if not isinstance(text, str):
        raise NotationError(f"an action is a line of text, not {text!r}")
    s = " ".join(text.lower().split())
    if not s:
        raise NotationError("empty action")
    if s.startswith("*"):
        inner = _parse(s[1:])
        if not isinstance(inner, Move | Draw | Recycle) or (
            isinstance(inner, Move) and not inner.is_plain
        ):
            raise NotationError(f"{text!r}: only a plain move, draw or recycle can be automatic")
        return Auto(inner)
    word = _WORDS.get(s)
    if word is not None:
        return word
    head, _, rest = s.partition(" ")
    if head in ("tap", "dtap"):
        parts = rest.split(" ") if rest else []
        if not parts or len(parts) > (1 if head == "tap" else 2):
            raise NotationError(f"{text!r}: write 'tap <pile>' or 'dtap <pile> [card]'")
        src = _pile(parts[0], text)
        if src != "waste" and src not in COLUMNS:
            raise NotationError(f"{text!r}: {head} works on the waste or a column t1..t7")
        if head == "tap":
            return Tap(src)
        return DoubleTap(src, Card.parse(parts[1]) if len(parts) == 2 else None)
    m = _MOVE.fullmatch(s)
    if m is None:
        raise NotationError(
            f"{text!r} is not an action: use draw, recycle, undo, resign, 'src-dst', "
            "'src-dstxN', 'src-dst@card', 'tap src' or 'dtap src [card]'"
        )
    src = _pile(m["src"], text)
    dst = _pile(m["dst"], text, allow_f=True)
    count = 1
    if m["count"] is not None:
        count = int(m["count"])
        if not 1 <= count <= 13:
            raise NotationError(f"{text!r}: count must be 1..13")
    card = Card.parse(m["card"]) if m["card"] is not None else None
    return Move(src, dst, count, card)


def format_actions(actions: Iterable[Action]) -> str:
    """The replay text: one action a line, ending with a newline."""
    return "".join(format_action(a) + "\n" for a in actions)


def parse_actions(text: str) -> list[Action]:
    """Parse replay text: one action a line; blank lines and ``#`` comments are skipped.

    :raises NotationError: names the line number.
    """
    out: list[Action] = []
    for i, line in enumerate(text.splitlines(), 1):
        body = line.split("#", 1)[0].strip()
        if body:
            try:
                out.append(parse_action(body))
            except NotationError as e:
                raise NotationError(f"line {i}: {e}") from None
    return out
