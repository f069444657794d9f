"""Shapes of the daily endpoints, for the OpenAPI schema (the selectors build the dicts)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from games.models import BadgeKind
from games.serializers import GAME_STATUSES, ResultFiguresSerializer


class RatingChangeSerializer(serializers.Serializer[dict[str, Any]]):
    rating = serializers.IntegerField(help_text="The player's rating after this board.")
    change = serializers.IntegerField(help_text="What this board changed it by.")


RATING_CHANGE_HELP = (
    "What the final board did to the player's rating in its draw; null while the board is "
    "open, before the rating job has rated it, for an entry that counts for no rating "
    "(being checked by a reviewer, or an abort), and, to others, on a private profile's "
    "entry of a board."
)


class BoardDifficultySerializer(serializers.Serializer[dict[str, Any]]):
    par = serializers.IntegerField(help_text="The deal's par: the shortest winning line found.")
    entries = serializers.IntegerField(help_text="The board's entries that counted for ratings.")
    wins = serializers.IntegerField(help_text="How many of them won.")
    win_rate = serializers.FloatField(
        allow_null=True, help_text="Their share that won, in percent (null without entries)."
    )


DIFFICULTY_HELP = (
    "How hard the final board was: its par, and the win rate among the entries that counted "
    "for ratings; null while the board is open or before the rating job has rated it."
)


class MyDailyGameSerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=GAME_STATUSES)
    seq = serializers.IntegerField()
    moves = serializers.IntegerField()
    score = serializers.IntegerField(allow_null=True)
    score_display = serializers.CharField()
    rating = RatingChangeSerializer(allow_null=True, help_text=RATING_CHANGE_HELP)
    under_review = serializers.BooleanField(
        help_text="The owner's private note: the integrity check flagged the attempt and a "
        "reviewer is checking it. Until then it counts for no rating, and one flagged on "
        "conclusive evidence is absent from the board. No public answer shows this."
    )


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
    rating = RatingChangeSerializer(allow_null=True, help_text=RATING_CHANGE_HELP)
    board_rank = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="Only in a following view, where `rank` is among the players shown: the rank "
        "on the whole board as last ranked (null until the ranking has the game).",
    )


class LeaderboardMeSerializer(serializers.Serializer[dict[str, Any]]):
    rank = serializers.IntegerField()
    count = serializers.IntegerField()
    percentile = serializers.FloatField(allow_null=True)
    source = serializers.ChoiceField(choices=["snapshot", "live", "following"])  # type: ignore[assignment]  # a declared field, which DRF takes out of the class
    rating = RatingChangeSerializer(allow_null=True, help_text=RATING_CHANGE_HELP)


FOLLOWING_HELP = (
    "A following view (`?following=1`): the caller and the public players they follow, ranked "
    "among themselves."
)


class LeaderboardSerializer(serializers.Serializer[dict[str, Any]]):
    date = serializers.DateField()
    mode = serializers.CharField()
    final = serializers.BooleanField()
    following = serializers.BooleanField(help_text=FOLLOWING_HELP)
    updated_at = serializers.DateTimeField(allow_null=True)
    difficulty = BoardDifficultySerializer(allow_null=True, help_text=DIFFICULTY_HELP)
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


class RatingFiguresSerializer(serializers.Serializer[dict[str, Any]]):
    rating = serializers.IntegerField(help_text="The estimated skill (a newcomer's is 1500).")
    deviation = serializers.IntegerField(
        help_text="Its uncertainty, one standard deviation: 350 for a newcomer; it shrinks with "
        "every board played and grows with every day missed. The skill lies within two "
        "deviations of the rating about 19 times in 20."
    )
    low = serializers.IntegerField(
        help_text="Where the skill likely lies, from `low` to `high`: the rating less and plus "
        'two deviations (about 95 %), as the pages say it: "1620, likely between 1540 and '
        '1700".'
    )
    high = serializers.IntegerField(help_text="See `low`.")
    boards = serializers.IntegerField(help_text="Final boards that rated it.")
    provisional = serializers.BooleanField(
        help_text="Its deviation after its last board is above `provisional_deviation`: "
        "shown, but not on the rating leaderboard."
    )
    provisional_deviation = serializers.IntegerField(
        help_text="The deviation at or below which a rating is established (110)."
    )


class RatingEntrySerializer(RatingFiguresSerializer):
    rank = serializers.IntegerField()
    user = serializers.CharField()
    # A private profile's entry shows its name and rank only (to others).
    rating = serializers.IntegerField(allow_null=True, help_text="null for a private profile.")
    deviation = serializers.IntegerField(allow_null=True, help_text="null for a private profile.")
    low = serializers.IntegerField(allow_null=True, help_text="null for a private profile.")
    high = serializers.IntegerField(allow_null=True, help_text="null for a private profile.")
    boards = serializers.IntegerField(allow_null=True, help_text="null for a private profile.")
    board_rank = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="Only in a following view, where `rank` is among the players shown: the rank "
        "on the whole rating board (null while provisional).",
    )


class RatingMeSerializer(RatingFiguresSerializer):
    rank = serializers.IntegerField(allow_null=True, help_text="null while provisional.")
    count = serializers.IntegerField()
    percentile = serializers.FloatField(allow_null=True)


class RatingLeaderboardSerializer(serializers.Serializer[dict[str, Any]]):
    draw = serializers.IntegerField()
    following = serializers.BooleanField(help_text=FOLLOWING_HELP)
    updated_at = serializers.DateTimeField(
        allow_null=True, help_text="When a final board last rated players of this draw."
    )
    count = serializers.IntegerField(help_text="Established ratings of the draw.")
    page = serializers.IntegerField()
    pages = serializers.IntegerField()
    entries = RatingEntrySerializer(many=True)
    me = RatingMeSerializer(allow_null=True, help_text="null for a guest or an unrated player.")


class RatingReviewSerializer(serializers.Serializer[dict[str, Any]]):
    date = serializers.DateField(
        help_text="The day of the earliest final board the review changed."
    )
    change = serializers.IntegerField(help_text="What rating the review changed, in points.")


class UserRatingSerializer(RatingFiguresSerializer):
    draw = serializers.IntegerField()
    rank = serializers.IntegerField(
        allow_null=True,
        help_text="On the draw's rating leaderboard; null while provisional, and after "
        "14 days without a board until the player plays again.",
    )
    review = RatingReviewSerializer(
        allow_null=True,
        help_text="When a fair-play review of a final board changed this rating in the last "
        '30 days: the latest such change ("+12 after a review of 3 Dec"); else null.',
    )
    percentile = serializers.FloatField(
        allow_null=True,
        help_text="The share of the draw's established ratings at or below this one's rank, "
        "in percent (100 for the first); null while provisional.",
    )


class RatingPointSerializer(serializers.Serializer[dict[str, Any]]):
    date = serializers.DateField()
    mode = serializers.CharField()
    rank = serializers.IntegerField(
        help_text="On the final board, as it shows (entries under review included)."
    )
    rating = serializers.IntegerField()
    change = serializers.IntegerField()
    deviation = serializers.IntegerField()


class RatingHistorySerializer(serializers.Serializer[dict[str, Any]]):
    draw = serializers.IntegerField()
    points = RatingPointSerializer(many=True, help_text="Oldest first; the latest 365 boards.")


class CalendarResultSerializer(serializers.Serializer[dict[str, Any]]):
    game = serializers.IntegerField(help_text="The ranked attempt's id: its replay once final.")
    result = serializers.ChoiceField(choices=["won", "lost", "playing"])
    score = serializers.IntegerField(allow_null=True, help_text="The leaderboard score.")
    score_display = serializers.CharField()
    moves = serializers.IntegerField()
    elapsed_ms = serializers.IntegerField(allow_null=True)
    rank = serializers.IntegerField(
        allow_null=True, help_text="On the final board; null while it is open or when left out."
    )
    rating = RatingChangeSerializer(allow_null=True, help_text=RATING_CHANGE_HELP)


class CalendarChallengeSerializer(serializers.Serializer[dict[str, Any]]):
    mode = serializers.CharField()
    final = serializers.BooleanField()
    par = serializers.IntegerField()
    code = serializers.CharField(
        required=False,
        help_text="Only once the board is final: anyone may practise it as an unranked game.",
    )
    difficulty = BoardDifficultySerializer(allow_null=True, help_text=DIFFICULTY_HELP)
    mine = CalendarResultSerializer(
        allow_null=True, help_text="The caller's ranked attempt; null if not played, or a guest."
    )


class CalendarDaySerializer(serializers.Serializer[dict[str, Any]]):
    date = serializers.DateField()
    challenges = CalendarChallengeSerializer(many=True)


class StreakFiguresSerializer(serializers.Serializer[dict[str, Any]]):
    current = serializers.IntegerField()
    longest = serializers.IntegerField()


class CalendarSerializer(serializers.Serializer[dict[str, Any]]):
    month = serializers.CharField(help_text="YYYY-MM")
    previous = serializers.CharField(
        allow_null=True, help_text="The month before, null before the first daily challenge."
    )
    next = serializers.CharField(allow_null=True, help_text="The month after, null for this one.")
    streaks = serializers.DictField(
        child=StreakFiguresSerializer(),
        allow_null=True,
        help_text="The caller's daily-win streaks per mode; null for a guest.",
    )
    days = CalendarDaySerializer(many=True, help_text="Days with daily challenges, oldest first.")


class BadgeSerializer(serializers.Serializer[dict[str, Any]]):
    kind = serializers.ChoiceField(choices=BadgeKind.choices)
    name = serializers.CharField(help_text="In the caller's language.")
    description = serializers.CharField(help_text="What it rewards, in the caller's language.")
    earned_on = serializers.DateField(help_text="The day of the final board that earned it.")
    mode = serializers.CharField(help_text="That board's mode.")
