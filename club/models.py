"""Club life (issue #7): per-hand outcomes for leaderboards and profiles, player settings,
spectator presence, quick chat, connection addresses for fair-play review, suspensions.
Competition (issue #27): skill ratings per variant (club/skill.py) and seasons.

Models stay thin: writes live in club/services/, reads in club/selectors/.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from site_kit.append_only import AppendOnlyError, AppendOnlyModel


class HandOutcome(models.Model):
    """One human seat of one finished, settled hand: what leaderboards and profiles aggregate.

    Written in the hand's own finishing transaction (games.table.hooks ``hand_finished``);
    ``beans`` is the seat's net ledger move for the hand (settlement, house take and rake),
    ``score`` its score move. Bots never get a row."""

    class Side(models.TextChoices):
        LANDLORD = "landlord", _("Landlord side")
        FARMER = "farmer", _("Farmer side")

    hand = models.ForeignKey(
        "games.Hand", verbose_name=_("hand"), on_delete=models.CASCADE, related_name="outcomes"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        on_delete=models.PROTECT,
        related_name="hand_outcomes",
    )
    seat = models.PositiveSmallIntegerField(_("seat"))
    variant_key = models.CharField(_("variant"), max_length=16)
    side = models.CharField(_("side"), max_length=16, choices=Side.choices)
    won = models.BooleanField(_("won"))
    beans = models.BigIntegerField(_("beans"))
    score = models.BigIntegerField(_("score"))
    multiplier = models.PositiveIntegerField(_("multiplier"), default=1)
    spring = models.BooleanField(_("spring"), default=False)  # spring or anti-spring, for him
    finished_at = models.DateTimeField(_("finished"), db_index=True)
    # the season under way when the hand finished (None: between seasons, or before any)
    season = models.ForeignKey(
        "club.Season",
        verbose_name=_("season"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="outcomes",
    )

    class Meta:
        verbose_name = _("hand outcome")
        verbose_name_plural = _("hand outcomes")
        ordering = ["-finished_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["hand", "seat"], name="handoutcome_unique_seat"),
        ]
        indexes = [
            models.Index(fields=["user", "-finished_at"], name="handoutcome_user_time"),
            models.Index(fields=["variant_key", "finished_at"], name="handoutcome_variant_time"),
        ]

    def __str__(self) -> str:
        return f"hand {self.hand_id} seat {self.seat}: {self.beans:+d}"


class PlayerSettings(models.Model):
    class CardSize(models.TextChoices):
        SMALL = "s", _("Small")
        MEDIUM = "m", _("Medium")
        LARGE = "l", _("Large")

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        on_delete=models.CASCADE,
        related_name="club_settings",
    )
    card_size = models.CharField(
        _("card size"), max_length=1, choices=CardSize.choices, default=CardSize.MEDIUM
    )
    sound = models.BooleanField(_("sound"), default=True)
    auto_pass = models.BooleanField(
        _("auto-pass"),
        default=True,
        help_text=_("Pass by yourself when you cannot beat the cards on the table."),
    )
    language = models.CharField(_("language"), max_length=16, blank=True, default="")
    # the first-hand guide (static/games/guide.js) opens by itself until the player closes it
    guide_seen = models.BooleanField(_("guide seen"), default=False)

    class Meta:
        verbose_name = _("player settings")
        verbose_name_plural = _("player settings")

    def __str__(self) -> str:
        return str(self.user)


class ChatMessage(models.Model):
    """A quick-chat message sent at a table (also the per-user rate limit's memory)."""

    table = models.ForeignKey(
        "games.Table", verbose_name=_("table"), on_delete=models.CASCADE, related_name="chats"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        on_delete=models.CASCADE,
        related_name="chats",
    )
    key = models.CharField(_("phrase"), max_length=32, blank=True, default="")
    text = models.CharField(_("text"), max_length=200, blank=True, default="")
    seat = models.PositiveSmallIntegerField(_("seat"), null=True, blank=True)  # None: spectator
    created_at = models.DateTimeField(_("time"), default=timezone.now)

    class Meta:
        verbose_name = _("chat message")
        verbose_name_plural = _("chat messages")
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "-created_at"], name="chat_user_time")]


class ConnectionRecord(models.Model):
    """The address a user's table socket came from (fair-play review: shared addresses)."""

    table = models.ForeignKey(
        "games.Table", verbose_name=_("table"), on_delete=models.CASCADE, related_name="+"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        on_delete=models.CASCADE,
        related_name="connection_records",
    )
    ip = models.GenericIPAddressField(_("IP address"))
    seated = models.BooleanField(_("seated"), default=False)
    seen_at = models.DateTimeField(_("last seen"), default=timezone.now)

    class Meta:
        verbose_name = _("connection record")
        verbose_name_plural = _("connection records")
        constraints = [
            models.UniqueConstraint(fields=["table", "user", "ip"], name="connectionrecord_unique"),
        ]
        indexes = [models.Index(fields=["table", "ip"], name="connection_table_ip")]


class Suspension(models.Model):
    """An operator's suspension: the account can no longer sit down; its ledger is untouched."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        on_delete=models.CASCADE,
        related_name="suspension",
    )
    reason = models.TextField(_("reason"))
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("operator"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(_("suspended at"), default=timezone.now)

    class Meta:
        verbose_name = _("suspension")
        verbose_name_plural = _("suspensions")
        constraints = [
            models.CheckConstraint(condition=~Q(reason=""), name="suspension_has_reason"),
        ]

    def __str__(self) -> str:
        return str(self.user)


class FairPlaySignals(models.Model):
    """No rows: the admin entry of the fair-play signals page (club.admin)."""

    class Meta:
        managed = False
        default_permissions = ("view",)
        verbose_name = _("fair-play signals")
        verbose_name_plural = _("fair-play signals")


# --------------------------------------------------------------------------- skill ratings


class Rating(models.Model):
    """The skill (club/skill.py) a player has in one variant, or a role baseline's (the
    landlord side's handicap or advantage of one shape of the sides): what the next rated hand
    starts from. How it got there is in RatingChange."""

    variant_key = models.CharField(_("variant"), max_length=16)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="ratings",
    )
    # the shape of the sides ("1v2", "2v3") of a role baseline; empty for a player
    baseline = models.CharField(_("role baseline"), max_length=8, blank=True, default="")
    mu = models.FloatField(_("mu"))
    sigma = models.FloatField(_("sigma"))
    ordinal = models.FloatField(_("ordinal"))  # mu - 3 sigma, kept for ordering the boards
    hands = models.PositiveIntegerField(_("rated hands"), default=0)
    last_hand_at = models.DateTimeField(_("last rated hand"), null=True, blank=True)

    class Meta:
        verbose_name = _("rating")
        verbose_name_plural = _("ratings")
        constraints = [
            models.UniqueConstraint(
                fields=["variant_key", "user"],
                condition=Q(user__isnull=False),
                name="rating_one_per_player_and_variant",
            ),
            models.UniqueConstraint(
                fields=["variant_key", "baseline"],
                condition=Q(user__isnull=True),
                name="rating_one_per_baseline_and_variant",
            ),
            models.CheckConstraint(
                condition=(Q(user__isnull=True) & ~Q(baseline=""))
                | (Q(user__isnull=False) & Q(baseline="")),
                name="rating_player_or_baseline",
            ),
        ]
        indexes = [models.Index(fields=["variant_key", "-ordinal"], name="rating_variant_ordinal")]

    def __str__(self) -> str:
        who = self.baseline if self.user_id is None else str(self.user_id)
        return f"{self.variant_key} {who}: {self.mu:.2f} ± {self.sigma:.2f}"


class RatedHandIsAppendOnly(AppendOnlyError):
    pass


class RatedHand(AppendOnlyModel):
    """A rated hand. Its id is taken while its players' and role baseline's ratings are
    locked, so it numbers the rated hands in the order their ratings moved: the order the
    recompute command replays. Append-only, like the ledger (migration 0003's triggers)."""

    hand = models.OneToOneField(
        "games.Hand", verbose_name=_("hand"), on_delete=models.PROTECT, related_name="rated"
    )
    variant_key = models.CharField(_("variant"), max_length=16)
    finished_at = models.DateTimeField(_("finished"), db_index=True)

    append_only_error = RatedHandIsAppendOnly

    class Meta:
        verbose_name = _("rated hand")
        verbose_name_plural = _("rated hands")
        ordering = ["-id"]
        indexes = [models.Index(fields=["variant_key", "id"], name="ratedhand_variant_seq")]

    def __str__(self) -> str:
        return f"#{self.pk} hand {self.hand_id}"


class RatingChange(models.Model):
    """How one rated hand moved one rating (a player's or the role baseline's). Written by
    the hand's finishing transaction; the recompute rewrites it only where its replay of the
    hand history differs (an older database, a changed model)."""

    rated_hand = models.ForeignKey(
        RatedHand, verbose_name=_("rated hand"), on_delete=models.PROTECT, related_name="changes"
    )
    rating = models.ForeignKey(
        Rating, verbose_name=_("rating"), on_delete=models.PROTECT, related_name="changes"
    )
    landlord_side = models.BooleanField(_("landlord side"))
    mu_before = models.FloatField(_("mu before"))
    sigma_before = models.FloatField(_("sigma before"))
    mu_after = models.FloatField(_("mu after"))
    sigma_after = models.FloatField(_("sigma after"))

    class Meta:
        verbose_name = _("rating change")
        verbose_name_plural = _("rating changes")
        constraints = [
            models.UniqueConstraint(
                fields=["rated_hand", "rating"], name="ratingchange_once_per_hand"
            ),
        ]
        indexes = [models.Index(fields=["rating", "rated_hand"], name="ratingchange_history")]


# --------------------------------------------------------------------------- seasons


class Season(models.Model):
    """A stretch of club time the operator opens in the admin. At its start the title ladder's
    score is soft-reset (club.services.seasons.season_begin); the rating carries on."""

    name = models.CharField(_("name"), max_length=80)
    starts_at = models.DateTimeField(_("starts"))
    ends_at = models.DateTimeField(_("ends"))
    # when its soft reset ran (None: not yet)
    begun_at = models.DateTimeField(_("begun"), null=True, blank=True, editable=False)
    created_at = models.DateTimeField(_("created"), default=timezone.now, editable=False)

    class Meta:
        verbose_name = _("season")
        verbose_name_plural = _("seasons")
        ordering = ["-starts_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(ends_at__gt=models.F("starts_at")), name="season_ends_after_start"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class SeasonResetIsAppendOnly(AppendOnlyError):
    pass


class SeasonReset(AppendOnlyModel):
    """One player's score before and after a season's soft reset: the score is not beans and
    the ledger is untouched, but every move of it stays on record (a hand's in its result,
    a reset here). Append-only (migration 0003's triggers)."""

    season = models.ForeignKey(
        Season, verbose_name=_("season"), on_delete=models.PROTECT, related_name="resets"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        on_delete=models.PROTECT,
        related_name="season_resets",
    )
    score_before = models.BigIntegerField(_("score before"))
    score_after = models.BigIntegerField(_("score after"))
    created_at = models.DateTimeField(_("time"), default=timezone.now)

    append_only_error = SeasonResetIsAppendOnly

    class Meta:
        verbose_name = _("season reset")
        verbose_name_plural = _("season resets")
        constraints = [
            models.UniqueConstraint(fields=["season", "user"], name="seasonreset_once"),
        ]


class SeasonStanding(models.Model):
    """A player's score in one season: where the soft reset put him, where he is (or ended),
    and the highest point he reached, whose title is his badge of the season."""

    season = models.ForeignKey(
        Season, verbose_name=_("season"), on_delete=models.PROTECT, related_name="standings"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        on_delete=models.PROTECT,
        related_name="season_standings",
    )
    score_start = models.BigIntegerField(_("score at the start"))
    score = models.BigIntegerField(_("score"))
    score_peak = models.BigIntegerField(_("highest score"))
    peak_title = models.ForeignKey(
        "accounts.Title",
        verbose_name=_("highest title"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    hands = models.PositiveIntegerField(_("hands"), default=0)

    class Meta:
        verbose_name = _("season standing")
        verbose_name_plural = _("season standings")
        constraints = [
            models.UniqueConstraint(fields=["season", "user"], name="seasonstanding_once"),
        ]
        indexes = [models.Index(fields=["season", "-score"], name="seasonstanding_board")]
