"""Rooms: where a variant is played at given stakes (RULES.md §7 room settings).

Models stay thin; validation is in ``Room.clean`` (called by the admin and by
``games.services.room_create``) and computations in games/services.py and games/selectors.py.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from games.engine.beans import RoomStakes
from games.engine.errors import EngineError
from games.engine.variants import VARIANTS, find_variant

# Translatable display names; the engine's own names are the Chinese ones.
VARIANT_LABELS = {
    "qq5": _("Five-player Dou Dizhu"),
    "new5": _("New five-player Dou Dizhu, three decks"),
    "classic3": _("Classic three-player Dou Dizhu"),
    "fenzhou5": _("Fenzhou five-player Dou Dizhu"),
}


def variant_choices() -> list[tuple[str, str]]:
    return [(key, VARIANT_LABELS.get(key, cls.name)) for key, cls in VARIANTS.items()]


class Room(models.Model):
    name = models.CharField(_("name"), max_length=80, unique=True)
    variant = models.CharField(_("variant"), max_length=16, choices=variant_choices, default="qq5")
    base_score = models.PositiveIntegerField(
        _("base score"), default=1, validators=[MinValueValidator(1)]
    )
    coefficient = models.PositiveIntegerField(
        _("room coefficient"), default=1, validators=[MinValueValidator(1)]
    )
    house_take = models.PositiveIntegerField(
        _("house take"), default=0, help_text=_("Beans taken from every player per hand.")
    )
    rake_percent = models.PositiveSmallIntegerField(
        _("rake percent"),
        default=0,
        validators=[MaxValueValidator(100)],
        help_text=_("Share of each winner's gross gain kept by the house."),
    )
    max_multiplier = models.PositiveIntegerField(
        _("maximum multiplier"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text=_("Cap where the variant has none of its own; empty for no cap."),
    )
    min_balance = models.PositiveBigIntegerField(
        _("minimum balance"),
        null=True,
        blank=True,
        help_text=_("Beans needed to sit down; empty to compute it from the stakes."),
    )
    bid_seconds = models.PositiveSmallIntegerField(
        _("bid seconds"), default=15, validators=[MinValueValidator(1)]
    )
    turn_seconds = models.PositiveSmallIntegerField(
        _("turn seconds"), default=30, validators=[MinValueValidator(1)]
    )
    options = models.JSONField(
        _("rule options"),
        default=dict,
        blank=True,
        help_text=_("Variant rule options by name; empty for the defaults."),
    )
    is_active = models.BooleanField(_("active"), default=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("room")
        verbose_name_plural = _("rooms")
        ordering = ["variant", "coefficient", "name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(rake_percent__lte=100), name="room_rake_percent_at_most_100"
            ),
            models.CheckConstraint(
                condition=Q(base_score__gte=1) & Q(coefficient__gte=1),
                name="room_stakes_positive",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        super().clean()
        if not isinstance(self.options, dict):
            raise ValidationError({"options": _("Rule options must be a JSON object.")})
        try:
            find_variant(self.variant, **self.options)
        except EngineError as error:
            raise ValidationError({"options": str(error)}) from error

    @property
    def stakes(self) -> RoomStakes:
        return RoomStakes(
            base_score=self.base_score,
            coefficient=self.coefficient,
            house_take=self.house_take,
            rake_percent=self.rake_percent,
            max_multiplier=self.max_multiplier,
        )

    @property
    def variant_label(self) -> str:
        return str(VARIANT_LABELS.get(self.variant, self.variant))

    @property
    def effective_min_balance(self) -> int:
        from games.services import room_min_balance

        return room_min_balance(room=self)
