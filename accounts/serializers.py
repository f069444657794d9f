"""Output shapes shared by several account views."""

from __future__ import annotations

from rest_framework import serializers

from accounts.models import User


class UserSerializer(serializers.ModelSerializer[User]):
    class Meta:
        model = User
        fields = ["id", "username", "date_joined", "is_guest", "language"]
        read_only_fields = fields
        extra_kwargs = {
            "language": {
                "help_text": 'The language the player picked (docs/i18n.md): "en", "hr", "sk" or '
                '"pl"; "" until they pick one. Sign-in sets it as the language cookie.'
            }
        }


class StatsSerializer(serializers.Serializer[dict[str, object]]):
    played = serializers.IntegerField()
    won = serializers.IntegerField()
    win_rate = serializers.FloatField()
    best_score = serializers.IntegerField(allow_null=True)
    best_score_display = serializers.CharField(
        help_text="The best score as the rules write it (Vegas: dollars, `+$208`); overall, "
        "the best Normal score."
    )
    fewest_moves = serializers.IntegerField(allow_null=True)
    fastest_win_ms = serializers.IntegerField(allow_null=True)
    modes = serializers.DictField()
    streaks = serializers.DictField()
