"""Shapes of the games API, for validation and for the OpenAPI schema.

Responses are built by the selectors as plain dicts already in the API's shape; the output
serializers here describe them for the schema and are not run on the hot path.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from rest_framework import serializers

from config.fields import StrictBooleanField, StrictCharField, StrictIntegerField
from games import engine


class RulesSerializer(serializers.Serializer[dict[str, Any]]):
    draw = serializers.IntegerField()
    preset = serializers.CharField()
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


class GameSummarySerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    code = serializers.CharField(allow_null=True)
    kind = serializers.ChoiceField(choices=["casual", "daily"])
    rules = RulesSerializer()
    status = serializers.ChoiceField(choices=["playing", "won", "resigned"])
    seq = serializers.IntegerField()
    moves = serializers.IntegerField()
    score = serializers.IntegerField(allow_null=True)
    score_display = serializers.CharField()
    passes_used = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    elapsed_ms = serializers.IntegerField()


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
    state = PublicStateSerializer()


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
    status = serializers.CharField()


class ReplaySerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    code = serializers.CharField(allow_null=True)
    rules = RulesSerializer()
    redacted = serializers.BooleanField(
        help_text="A daily attempt whose board is not final, shown to its owner only: `code`, "
        "`deal` and `analysis` are null, and the cards are only those the player saw "
        "(`initial` and each action's `revealed`)."
    )
    deal = serializers.JSONField(
        allow_null=True, help_text="The full initial layout: every card (null when redacted)."
    )
    initial = PublicStateSerializer(help_text="The starting position as the player saw it.")
    actions = LoggedActionSerializer(many=True)
    result = ReplayResultSerializer()
    analysis = serializers.JSONField(allow_null=True)


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


class ActionInputSerializer(ActionBodySerializer):
    """The body of POST .../actions: `seq` plus an action.

    The declared fields describe the body for the schema; validation is the engine's own
    strict parser (`games.engine.action_from_dict`), so the rules for a well-formed action
    live in one place.
    """

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        return {"seq": StrictIntegerField(min_value=0), **super().get_fields()}

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise serializers.ValidationError(
                {"non_field_errors": [gettext("An action is a JSON object.")]}
            )
        seq = data.get("seq")
        if type(seq) is not int or seq < 0:
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
        """Nothing to run: `to_internal_value` (the engine's parser) checked everything.

        DRF's pass here would build the six schema fields on every move just to look for
        read-only defaults, which this serializer has none of.
        """


class HintSerializer(serializers.Serializer[dict[str, Any]]):
    move = ActionBodySerializer(allow_null=True)
    source = serializers.ChoiceField(choices=["solver", "heuristic", "none"])
    searching = serializers.BooleanField(
        help_text="a longer search of this position is under way: asked again once it is done "
        "(a few seconds), the hint may come from a winning line"
    )
