"""The API's action JSON bodies (api.md, "Actions"): strict parsing and formatting.

>>> action_from_dict({"action": "move", "from": "t3", "to": "t5", "count": 2})
Move(src='t3', dst='t5', count=2, card=None)
"""

from __future__ import annotations

from typing import Any

from .actions import (
    COLUMNS,
    DRAW,
    MAX_RUN,
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
from .errors import ActionDataError, NotationError

__all__ = ["ACTION_FIELDS", "ACTION_NAMES", "action_from_dict", "action_to_dict", "auto_from_dict"]

ACTION_NAMES = ("draw", "recycle", "move", "tap", "double_tap", "undo", "resign")
_SIMPLE: dict[str, Action] = {"draw": DRAW, "recycle": RECYCLE, "undo": UNDO, "resign": RESIGN}
# The fields an action takes; another action's field in its body is an error, as a malformed
# one would be (other keys, such as the API's ``seq``, are not the action's business).
ACTION_FIELDS = ("from", "to", "count", "card")
_TAKES: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(_SIMPLE, ()),
    "move": ACTION_FIELDS,
    "tap": ("from",),
    "double_tap": ("from", "card"),
}


def _pile(d: dict[str, Any], key: str, *, allowed: tuple[str, ...] | None = None) -> str:
    if key not in d:
        raise ActionDataError(f"'{key}' is required")
    v = d[key]
    if not isinstance(v, str):
        raise ActionDataError(f"'{key}' must be a pile name string, not {type(v).__name__}")
    ok = allowed if allowed is not None else tuple(PILE_INDEX)
    if v not in ok:
        raise ActionDataError(f"'{key}': unknown pile {v!r}; use one of {', '.join(ok)}")
    return v


def _card(d: dict[str, Any]) -> Card | None:
    v = d.get("card")
    if v is None:
        return None
    if not isinstance(v, str):
        raise ActionDataError(f"'card' must be a card name string, not {type(v).__name__}")
    try:
        return Card.parse(v)
    except NotationError as e:
        raise ActionDataError(f"'card': {e}") from None


def action_from_dict(d: Any) -> Action:
    """Parse an API action body; unknown keys (such as ``seq``) are ignored, and a field that
    another action takes (``from``, ``to``, ``count``, ``card``) is an error.

    >>> action_from_dict({"action": "double_tap", "from": "t3", "card": "9h"})
    DoubleTap(src='t3', card=Card.parse('9H'))

    :raises ActionDataError: unknown action or pile, bad ``count`` (not a positive int, a
        bool, or above 13) or ``card``, wrong types, missing keys, another action's field.
    """
    if not isinstance(d, dict):
        raise ActionDataError("an action is a JSON object")
    name = d.get("action")
    if not isinstance(name, str):
        raise ActionDataError("'action' is required and must be a string")
    foreign = [
        key for key in ACTION_FIELDS if key in d and key not in _TAKES.get(name, ACTION_FIELDS)
    ]
    if foreign:
        raise ActionDataError(
            f"{name!r} takes no {', '.join(repr(key) for key in foreign)}; it takes "
            f"{', '.join(repr(key) for key in _TAKES[name]) or 'no other field'}"
        )
    simple = _SIMPLE.get(name)
    if simple is not None:
        return simple
    if name == "move":
        # Any real pile name is well formed here; stock/waste as targets are rule errors.
        src = _pile(d, "from")
        dst = _pile(d, "to", allowed=(*PILE_INDEX, "f"))
        count = d.get("count", 1)
        if type(count) is not int:
            raise ActionDataError(f"'count' must be a positive integer, not {type(count).__name__}")
        if count < 1:
            raise ActionDataError(f"'count' must be a positive integer, not {count}")
        if count > MAX_RUN:
            raise ActionDataError(f"'count' is too large: a run holds at most {MAX_RUN} cards")
        return Move(src, dst, count, _card(d))
    if name == "tap":
        return Tap(_pile(d, "from", allowed=("waste", *COLUMNS)))
    if name == "double_tap":
        return DoubleTap(_pile(d, "from", allowed=("waste", *COLUMNS)), _card(d))
    raise ActionDataError(f"unknown action {name!r}; use one of {', '.join(ACTION_NAMES)}")


def action_to_dict(action: Action) -> dict[str, Any]:
    """The JSON form of an action (automatic ones carry ``"auto": true``).

    >>> action_to_dict(Move("waste", "f1"))
    {'action': 'move', 'from': 'waste', 'to': 'f1', 'count': 1}

    :raises TypeError: not an action.
    """
    if isinstance(action, Move):
        out: dict[str, Any] = {
            "action": "move",
            "from": action.src,
            "to": action.dst,
            "count": action.count,
        }
        if action.card is not None:
            out["card"] = str(action.card)
        return out
    if isinstance(action, Draw):
        return {"action": "draw"}
    if isinstance(action, Recycle):
        return {"action": "recycle"}
    if isinstance(action, Undo):
        return {"action": "undo"}
    if isinstance(action, Resign):
        return {"action": "resign"}
    if isinstance(action, Tap):
        return {"action": "tap", "from": action.src}
    if isinstance(action, DoubleTap):
        out = {"action": "double_tap", "from": action.src}
        if action.card is not None:
            out["card"] = str(action.card)
        return out
    if isinstance(action, Auto):
        return {**action_to_dict(action.action), "auto": True}
    raise TypeError(f"not an action: {action!r}")


def auto_from_dict(d: Any) -> Action:
    """Like :func:`action_from_dict`, but a body with ``"auto": true`` gives an :class:`Auto`.

    :raises ActionDataError: as :func:`action_from_dict`, or an automatic non-plain action.
    """
    a = action_from_dict(d)
    if isinstance(d, dict) and d.get("auto") is True:
        if not isinstance(a, Move | Draw | Recycle) or (isinstance(a, Move) and not a.is_plain):
            raise ActionDataError("only a plain move, draw or recycle can be automatic")
        return Auto(a)
    return a
