"""Players, the bean ledger and the title ladder (docs/rules.md §7). Models stay thin: the writes
live in accounts/services.py, the reads in accounts/selectors.py.

The house account is not a user: a ledger row with ``user = NULL`` belongs to the house. House
rows carry no running balance (``balance_after`` is NULL) so settlements never queue on one
shared row; the house balance, the club's total intake, is the sum of its deltas
(``accounts.selectors.house_balance``).
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from site_kit.append_only import AppendOnlyError, AppendOnlyModel


class User(AbstractUser):
    beans = models.BigIntegerField(
        _("beans"), default=0, help_text=_("Cached balance; the ledger is the truth.")
    )
    score = models.BigIntegerField(_("score"), default=0)
    is_bot = models.BooleanField(
        _("bot"), default=False, help_text=_("Bots never hold beans or scores.")
    )

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"
        constraints = [
            models.CheckConstraint(condition=Q(beans__gte=0), name="user_beans_non_negative"),
            models.CheckConstraint(
                condition=Q(is_bot=False) | Q(beans=0), name="user_bot_holds_no_beans"
            ),
        ]


class LedgerIsAppendOnly(AppendOnlyError):
    """Raised on any attempt to change or remove a ledger entry."""


class BeanEntry(AppendOnlyModel):
    """One signed movement of beans. Append-only: the model, its queryset and a database
    trigger (migration 0002) all refuse UPDATE and DELETE."""

    class Reason(models.TextChoices):
        SIGNUP_GRANT = "signup_grant", _("Sign-up grant")
        HAND_SETTLEMENT = "hand_settlement", _("Hand settlement")
        HOUSE_TAKE = "house_take", _("House take")
        RAKE = "rake", _("Rake")
        OPERATOR_ADJUSTMENT = "operator_adjustment", _("Operator adjustment")
        DAILY_RELIEF = "daily_relief", _("Daily relief")
        # an event's entry fee (held by the house), its refund, a prize from its pool
        EVENT_FEE = "event_fee", _("Event entry fee")
        EVENT_REFUND = "event_refund", _("Event fee refund")
        EVENT_PRIZE = "event_prize", _("Event prize")

    user = models.ForeignKey(
        "accounts.User",
        verbose_name=_("player"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="bean_entries",
        help_text=_("Empty for the house account."),
    )
    delta = models.BigIntegerField(_("change"))
    balance_after = models.BigIntegerField(_("balance after"), null=True, blank=True)
    reason = models.CharField(_("reason"), max_length=32, choices=Reason.choices)
    # The Hand model comes later; a hand is referred to by a stable text key (its id).
    hand_ref = models.CharField(_("hand"), max_length=64, null=True, blank=True)
    note = models.TextField(_("note"), blank=True, default="")
    actor = models.ForeignKey(
        "accounts.User",
        verbose_name=_("operator"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    # An event's movements (``event:<id>``): each player row has its house counter-row.
    event_ref = models.CharField(_("event"), max_length=64, null=True, blank=True, db_index=True)
    # The club-local day of a daily relief claim; one claim per player and day.
    relief_day = models.DateField(null=True, blank=True)
    created_at = models.DateTimeField(_("time"), default=timezone.now, db_index=True)

    append_only_error = LedgerIsAppendOnly

    class Meta:
        verbose_name = _("bean entry")
        verbose_name_plural = _("bean ledger")
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "-created_at"], name="beanentry_user_time")]
        constraints = [
            models.CheckConstraint(
                condition=(Q(user__isnull=True) & Q(balance_after__isnull=True))
                | (Q(user__isnull=False) & Q(balance_after__gte=0)),
                name="beanentry_balance_after_non_negative",
            ),
            models.CheckConstraint(condition=~Q(delta=0), name="beanentry_delta_non_zero"),
            models.UniqueConstraint(
                fields=["hand_ref", "user", "reason"],
                condition=Q(hand_ref__isnull=False, user__isnull=False),
                name="beanentry_once_per_hand_user_reason",
            ),
            models.UniqueConstraint(
                fields=["event_ref", "user"],
                condition=Q(reason="event_prize", user__isnull=False),
                name="beanentry_one_prize_per_event_user",
            ),
            models.UniqueConstraint(
                fields=["user", "relief_day"],
                condition=Q(reason="daily_relief"),
                name="beanentry_relief_once_a_day",
            ),
        ]

    def __str__(self) -> str:
        who = self.user.username if self.user_id else "house"
        return f"{who} {self.delta:+d} ({self.reason})"


class HandSettlement(models.Model):
    """The one settlement of a hand: its unique ``hand_ref`` makes settling exactly-once."""

    hand_ref = models.CharField(_("hand"), max_length=64, unique=True)
    house = models.BigIntegerField(_("house intake"))
    detail = models.JSONField(_("detail"), default=dict)
    created_at = models.DateTimeField(_("time"), default=timezone.now)

    class Meta:
        verbose_name = _("hand settlement")
        verbose_name_plural = _("hand settlements")

    def __str__(self) -> str:
        return self.hand_ref


class Title(models.Model):
    """A rung of the title ladder (seed 000): the highest threshold ≤ score is the title."""

    threshold = models.BigIntegerField(_("threshold"), unique=True)
    name_hans = models.CharField(_("name (simplified Chinese)"), max_length=32)
    name_hant = models.CharField(_("name (traditional Chinese)"), max_length=32)
    name_en = models.CharField(_("name (English)"), max_length=64)

    class Meta:
        verbose_name = _("title")
        verbose_name_plural = _("titles")
        ordering = ["threshold"]

    def __str__(self) -> str:
        return self.name

    @property
    def name(self) -> str:
        """The name in the active language (zh-hans when nothing else matches)."""
        language = (get_language() or "zh-hans").lower()
        if language.startswith("en"):
            return self.name_en
        if language in {"zh-hant", "zh-tw", "zh-hk", "zh-mo"}:
            return self.name_hant
        return self.name_hans
