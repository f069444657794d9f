"""Deals, games and their append-only action logs.

Everything about a game is derived from its `Deal` and its `Action` rows by replaying them
through `games.engine`; the counters cached on `Game` (score, moves, seq, the snapshot) exist
for speed and are checked against a full replay when the game ends.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models


class Deal(models.Model):
    """A deal number of a code scheme, with its full initial layout stored as data.

    The layout is kept even though the number determines it, so that a game survives any
    future change of the shuffle algorithm (rules §8).
    """

    scheme = models.PositiveSmallIntegerField(default=1)
    number = models.BigIntegerField()
    layout = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scheme", "number"], name="games_deal_scheme_number"),
            models.CheckConstraint(
                condition=models.Q(number__gte=0, number__lt=26**7),
                name="games_deal_number_range",
            ),
        ]

    def __str__(self) -> str:
        return f"KL{self.scheme} deal {self.number}"


class FlagReview(models.TextChoices):
    """A reviewer's word on an integrity flag."""

    PENDING = "", "pending"
    CLEARED = "cleared", "cleared: fair play"
    CONFIRMED = "confirmed", "confirmed: cheating"


# Which finished ranked games a board leaves out: those a reviewer confirmed as cheating, and
# those flagged on conclusive evidence that nobody has cleared (absent, not marked: the public
# board shows no flag). The same rule in the ORM and in the ranking's SQL
# (games.daily.services.rankings), side by side so that they agree. An open board leaves out
# the same games (the name says "final" for the streaks, ratings and badges that read it).
OFF_FINAL_BOARD = models.Q(flag_review=FlagReview.CONFIRMED) | models.Q(
    flag_withheld=True, flag_review=FlagReview.PENDING
)
OFF_FINAL_BOARD_SQL = (
    f"(g.flag_review = '{FlagReview.CONFIRMED}'"
    f" OR (g.flag_withheld AND g.flag_review = '{FlagReview.PENDING}'))"
)
# Flagged, and no reviewer has said a word yet (`Game.under_review`): strong evidence, pending.
# Such an entry shows on its final board (unmarked) but counts for no rating and earns no
# badge until a reviewer clears it. A game with weak signs only (a shared address or browser)
# is not flagged: its signs are in `flag_evidence`, for reviewers.
UNDER_REVIEW = ~models.Q(flag_reason="") & models.Q(flag_review=FlagReview.PENDING)


def draw_boards(draw: int) -> models.Q:
    """The daily boards of one draw: every daily mode played with it (`D1N`, `D1V`, ...)."""
    return models.Q(mode__startswith=f"D{int(draw)}")


class Game(models.Model):
    """One player's game on one deal under one rule set."""

    class Kind(models.TextChoices):
        CASUAL = "casual"
        DAILY = "daily"

    class Status(models.TextChoices):
        PLAYING = "playing"
        WON = "won"
        RESIGNED = "resigned"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="games"
    )
    deal = models.ForeignKey(Deal, on_delete=models.PROTECT, related_name="games")
    draw = models.PositiveSmallIntegerField()
    preset = models.CharField(max_length=1)
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.CASUAL)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PLAYING)

    # Cached from the engine after every action; the log stays the source of truth.
    seq = models.PositiveIntegerField(default=0)
    moves = models.PositiveIntegerField(default=0)
    score = models.IntegerField(null=True)
    undos = models.PositiveIntegerField(default=0)
    passes_used = models.PositiveIntegerField(default=0)
    foundations = models.PositiveSmallIntegerField(default=0)
    snapshot = models.BinaryField()

    # A ranked daily attempt: the user's first game on that daily deal (one per user and deal).
    daily = models.ForeignKey(
        "DailyDeal", on_delete=models.PROTECT, null=True, blank=True, related_name="games"
    )
    # The score that ranks a daily attempt, and the profile's best score: a card returned
    # from a foundation earns nothing the next time it is placed there. Set when a game ends.
    leaderboard_score = models.IntegerField(null=True, blank=True)
    # Set by the integrity job (games.daily.integrity): every sign it found, in plain words.
    # A flagged game is under review until a reviewer clears or confirms it; it leaves the
    # final board when confirmed, or while its evidence is conclusive (`flag_withheld`) and
    # nobody has cleared it. `flag_evidence` holds the figures the reviewer sees.
    flag_reason = models.TextField(blank=True, default="")
    flag_withheld = models.BooleanField(default=False)
    flag_review = models.CharField(
        max_length=9, choices=FlagReview.choices, blank=True, default=FlagReview.PENDING
    )
    flag_evidence = models.JSONField(null=True, blank=True)

    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    elapsed_ms = models.BigIntegerField(null=True, blank=True)  # set when the game ends
    # A casual game's clock (`games.clock.casual_clock_ms`) as of the last action, and when
    # that action came (its `at_ms`; null before the first): caches of the log, like `seq`.
    clock_ms = models.BigIntegerField(default=0)
    last_action_ms = models.BigIntegerField(null=True, blank=True)
    analysis = models.JSONField(null=True, blank=True)
    # When its player first shared this ranked attempt (`GET /games/{id}/share`, the page's
    # Share button): from then on its share page and card are public, before that a 404.
    shared_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=models.Q(draw__in=(1, 3)), name="games_game_draw"),
            models.CheckConstraint(
                condition=models.Q(preset__in=("N", "V", "C", "R")), name="games_game_preset"
            ),
            models.UniqueConstraint(fields=["user", "daily"], name="games_game_one_ranked_attempt"),
            models.CheckConstraint(
                condition=models.Q(status="playing", finished_at__isnull=True)
                | (~models.Q(status="playing") & models.Q(finished_at__isnull=False)),
                name="games_game_finished_iff_over",
            ),
        ]
        indexes = [
            models.Index(fields=["user", "-id"], name="games_game_user_recent"),
            models.Index(fields=["user", "status"], name="games_game_user_status"),
        ]

    def __str__(self) -> str:
        return f"game {self.pk} of {self.user_id}"

    @property
    def is_over(self) -> bool:
        return self.status != self.Status.PLAYING

    @property
    def under_review(self) -> bool:
        """Flagged by the integrity check, and no reviewer has said a word yet."""
        return bool(self.flag_reason) and self.flag_review == FlagReview.PENDING

    @property
    def off_final_board(self) -> bool:
        """Left out of its final board (`OFF_FINAL_BOARD`)."""
        return self.flag_review == FlagReview.CONFIRMED or (
            self.flag_withheld and self.flag_review == FlagReview.PENDING
        )


class ActionQuerySet(models.QuerySet["Action"]):
    def update(self, **kwargs: Any) -> int:
        raise TypeError("the action log is append-only: rows are never updated")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise TypeError("the action log is append-only: rows are never deleted")


class Action(models.Model):
    """One entry of a game's append-only log: the resolved action in the engine's notation.

    `seq` counts from 1; automatic moves (preset R's auto-finish) get rows of their own.
    The database refuses UPDATE and DELETE on this table (triggers, see the migrations).
    """

    # No index of its own: the unique (game, seq) index serves look-ups by game.
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="actions", db_index=False)
    seq = models.PositiveIntegerField()
    notation = models.CharField(max_length=32)
    score_after = models.IntegerField(null=True)
    at_ms = models.BigIntegerField()

    objects = ActionQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="games_action_game_seq"),
            models.CheckConstraint(condition=models.Q(seq__gte=1), name="games_action_seq_min"),
        ]

    def __str__(self) -> str:
        return f"{self.game_id}#{self.seq} {self.notation}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise TypeError("the action log is append-only: a saved action never changes")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise TypeError("the action log is append-only: rows are never deleted")


class DailyDeal(models.Model):
    """One daily challenge: the deal of one mode (`D1N`, `D3N`, ...) on one UTC day.

    The deal is proven winnable by the solver before it is published; `par` is the length
    of the solver's solution. While the day is open only `commitment` = sha256("code|salt")
    is public; `code` and `salt` are published when the board is final.
    """

    date = models.DateField()
    mode = models.CharField(max_length=3)
    deal = models.ForeignKey(Deal, on_delete=models.PROTECT, related_name="dailies")
    salt = models.CharField(max_length=64)
    commitment = models.CharField(max_length=64)
    par = models.PositiveIntegerField()
    # The solver's winning line (notation, one action a line): what `par` counts, and what
    # the integrity check compares ranked wins with. Never sent while the board is open.
    solution = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    ranked_at = models.DateTimeField(null=True, blank=True)
    entries_count = models.PositiveIntegerField(default=0)  # as of the last ranking
    # The board's current ranking generation (None before the first ranking).
    generation = models.ForeignKey(
        "RankingGeneration",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    finalized_at = models.DateTimeField(null=True, blank=True)
    # When the final board last updated its players' ratings (games.daily.services.ratings).
    rated_at = models.DateTimeField(null=True, blank=True)
    # Its difficulty, as that rating saw it: the entries that counted, and their wins (None
    # before the board is rated).
    counted_entries = models.PositiveIntegerField(null=True, blank=True)
    counted_wins = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["date", "mode"], name="games_daily_date_mode"),
        ]
        ordering = ["-date", "mode"]

    def __str__(self) -> str:
        return f"daily {self.date} {self.mode}"

    @property
    def draw(self) -> int:
        return int(self.mode[1])

    @property
    def preset(self) -> str:
        return self.mode[2]

    @property
    def is_final(self) -> bool:
        return self.finalized_at is not None


class AttemptOrigin(models.Model):
    """Where a ranked attempt was started from: the client address and the browser, for the
    integrity check's second-account rule. Personal data: deleted after
    `games.daily.services.origins.ORIGIN_RETENTION` (30 days)."""

    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, primary_key=True, related_name="origin"
    )
    daily = models.ForeignKey(DailyDeal, on_delete=models.CASCADE, related_name="+")
    address = models.GenericIPAddressField(null=True, blank=True)
    browser = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField()

    class Meta:
        indexes = [
            models.Index(fields=["created_at"], name="games_origin_created"),
            # The integrity check looks up a board's attempts from one browser or address.
            models.Index(fields=["daily", "browser"], name="games_origin_daily_browser"),
            models.Index(fields=["daily", "address"], name="games_origin_daily_address"),
        ]

    def __str__(self) -> str:
        return f"origin of game {self.game_id}"


class AttemptLink(models.Model):
    """Two accounts' ranked attempts at one deal that were started from the same browser or
    the same client address: evidence the integrity check records for reviewers, whatever
    it concludes from it. One row per direction, so that each game lists its links.
    Deleted with the origins (personal data, `ORIGIN_RETENTION`)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="links")
    other = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    same_browser = models.BooleanField()
    same_address = models.BooleanField()
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "other"], name="games_link_game_other"),
        ]
        indexes = [models.Index(fields=["created_at"], name="games_link_created")]

    def __str__(self) -> str:
        return f"game {self.game_id} linked to {self.other_id}"


# The longest reason a report may give (`EntryReport.reason`).
REPORT_REASON_MAX = 500


class EntryReport(models.Model):
    """A player's report of another player's entry on a final board, with their reason:
    evidence for the reviewers (the game's page in Django admin), never shown in public, and
    no flag by itself. One per entry and player."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="reports")
    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    reason = models.TextField(max_length=REPORT_REASON_MAX)
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            # Also serves the look-ups by game (its first column).
            models.UniqueConstraint(
                fields=["game", "reporter"], name="games_report_one_per_player"
            ),
            models.CheckConstraint(condition=~models.Q(reason=""), name="games_report_reason"),
        ]

    def __str__(self) -> str:
        return f"report of game {self.game_id} by {self.reporter_id}"


class RankingGeneration(models.Model):
    """A board's ranking generation: the entries one ranking run wrote.

    A run builds a new generation beside the current one and then points the board at it
    (`DailyDeal.generation`) in the same transaction, so readers see either the old generation or
    the new one, never a half-built one. A replaced generation is `retired_at` the moment of
    the swap and dropped a grace period later
    (`games.daily.services.rankings.GENERATION_GRACE`), after any request that read the old
    pointer has finished.
    """

    daily = models.ForeignKey(DailyDeal, on_delete=models.CASCADE, related_name="generations")
    created_at = models.DateTimeField(auto_now_add=True)
    retired_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["retired_at"], name="games_rankgen_retired")]

    def __str__(self) -> str:
        return f"generation {self.pk} of {self.daily_id}"


class LeaderboardEntry(models.Model):
    """One row of a board's ranking generation (`generation`): a game's rank and
    place, written in bulk by the ranking job and never updated.

    A row holds only what the ranking computed; what it shows (player, result, moves, time)
    is read from its game, which does not change once finished. Narrow rows are what make
    a run at 1M entries fast: every byte of a row is written, and logged, a million times.

    On PostgreSQL the table is partitioned by LIST (generation): each generation is a partition
    of its own, built and indexed as a plain table, attached when complete and dropped whole
    when retired (games/migrations/0001_initial.py). So the table has no primary-key or unique
    constraint in the database (a partitioned table's keys must contain the partition key);
    `id` is derived, `generation << 32 | position`, unique by construction. The foreign keys are
    not enforced by the database either: every row is derived from a `Game`.
    """

    id = models.BigIntegerField(primary_key=True)
    generation = models.ForeignKey(
        RankingGeneration,
        on_delete=models.CASCADE,
        related_name="entries",
        db_constraint=False,
        db_index=False,
    )
    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="+", db_constraint=False, db_index=False
    )
    rank = models.PositiveIntegerField()  # equal keys share a rank: 1, 2, 2, 4
    position = models.PositiveIntegerField()  # 1, 2, 3, 4: the row's place, for paging

    class Meta:
        indexes = [
            # No index on the game or user: `me` finds its entry by a binary search over
            # positions (games.daily.selectors), and such an index cost a fifth of every
            # ranking run.
            models.Index(fields=["generation", "position"], name="games_lb_generation_position"),
        ]

    def __str__(self) -> str:
        return f"#{self.rank} game {self.game_id} in generation {self.generation_id}"


class DailyStreak(models.Model):
    """A player's daily-win streaks in one mode, counted in UTC days."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="streaks"
    )
    mode = models.CharField(max_length=3)
    current = models.PositiveIntegerField(default=0)
    longest = models.PositiveIntegerField(default=0)
    last_win = models.DateField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "mode"], name="games_streak_user_mode"),
        ]
        indexes = [models.Index(fields=["mode", "-longest"], name="games_streak_longest")]

    def __str__(self) -> str:
        return f"{self.user_id} {self.mode}: {self.current}/{self.longest}"


class PooledDeal(models.Model):
    """A deal number the solver has proven winnable under one mode's rules, waiting in that
    mode's pool for a casual game dealt "winnable only" (`games.pool`). Taken out (deleted)
    when a game is dealt it, so no two such games get it from the pool."""

    draw = models.PositiveSmallIntegerField()
    preset = models.CharField(max_length=1)
    number = models.BigIntegerField()
    # The proof: the solver's winning line (notation), which the game's first hint follows.
    # Server-only: it would give away face-down cards. "" in a row pooled before it was kept.
    line = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["draw", "preset", "number"], name="games_pooleddeal_mode_number"
            ),
        ]
        indexes = [models.Index(fields=["draw", "preset", "id"], name="games_pool_mode_order")]

    def __str__(self) -> str:
        return f"pooled deal {self.number} D{self.draw}{self.preset}"


class Rating(models.Model):
    """A player's skill rating in one draw (docs/daily.md, "Ratings"), as of the last final
    board that rated it: a cache of the player's last `RatingChange` of that draw, plus
    `position`, the place among the draw's established ratings (not provisional), which the
    rating job numbers anew after each board so that the rating leaderboard pages by it."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    draw = models.PositiveSmallIntegerField()
    mu = models.FloatField()
    sigma = models.FloatField()
    boards = models.PositiveIntegerField()
    last_board = models.DateField()
    position = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "draw"], name="games_rating_user_draw"),
        ]
        # Not unique: the job renumbers positions in one UPDATE, which a unique index would
        # check row by row, halfway through.
        indexes = [models.Index(fields=["draw", "position"], name="games_rating_draw_position")]

    def __str__(self) -> str:
        return f"{self.user_id} draw {self.draw}: {self.mu:.0f} ± {self.sigma:.0f}"


class RatingChange(models.Model):
    """What one final board did to one player's rating: the history the profile charts, and
    the change the final board shows. Written by the rating job only, and rewritten with the
    boards after it when a review changes a final board."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    daily = models.ForeignKey(DailyDeal, on_delete=models.CASCADE, related_name="rating_changes")
    draw = models.PositiveSmallIntegerField()
    date = models.DateField()  # the board's, so that the history sorts without a join
    rank = models.PositiveIntegerField()  # on the final board, as it shows (`board_places`)
    mu_before = models.FloatField()
    sigma_before = models.FloatField()  # grown by the days the player missed
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    boards = models.PositiveIntegerField()  # the player's rated boards in the draw, this one too

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["daily", "user"], name="games_ratingchange_daily_user"),
        ]
        indexes = [
            models.Index(fields=["user", "draw", "date"], name="games_ratingchange_history"),
            models.Index(fields=["draw", "date"], name="games_ratingchange_draw_date"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} on {self.daily_id}: {self.mu_before:.0f} → {self.mu_after:.0f}"


class RatingNotice(models.Model):
    """A player's rating moved by a review of a final board (docs/daily.md, "Ratings"): opened
    with the rating before the review when the job rewinds the draw, closed with the rating
    after once the draw is rated again; the profile shows a closed one ("+12 after a review of
    3 Dec"). A closed notice that changed nothing is deleted."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_notices"
    )
    draw = models.PositiveSmallIntegerField()
    reviewed_day = models.DateField()  # the earliest final board a review changed
    mu_before = models.FloatField()
    mu_after = models.FloatField(null=True, blank=True)  # null while the draw is rated again
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            # One open notice per player and draw: a second review before the first is rated
            # again joins it (the earlier day, the first rating before).
            models.UniqueConstraint(
                fields=["user", "draw"],
                condition=models.Q(mu_after__isnull=True),
                name="games_ratingnotice_one_open",
            ),
        ]
        indexes = [models.Index(fields=["user", "-created_at"], name="games_ratingnotice_user")]

    def __str__(self) -> str:
        return f"{self.user_id} draw {self.draw}: review of {self.reviewed_day}"


class BadgeKind(models.TextChoices):
    """What a badge rewards (games.daily.services.badges)."""

    FIRST_WIN = "first_win", "first win"
    STREAK_7 = "streak_7", "a 7-day streak"
    STREAK_30 = "streak_30", "a 30-day streak"
    NO_UNDO_WIN = "no_undo_win", "a win without undo"
    UNDER_PAR = "under_par", "a win under par"
    TOP_10 = "top_10", "a top-10 finish"
    RATING_1700 = "rating_1700", "a rating of 1700"
    RATING_1900 = "rating_1900", "a rating of 1900"
    RATING_2100 = "rating_2100", "a rating of 2100"


class Badge(models.Model):
    """A badge a player earned, on the first final board that earned it: derived from the
    stored games, rating changes and final rankings, so that a recount gives the same rows."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="badges"
    )
    kind = models.CharField(max_length=16, choices=BadgeKind.choices)
    daily = models.ForeignKey(DailyDeal, on_delete=models.CASCADE, related_name="+")
    earned_on = models.DateField()  # the board's day

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "kind"], name="games_badge_user_kind"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.kind} on {self.earned_on}"


class ShareCard(models.Model):
    """A shared result's image card, drawn once per game and language and kept (drawing one
    costs about 80 ms of CPU); drawn again only when what it says changed (the board went
    final: its rank shows)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    language = models.CharField(max_length=16)
    rank = models.IntegerField(null=True, blank=True)
    entries = models.IntegerField(null=True, blank=True)
    png = models.BinaryField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "language"], name="games_sharecard_game_lang"),
        ]

    def __str__(self) -> str:
        return f"card of game {self.game_id} ({self.language})"
