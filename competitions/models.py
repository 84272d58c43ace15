"""Club competitions (issue #27): arena and duplicate (复式) events, their entrants, the hands
they deal, the boards of a duplicate round, recurring schedules and the one settlement of an
event's fees and prizes.

Models stay thin: writes in competitions/services.py (the runner's too), reads in selectors.py,
the rules in the pure modules arena, duplicate, prizes, schedule and grouping.
"""

from __future__ import annotations

import datetime

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from competitions import prizes
from games.engine import find_variant


class Format(models.TextChoices):
    ARENA = "arena", _("Arena")
    DUPLICATE = "duplicate", _("Duplicate")


class EventSettings(models.Model):
    """What an event and the schedule that creates events share: the room (variant, options,
    seconds, the house's cut of the fees), the format and its lengths, entrants, fee, prizes."""

    name = models.CharField(_("name"), max_length=80)
    room = models.ForeignKey(
        "games.Room", verbose_name=_("room"), on_delete=models.PROTECT, related_name="+"
    )
    format = models.CharField(_("format"), max_length=16, choices=Format.choices)
    minutes = models.PositiveIntegerField(
        _("length (minutes)"),
        default=60,
        validators=[MinValueValidator(1)],
        help_text=_("Arena: how long the event runs."),
    )
    stop_pairing_seconds = models.PositiveIntegerField(
        _("no new tables in the last (seconds)"),
        default=180,
        help_text=_("Arena: no table is formed this close to the end."),
    )
    rounds = models.PositiveSmallIntegerField(
        _("rounds"), default=3, validators=[MinValueValidator(1)], help_text=_("Duplicate.")
    )
    boards_per_round = models.PositiveSmallIntegerField(
        _("boards per round"),
        default=4,
        validators=[MinValueValidator(1), MaxValueValidator(32)],
        help_text=_("Duplicate: deals every table plays in a round."),
    )
    break_seconds = models.PositiveIntegerField(
        _("break between rounds (seconds)"), default=60, help_text=_("Duplicate.")
    )
    min_entrants = models.PositiveSmallIntegerField(
        _("minimum entrants"),
        default=3,
        validators=[MinValueValidator(1)],
        help_text=_("Fewer at the start: the event is cancelled and every fee refunded."),
    )
    max_entrants = models.PositiveSmallIntegerField(
        _("maximum entrants"), null=True, blank=True, help_text=_("Empty for no limit.")
    )
    entry_fee = models.PositiveBigIntegerField(_("entry fee (beans)"), default=0)
    prize_bands = models.CharField(
        _("prize bands"),
        max_length=200,
        blank=True,
        default="1:50, 2:30, 3:20",
        help_text=_("Share of the prize pool per rank, e.g. 1:50, 2:30, 3-4:10 (adds up to 100)."),
    )
    allow_bots = models.BooleanField(
        _("bots may fill tables"),
        default=False,
        help_text=_("Bots complete a table that players cannot fill; they never score."),
    )
    gather_seconds = models.PositiveIntegerField(
        _("pool gathering (seconds)"),
        default=10,
        help_text=_("Arena: a small pool waits this long for more players before a table forms."),
    )
    bot_wait_seconds = models.PositiveIntegerField(
        _("wait before bots (seconds)"),
        default=30,
        help_text=_("A player waits this long before bots fill his table."),
    )

    class Meta:
        abstract = True

    def clean(self) -> None:
        super().clean()
        try:
            prizes.parse_bands(self.prize_bands)
        except prizes.BadBands as error:
            raise ValidationError({"prize_bands": bands_refusal(error)}) from error
        if self.max_entrants is not None and self.max_entrants < self.min_entrants:
            raise ValidationError({"max_entrants": _("At least the minimum.")})
        needed = self.fewest_entrants()
        if needed is not None and self.min_entrants < needed:
            raise ValidationError(
                {"min_entrants": _("At least %(n)s for this room and format.") % {"n": needed}}
            )

    def fewest_entrants(self) -> int | None:
        """The smallest minimum of entrants the room and format allow (None: no room yet):
        with bots two players; else one full table, two for duplicate's comparison."""
        if self.room_id is None:
            return None
        if self.allow_bots:
            return 2
        seats = find_variant(self.room.variant).seats
        return 2 * seats if self.format == Format.DUPLICATE else seats


def bands_refusal(error: prizes.BadBands) -> str:
    """Why a prize bands text is refused, in the reader's language (the pure rules' own words
    are English)."""
    if isinstance(error, prizes.NotABand):
        return _("“%(part)s” is not a band: write them like 1:50, 2:30, 3-4:10.") % {
            "part": error.part
        }
    if isinstance(error, prizes.BandsNotWhole):
        return _("The bands' shares add up to 100 percent.")
    return _("The bands run from rank 1 on, without gaps or overlaps, each at least 1 percent.")


class Schedule(EventSettings):
    """A recurring event: the runner creates each occurrence ``open_hours`` before it starts."""

    class Cadence(models.TextChoices):
        DAILY = "daily", _("Daily")
        WEEKLY = "weekly", _("Weekly")

    cadence = models.CharField(_("repeats"), max_length=8, choices=Cadence.choices)
    weekday = models.PositiveSmallIntegerField(
        _("weekday"),
        null=True,
        blank=True,
        validators=[MaxValueValidator(6)],
        help_text=_("Weekly: 0 Monday … 6 Sunday."),
    )
    time_of_day = models.TimeField(_("starts at (club time)"))
    open_hours = models.PositiveSmallIntegerField(
        _("registration opens (hours before)"), default=24
    )
    is_active = models.BooleanField(_("active"), default=True)
    # the last start the runner created an event for
    created_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("event schedule")
        verbose_name_plural = _("event schedules")

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        super().clean()
        if self.cadence == self.Cadence.WEEKLY and self.weekday is None:
            raise ValidationError({"weekday": _("A weekly schedule names its weekday.")})


class Event(EventSettings):
    class Status(models.TextChoices):
        SCHEDULED = "scheduled", _("Registration open")
        RUNNING = "running", _("Running")
        FINISHED = "finished", pgettext_lazy("events", "Finished")
        CANCELLED = "cancelled", _("Cancelled")

    starts_at = models.DateTimeField(_("starts"), db_index=True)
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.SCHEDULED
    )
    schedule = models.ForeignKey(
        Schedule,
        verbose_name=_("schedule"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="events",
    )
    # the duplicate round being played (0 before the first)
    round = models.PositiveSmallIntegerField(_("round"), default=0)
    # duplicate: when the next round starts (after the break)
    next_round_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    cancel_reason = models.CharField(_("why cancelled"), max_length=200, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("event")
        verbose_name_plural = _("events")
        ordering = ["-starts_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["schedule", "starts_at"],
                condition=Q(schedule__isnull=False),
                name="event_once_per_schedule_start",
            )
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def ends_at(self) -> datetime.datetime:
        """Arena: the end of play (duplicate events end after their last round)."""
        return self.starts_at + datetime.timedelta(minutes=self.minutes)

    @property
    def pairing_stops_at(self) -> datetime.datetime:
        return self.ends_at - datetime.timedelta(seconds=self.stop_pairing_seconds)

    @property
    def is_open(self) -> bool:
        """Players may register: before the start, and during an arena."""
        return self.status == self.Status.SCHEDULED or (
            self.status == self.Status.RUNNING
            and self.format == Format.ARENA
            and timezone.now() < self.pairing_stops_at
        )

    @property
    def ledger_ref(self) -> str:
        return f"event:{self.pk}"


class Entry(models.Model):
    """One entrant; his standing is a cache of his scored games (a recount gives the same)."""

    event = models.ForeignKey(
        Event, verbose_name=_("event"), on_delete=models.CASCADE, related_name="entries"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        on_delete=models.PROTECT,
        related_name="event_entries",
    )
    active = models.BooleanField(_("registered"), default=True)  # False: withdrawn or removed
    removed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    paused = models.BooleanField(_("paused"), default=False)
    # held by the house until the end
    fee_paid = models.PositiveBigIntegerField(_("fee paid"), default=0)
    # the arena pool: since when he waits (None: at a table, paused or before the start)
    waiting_since = models.DateTimeField(null=True, blank=True)
    last_mates = models.JSONField(default=list, blank=True)
    points = models.IntegerField(_("points"), default=0)
    wins = models.PositiveIntegerField(default=0)
    played = models.PositiveIntegerField(_("hands"), default=0)
    streak = models.PositiveIntegerField(default=0)
    # duplicate: matchpoints (as a fraction's text) and the most he could have had
    matchpoints = models.CharField(_("matchpoints"), max_length=32, default="0")
    matchpoints_top = models.CharField(max_length=32, default="0")
    sat_out = models.PositiveSmallIntegerField(default=0)
    rank = models.PositiveIntegerField(_("rank"), null=True, blank=True)
    prize = models.PositiveBigIntegerField(_("prize"), default=0)
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("entry")
        verbose_name_plural = _("entries")
        ordering = ["event", "rank", "joined_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["event", "user"], name="entry_once_per_event"),
        ]

    def __str__(self) -> str:
        return f"{self.user} @ {self.event}"


class Board(models.Model):
    """A duplicate deal: every table of the round plays it from this seed. Its commitment is
    public from the round's start, the seed once the whole round is over."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="boards")
    round = models.PositiveSmallIntegerField()
    number = models.PositiveSmallIntegerField()  # 1.. within the round
    seed = models.CharField(max_length=128)
    commitment = models.CharField(max_length=64)
    scored = models.BooleanField(default=False)  # every table played it; matchpoints given
    # the room's bot level when the board was drawn: every table of the board faces the same
    # bots, whatever an operator changes meanwhile (empty: drawn before boards kept it)
    bot_level = models.CharField(max_length=8, blank=True, default="")

    class Meta:
        ordering = ["event", "round", "number"]
        constraints = [
            models.UniqueConstraint(fields=["event", "round", "number"], name="board_unique"),
        ]


class Game(models.Model):
    """One hand an event dealt: its table, who sat where (None: a bot), and what it gave."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="games")
    hand = models.OneToOneField("games.Hand", on_delete=models.PROTECT, related_name="event_game")
    table = models.OneToOneField("games.Table", on_delete=models.PROTECT, related_name="event_game")
    board = models.ForeignKey(
        Board, on_delete=models.PROTECT, null=True, blank=True, related_name="games"
    )
    round = models.PositiveSmallIntegerField(default=0)
    group = models.PositiveSmallIntegerField(default=0)  # duplicate: the round's table number
    players = models.JSONField(default=list)  # user id or None per seat
    finished_at = models.DateTimeField(null=True, blank=True)
    counted = models.BooleanField(default=False)  # applied to the standings
    void = models.BooleanField(default=False)  # unfinished at the arena's end: never counts
    # per seat: the result (arena: True/False/None won; duplicate: the seat's units as text)
    results = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["event", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["board", "group"],
                condition=Q(board__isnull=False),
                name="game_once_per_board_and_table",
            ),
        ]


class Settlement(models.Model):
    """The one settlement of an event's fees (prizes and the house's cut, or refunds): its
    unique event makes settling exactly-once, checked under the event's row lock."""

    event = models.OneToOneField(
        Event, verbose_name=_("event"), on_delete=models.PROTECT, related_name="settlement"
    )
    fees = models.BigIntegerField(_("fees"))
    house = models.BigIntegerField(_("house's cut"))
    refunded = models.BigIntegerField(_("refunded"), default=0)
    prizes = models.JSONField(_("prizes"), default=dict)  # user id -> beans
    created_at = models.DateTimeField(_("settled"), default=timezone.now)

    class Meta:
        verbose_name = _("settlement")
        verbose_name_plural = _("settlements")

    def __str__(self) -> str:
        return gettext("Settlement of %(event)s") % {"event": self.event}
