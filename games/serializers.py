"""Shapes of the games API, for validation and for the OpenAPI schema.

Responses are built by the selectors as plain dicts already in the API's shape; the output
serializers here describe them for the schema and are not run on the hot path.
"""

from __future__ import annotations

import copy
from typing import Any

from django.utils.translation import gettext
from drf_spectacular.utils import PolymorphicProxySerializer
from rest_framework import serializers

from config.fields import (
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    refuse_unknown_fields,
)
from games import engine

GAME_STATUSES = ["playing", "won", "resigned"]
GAME_KINDS = ["casual", "daily"]
# The largest `seq` an action may carry: a 64-bit integer's, as JSON decoders keep it exact.
MAX_SEQ = 2**63 - 1
ANALYSIS_STATUSES = [
    "won",
    "still_winnable",
    "point_of_no_return",
    "unwinnable_from_start",
    "inconclusive",
]
# The piles an action may start from: any for a move, the waste or a column for a tap.
PILES = list(engine.PILES)
TAPPED_PILES = ["waste", *engine.COLUMNS]
# A card as input takes (`engine.Card.parse`): rank (T for 10) and suit, in any case.
CARD_PATTERN = r"^\s*(?:[AaJjQqKkTt2-9]|10)[SsHhDdCc]\s*$"


class RulesSerializer(serializers.Serializer[dict[str, Any]]):
    draw = serializers.ChoiceField(choices=[1, 3])
    preset = serializers.ChoiceField(choices=list(engine.PRESETS))
    passes = serializers.IntegerField(allow_null=True)
    foundation_return = serializers.BooleanField()
    auto_finish = serializers.BooleanField()
    scoring = serializers.ChoiceField(choices=["normal", "vegas", "none"])


class PublicStateSerializer(serializers.Serializer[dict[str, Any]]):
    stock = serializers.IntegerField(help_text="Cards left in the stock (their order is secret).")
    waste = serializers.ListField(child=serializers.CharField(), help_text="Bottom first.")
    foundations = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()), help_text="f1..f4: ♠ ♥ ♦ ♣."
    )
    tableau = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField(allow_null=True)),
        help_text="t1..t7, bottom first; null is a face-down card.",
    )


class LegalSerializer(serializers.Serializer[dict[str, Any]]):
    stock = serializers.ChoiceField(
        choices=["draw", "recycle"],
        allow_null=True,
        help_text="What a tap on the stock may do now; null: neither (or the game is over).",
    )
    moves = serializers.DictField(
        child=serializers.DictField(child=serializers.IntegerField(min_value=1, max_value=13)),
        help_text="Every legal move, by source pile, then by target pile (f1-f4, t1-t7), with "
        'its card count: {"t5": {"t3": 2, "f2": 1}}. A tap is legal when its pile\'s entry '
        "has a foundation. Empty when the game is over.",
    )


class GameSummarySerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    code = serializers.CharField(allow_null=True)
    kind = serializers.ChoiceField(choices=GAME_KINDS)
    rules = RulesSerializer()
    status = serializers.ChoiceField(choices=GAME_STATUSES)
    seq = serializers.IntegerField()
    moves = serializers.IntegerField()
    score = serializers.IntegerField(allow_null=True)
    score_display = serializers.CharField()
    passes_used = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    elapsed_ms = serializers.IntegerField(
        help_text="The game's time by the server's clock, now or at its end. A ranked attempt "
        "is timed from its start. A casual game's clock starts at its first action and counts "
        "at most a minute of any wait between two actions (docs/api.md, Games)."
    )
    clock_stops_in_ms = serializers.IntegerField(
        allow_null=True,
        help_text="How much longer `elapsed_ms` counts if no action comes: null while it "
        "counts to the game's end (a ranked attempt in play); 0 when it is stopped (the game "
        "is over, or a casual game has had no action yet or none for a minute).",
    )


class GameSerializer(GameSummarySerializer):
    can_undo = serializers.BooleanField(help_text="An undo would be accepted now.")
    undo_refusal = serializers.ChoiceField(
        choices=["undo_reveal"],
        allow_null=True,
        help_text="Why `can_undo` is false where the rules alone would allow an undo, as a "
        "refusal `reason`: `undo_reveal`, in a ranked attempt the last action turned a card "
        "face up for the first time, and an undo may not hide a card the player has seen. "
        "Otherwise null.",
    )
    undo_refusal_message = serializers.CharField(
        allow_null=True, help_text="`undo_refusal` in the request's language; null with it."
    )
    state = PublicStateSerializer()
    legal = LegalSerializer(help_text="The legal actions of `state` (docs/api.md, Games).")


class ActionBodySerializer(serializers.Serializer[dict[str, Any]]):
    """An action as the API spec writes it; `from` is a Python keyword, hence get_fields."""

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        return {
            "action": serializers.ChoiceField(
                choices=["draw", "recycle", "move", "tap", "double_tap", "undo", "resign"]
            ),
            "from": serializers.CharField(required=False, help_text="stock, waste, f1-f4, t1-t7"),
            "to": serializers.CharField(required=False, help_text="f1-f4, t1-t7, or f"),
            "count": serializers.IntegerField(required=False, min_value=1, max_value=13),
            "card": serializers.CharField(required=False, help_text="e.g. 9H"),
        }


class LoggedActionSerializer(serializers.Serializer[dict[str, Any]]):
    seq = serializers.IntegerField()
    action = ActionBodySerializer()
    notation = serializers.CharField()
    score_after = serializers.IntegerField(allow_null=True)
    at_ms = serializers.IntegerField()
    revealed = serializers.ListField(
        child=serializers.CharField(),
        help_text="The cards this action turned face up (drawn, flipped, or shown again by an "
        "undo); an automatic action's cards are listed with the action that set it off.",
    )


class ResultFiguresSerializer(serializers.Serializer[dict[str, Any]]):
    """How a game came out: shared by replays and leaderboard entries."""

    won = serializers.BooleanField()
    score = serializers.IntegerField(allow_null=True)
    score_display = serializers.CharField()
    moves = serializers.IntegerField()
    undos = serializers.IntegerField()
    elapsed_ms = serializers.IntegerField()


class ReplayResultSerializer(ResultFiguresSerializer):
    status = serializers.ChoiceField(choices=GAME_STATUSES)


class DealSerializer(serializers.Serializer[dict[str, Any]]):
    """A deal's full initial layout (`engine.Deal.to_dict`)."""

    tableau = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()),
        min_length=7,
        max_length=7,
        help_text="t1..t7, bottom first; the last card of each is the one dealt face up.",
    )
    stock = serializers.ListField(
        child=serializers.CharField(), help_text="The stock, the first card drawn first."
    )


class AnalysisSerializer(serializers.Serializer[dict[str, Any]]):
    """Where a game that was not won went wrong (`engine.solver.Analysis.to_dict`)."""

    status = serializers.ChoiceField(choices=ANALYSIS_STATUSES)
    point_of_no_return = serializers.IntegerField(
        allow_null=True,
        help_text="The index in the log of the action after which the deal could no longer be won.",
    )
    notation = serializers.CharField(allow_null=True, help_text="That action, in notation.")
    winning_line = serializers.ListField(
        child=serializers.CharField(), help_text="A winning line, in notation."
    )
    winning_line_after = serializers.IntegerField(
        allow_null=True, help_text="The line wins from the position after this many actions."
    )
    effective_actions = serializers.IntegerField()
    solver_calls = serializers.IntegerField()
    message = serializers.CharField()


class ActionCheckSerializer(serializers.Serializer[dict[str, Any]]):
    legal = serializers.BooleanField(help_text="The rules accept the action now.")
    reason = serializers.CharField(
        allow_null=True, help_text="Why not, as an `illegal_move` error's `reason`; else null."
    )
    message = serializers.CharField(
        allow_null=True, help_text="The refusal in the request's language; else null."
    )
    details = serializers.DictField(help_text="The cards and piles the refusal names.")
    rule = serializers.CharField(
        allow_null=True, help_text="The rules section the refusal rests on (`2.1`), or null."
    )


class ReplayLineSerializer(serializers.Serializer[dict[str, Any]]):
    step = serializers.IntegerField(help_text="The position after this many log entries.")
    status = serializers.ChoiceField(
        choices=["winnable", "lost", "unknown"],
        help_text="`winnable`: `line` wins from there (empty: the game is won there); `lost`: "
        "the solver proved that no play wins from there; `unknown`: no line was found within "
        "the search's budget, or no search could run now (ask again later).",
    )
    line = ActionBodySerializer(many=True, help_text="The solver's winning line, in order.")


class ReplaySerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    code = serializers.CharField(allow_null=True)
    rules = RulesSerializer()
    redacted = serializers.BooleanField(
        help_text="A daily attempt whose board is not final, shown to its owner only: `code`, "
        "`deal` and `analysis` are null, and the cards are only those the player saw "
        "(`initial` and each action's `revealed`)."
    )
    deal = DealSerializer(
        allow_null=True, help_text="The full initial layout: every card (null when redacted)."
    )
    initial = PublicStateSerializer(help_text="The starting position as the player saw it.")
    actions = LoggedActionSerializer(many=True)
    result = ReplayResultSerializer()
    analysis = AnalysisSerializer(
        allow_null=True, help_text="Null until computed, for a won game, and when redacted."
    )


class StartGameSerializer(serializers.Serializer[dict[str, Any]]):
    """Either `code`, or `draw` and `preset` for a random deal (`winnable`: only a deal the
    solver has proven winnable)."""

    code = StrictCharField(required=False, max_length=32)
    draw = StrictIntegerField(required=False)
    preset = StrictCharField(required=False, max_length=1)
    winnable = StrictBooleanField(
        required=False,
        help_text="With draw and preset: deal only a deal the solver has proven winnable.",
    )

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        refuse_unknown_fields(data, self.fields)
        return super().to_internal_value(data)

    def validate_draw(self, value: int) -> int:
        if value not in (1, 3):
            raise serializers.ValidationError(gettext("Draw 1 or draw 3."))
        return value

    def validate_preset(self, value: str) -> str:
        preset = value.upper()
        if preset not in ("N", "V", "C", "R"):
            raise serializers.ValidationError(gettext("A preset is N, V, C or R."))
        return preset

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        has_code = "code" in attrs
        has_random = "draw" in attrs or "preset" in attrs
        if has_code == has_random:
            raise serializers.ValidationError(
                gettext("Give either a deal code, or draw and preset.")
            )
        if has_random and not ("draw" in attrs and "preset" in attrs):
            raise serializers.ValidationError(gettext("A random deal needs both draw and preset."))
        if has_code and "winnable" in attrs:
            raise serializers.ValidationError(
                {
                    "winnable": [
                        gettext("Only a random deal (draw and preset) can be asked winnable.")
                    ]
                }
            )
        return attrs


class StartedGameSerializer(GameSerializer):
    winnable = serializers.BooleanField(
        allow_null=True,
        help_text="Asked with `winnable`: true, a deal the solver proved winnable; false, none "
        "was ready in time, so a random deal that may be unwinnable. Otherwise null.",
    )


def _action_shape(
    name: str, actions: list[str], fields: dict[str, serializers.Field[Any, Any, Any, Any]]
) -> type[serializers.Serializer[dict[str, Any]]]:
    """The schema of the actions in `actions`, which take `fields` ("from" is a keyword)."""

    def get_fields(self: Any) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        return {
            "seq": StrictIntegerField(
                min_value=0,
                max_value=MAX_SEQ,
                help_text="The number of actions you have seen in the log.",
            ),
            "action": serializers.ChoiceField(choices=actions),
            **{key: copy.deepcopy(field) for key, field in fields.items()},
        }

    return type(name, (serializers.Serializer,), {"get_fields": get_fields})


_FROM_ANY = serializers.ChoiceField(choices=PILES)
_FROM_TAPPED = serializers.ChoiceField(choices=TAPPED_PILES)
_CARD = serializers.RegexField(
    CARD_PATTERN, required=False, allow_null=True, help_text="e.g. 9H (T or 10 for a ten)"
)
_BARE_ACTIONS = ["draw", "recycle", "undo", "resign"]
_ACTION_SHAPES: dict[str, serializers.Serializer[Any] | type[serializers.Serializer[Any]]] = {
    **dict.fromkeys(_BARE_ACTIONS, _action_shape("BareAction", _BARE_ACTIONS, {})),
    "move": _action_shape(
        "MoveAction",
        ["move"],
        {
            "from": _FROM_ANY,
            "to": serializers.ChoiceField(choices=["f", *engine.FOUNDATIONS, *engine.COLUMNS]),
            "count": serializers.IntegerField(
                required=False, min_value=1, max_value=13, help_text="Default 1."
            ),
            "card": _CARD,
        },
    ),
    "tap": _action_shape("TapAction", ["tap"], {"from": _FROM_TAPPED}),
    "double_tap": _action_shape(
        "DoubleTapAction", ["double_tap"], {"from": _FROM_TAPPED, "card": _CARD}
    ),
}
# The body of POST .../actions in the schema: one shape per action, told apart by `action`.
ACTION_REQUEST = PolymorphicProxySerializer(
    component_name="Action",
    serializers=_ACTION_SHAPES,
    resource_type_field_name="action",
)


class DealCodeSerializer(serializers.Serializer[dict[str, Any]]):
    code = serializers.CharField(max_length=32, help_text="A deal code, e.g. KL1-D1N-AAAAAAG.")


class RandomDealSerializer(serializers.Serializer[dict[str, Any]]):
    draw = serializers.ChoiceField(choices=[1, 3])
    preset = serializers.ChoiceField(choices=list(engine.PRESETS), help_text="Any case.")
    winnable = serializers.BooleanField(
        required=False, help_text="Deal only a deal the solver has proven winnable."
    )


# The body of POST /games in the schema: a deal code, or a random deal's draw and preset.
START_GAME_REQUEST = PolymorphicProxySerializer(
    component_name="StartGame",
    serializers=[DealCodeSerializer, RandomDealSerializer],
    resource_type_field_name=None,
)


class ActionInputSerializer(serializers.Serializer[dict[str, Any]]):
    """The body of POST .../actions: `seq` plus an action.

    Validation is the engine's own strict parser (`games.engine.action_from_dict`), so the
    rules for a well-formed action live in one place; `ACTION_REQUEST` describes the body for
    the schema.
    """

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise serializers.ValidationError(
                {"non_field_errors": [gettext("An action is a JSON object.")]}
            )
        refuse_unknown_fields(data, ("seq", "action", *engine.ACTION_FIELDS))
        seq = data.get("seq")
        if type(seq) is not int or not 0 <= seq <= MAX_SEQ:
            raise serializers.ValidationError(
                {
                    "seq": [
                        gettext("Required: the number of actions you have seen, an integer >= 0.")
                    ]
                }
            )
        try:
            action = engine.action_from_dict(data)
        except engine.ActionDataError as exc:
            raise serializers.ValidationError({"action": [str(exc)]}) from None
        return {"seq": seq, "action": action}

    def run_validators(self, value: Any) -> None:
        """Nothing to run: `to_internal_value` (the engine's parser) checked everything, and
        this serializer has no fields for DRF's pass to look through on every move."""


class HintSerializer(serializers.Serializer[dict[str, Any]]):
    move = ActionBodySerializer(allow_null=True)
    source = serializers.ChoiceField(choices=["solver", "heuristic", "none"])  # type: ignore[assignment]  # a declared field, which DRF takes out of the class
    searching = serializers.BooleanField(
        help_text="a longer search of this position is under way: asked again once it is done "
        "(a few seconds), the hint may come from a winning line"
    )
    reason = serializers.ChoiceField(
        # engine.solver.hints.REASON_CODES (tests/games/test_hints.py holds them equal)
        choices=[
            "card_in_stock",
            "frees_face_down",
            "empties_column",
            "king_to_empty",
            "builds_foundation",
            "plays_waste",
            "frees_card",
            "from_foundation",
            "winning_line",
            "nothing_left",
        ],
        help_text="Why the hint suggests its move, by what the move does: `card_in_stock` (a "
        "draw or recycle: a card to play is in the stock or waste), `frees_face_down` (leaves "
        "a face-down card to turn up), `empties_column`, `king_to_empty` (a king to an empty "
        "column), `builds_foundation`, `plays_waste` (the waste's card onto a column), "
        "`frees_card` (part of a run moved, uncovering the card under it), `from_foundation` "
        "(a card back from a foundation), `winning_line` (none of these, in a winning line), "
        "`nothing_left` (with `move` null). New codes may appear: show `reason_message`.",
    )
    reason_message = serializers.CharField(
        help_text="`reason` as a short phrase in the request's language, to show after the "
        'move: "frees a face-down card".'
    )
