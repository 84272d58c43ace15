"""Club life (issue #7): per-hand outcomes for leaderboards and profiles, player settings,
spectator presence, quick chat, connection addresses for fair-play review, suspensions.

Models stay thin: writes live in club/services.py, reads in club/selectors.py.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class HandOutcome(models.Model):
    """One human seat of one finished, settled hand: what leaderboards and profiles aggregate.

    Written in the hand's own finishing transaction (club.signals); ``beans`` is the seat's net
    ledger move for the hand (settlement, house take and rake), ``score`` its score move.
    Bots never get a row."""

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
        default=False,
        help_text=_("Pass by yourself when you cannot beat the cards on the table."),
    )
    language = models.CharField(_("language"), max_length=16, blank=True, default="")

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
