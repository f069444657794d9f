"""Shapes of the daily endpoints, for the OpenAPI schema (the selectors build the dicts)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from games.serializers import GAME_STATUSES, ResultFiguresSerializer


class MyDailyGameSerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=GAME_STATUSES)
    seq = serializers.IntegerField()
    moves = serializers.IntegerField()
    score = serializers.IntegerField(allow_null=True)
    score_display = serializers.CharField()


class ChallengeSerializer(serializers.Serializer[dict[str, Any]]):
    mode = serializers.CharField()
    par = serializers.IntegerField(help_text="Length of the solver's solution.")
    players = serializers.IntegerField()
    commitment = serializers.CharField(help_text='hex sha256 of "<code>|<salt>"')
    final = serializers.BooleanField()
    my_game = MyDailyGameSerializer(allow_null=True)
    code = serializers.CharField(required=False, help_text="Only once the board is final.")
    salt = serializers.CharField(required=False, help_text="Only once the board is final.")


class DailyDaySerializer(serializers.Serializer[dict[str, Any]]):
    date = serializers.DateField()
    opens_at = serializers.DateTimeField()
    closes_at = serializers.DateTimeField(help_text="New ranked attempts close.")
    play_closes_at = serializers.DateTimeField(help_text="Started attempts must be finished.")
    open = serializers.BooleanField()
    challenges = ChallengeSerializer(many=True)


class LeaderboardEntrySerializer(ResultFiguresSerializer):
    rank = serializers.IntegerField()
    user = serializers.CharField()
    game = serializers.IntegerField(help_text="The game's id: its replay, where visible.")
    under_review = serializers.BooleanField(
        help_text="Flagged by the integrity check, and no reviewer has cleared or confirmed it "
        "yet. A confirmed entry leaves the board; one flagged on conclusive evidence leaves "
        "the final board until a reviewer clears it."
    )


class LeaderboardMeSerializer(serializers.Serializer[dict[str, Any]]):
    rank = serializers.IntegerField()
    count = serializers.IntegerField()
    percentile = serializers.FloatField(allow_null=True)
    source = serializers.ChoiceField(choices=["snapshot", "live"])  # type: ignore[assignment]  # a declared field, which DRF takes out of the class


class LeaderboardSerializer(serializers.Serializer[dict[str, Any]]):
    date = serializers.DateField()
    mode = serializers.CharField()
    final = serializers.BooleanField()
    updated_at = serializers.DateTimeField(allow_null=True)
    count = serializers.IntegerField()
    page = serializers.IntegerField()
    pages = serializers.IntegerField()
    entries = LeaderboardEntrySerializer(many=True)
    me = LeaderboardMeSerializer(allow_null=True)


class StreakSerializer(serializers.Serializer[dict[str, Any]]):
    user = serializers.CharField()
    current = serializers.IntegerField()
    longest = serializers.IntegerField()
    last_win = serializers.DateField(allow_null=True)


class StreaksSerializer(serializers.Serializer[dict[str, Any]]):
    mode = serializers.CharField()
    longest = StreakSerializer(many=True)
    current = StreakSerializer(many=True)
