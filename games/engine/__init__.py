"""Klondike Daily's rules engine: framework-free, stdlib only (the solver's compiled modules
add mypyc's runtime types).

>>> from games.engine import GameState, Draw
>>> g = GameState.from_code("KL1-D1N-AAAAAAG")
>>> g.apply(Draw()).score
0
"""

from .actions import (
    COLUMNS,
    DRAW,
    FOUNDATIONS,
    PILES,
    RECYCLE,
    RESIGN,
    UNDO,
    Action,
    Auto,
    DoubleTap,
    Draw,
    Move,
    PlainAction,
    Recycle,
    Resign,
    Tap,
    Undo,
)
from .cards import CARDS, Card, Suit
from .codes import MAX_NUMBER, DealCode
from .deal import Deal, shuffled_deck, splitmix64
from .errors import (
    ActionDataError,
    DealCodeError,
    DealError,
    IllegalMoveError,
    NotationError,
    ReplayError,
)
from .jsonio import ACTION_FIELDS, action_from_dict, action_to_dict, auto_from_dict
from .notation import format_action, format_actions, parse_action, parse_actions
from .replay import Outcome, ReplayResult, net_line, replay
from .rules import PRESETS, Rules, format_score
from .scoring import leaderboard_score
from .state import UNDO_LIMIT, Applied, GameState, HistoryNotLoadedError, RawPosition
from .views import from_full_view, full_view, legal_view, public_view

__all__ = [
    "ACTION_FIELDS",
    "CARDS",
    "COLUMNS",
    "DRAW",
    "FOUNDATIONS",
    "MAX_NUMBER",
    "PILES",
    "PRESETS",
    "RECYCLE",
    "RESIGN",
    "UNDO",
    "UNDO_LIMIT",
    "Action",
    "ActionDataError",
    "Applied",
    "Auto",
    "Card",
    "Deal",
    "DealCode",
    "DealCodeError",
    "DealError",
    "DoubleTap",
    "Draw",
    "GameState",
    "HistoryNotLoadedError",
    "IllegalMoveError",
    "Move",
    "NotationError",
    "Outcome",
    "PlainAction",
    "RawPosition",
    "Recycle",
    "ReplayError",
    "ReplayResult",
    "Resign",
    "Rules",
    "Suit",
    "Tap",
    "Undo",
    "action_from_dict",
    "action_to_dict",
    "auto_from_dict",
    "format_action",
    "format_actions",
    "format_score",
    "from_full_view",
    "full_view",
    "leaderboard_score",
    "legal_view",
    "net_line",
    "parse_action",
    "parse_actions",
    "public_view",
    "replay",
    "shuffled_deck",
    "splitmix64",
]
