"""Rooms: where a variant is played at given stakes (docs/rules.md §7 room settings).

Models stay thin; validation is in ``Room.clean`` (called by the admin and by
``games.services.room_create``) and computations in games/services/ and games/reads/selectors.py.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.engine.beans import RoomStakes
from games.engine.bot import BotLevel
from games.engine.errors import EngineError
from games.engine.variants import VARIANTS, find_variant
from site_kit.append_only import AppendOnlyError, AppendOnlyModel

# Translatable display names; the engine's own names are the Chinese ones.
VARIANT_LABELS = {
    "qq5": _("Five-player Dou Dizhu"),
    "new5": _("New five-player Dou Dizhu, three decks"),
    "classic3": _("Classic three-player Dou Dizhu"),
    "fenzhou5": _("Fenzhou five-player Dou Dizhu"),
}


def variant_choices() -> list[tuple[str, str]]:
    return [(key, VARIANT_LABELS.get(key, cls.name)) for key, cls in VARIANTS.items()]


# How the house bot plays (issue #36): the room's setting, shown next to each bot's name.
BOT_LEVEL_LABELS = {
    BotLevel.EASY: _("Easy"),
    BotLevel.NORMAL: _("Normal"),
    BotLevel.STRONG: _("Strong"),
}


def bot_level_choices() -> list[tuple[str, str]]:
    return [(level.value, BOT_LEVEL_LABELS[level]) for level in BotLevel]


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
    step_min_seconds = models.PositiveSmallIntegerField(
        _("shortest simultaneous step"),
        default=2,
        help_text=_(
            "Seconds a simultaneous step (qq5 reveal and double, new5 grab) stays open at "
            "least, so that its length does not tell how many seats it asked."
        ),
    )
    bot_delay_ms = models.PositiveIntegerField(
        _("bots' reply delay (ms)"),
        default=600,
        validators=[MaxValueValidator(10_000)],
        help_text=_(
            "Milliseconds a bot waits before each of its moves, so that a table with bots "
            "plays at a human pace."
        ),
    )
    bot_level = models.CharField(
        _("bot level"),
        max_length=8,
        choices=bot_level_choices,
        default=BotLevel.NORMAL.value,
        help_text=_(
            "How the house bots of this room play: easy (the planner, with a share of random "
            "plays), normal (the planner) or strong (the planner with a search). Players see "
            "it next to each bot's name."
        ),
    )
    options = models.JSONField(
        _("rule options"),
        default=dict,
        blank=True,
        help_text=_("Variant rule options by name; empty for the defaults."),
    )
    regroup_between_hands = models.BooleanField(
        _("regroup between hands"),
        default=False,
        help_text=_("Unseat everyone after each hand; quick-join then avoids recent tablemates."),
    )
    # Private tables (issue #8): which rule options a host may choose, and how far an operator
    # hosting a private table may raise the stakes (empty: the room's coefficient only).
    private_tables = models.BooleanField(
        _("private tables allowed"),
        default=True,
        help_text=_("Members may open private tables in this room."),
    )
    host_options = models.JSONField(
        _("host-settable options"),
        default=list,
        blank=True,
        help_text=_("Names of the rule options the host of a private table may change."),
    )
    private_coefficient_max = models.PositiveIntegerField(
        _("largest private coefficient"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text=_("Operators may host private tables up to this coefficient; empty for none."),
    )
    bots_take_absent_seats = models.BooleanField(
        _("bots take absent players' seats"),
        default=False,
        help_text=_(
            "A player away past the disconnect grace is stood up before the next deal; "
            "on: a house bot takes his seat, off: the seat waits for a player."
        ),
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
        if not isinstance(self.host_options, list) or any(
            name not in find_variant(self.variant).option_choices for name in self.host_options
        ):
            raise ValidationError(
                {"host_options": _("List option names of this room's variant only.")}
            )

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
    def computed_min_balance(self) -> int:
        """The largest loss one seat can suffer in this room (docs/rules.md §7 ``min_balance``)."""
        variant = find_variant(self.variant, **(self.options or {}))
        units = variant.max_loss_units(max_multiplier=self.max_multiplier)
        return units * self.base_score * self.coefficient + self.house_take

    @property
    def effective_min_balance(self) -> int:
        """The room's override when set, else the computed value."""
        return self.min_balance if self.min_balance is not None else self.computed_min_balance


# --------------------------------------------------------------------------- real-time tables
# Tables, seats, hands and their append-only action log (issue #5). The live hand state is
# never stored in process memory: it is the replay of ``Hand.record``
# (games.reads.selectors.hand_state).


class Table(models.Model):
    class Status(models.TextChoices):
        WAITING = "waiting", _("Waiting")
        PLAYING = "playing", _("Playing")

    room = models.ForeignKey(
        Room, verbose_name=_("room"), on_delete=models.PROTECT, related_name="tables"
    )
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.WAITING
    )
    # Bumped on every change a screen shows (seats, presence, hands), under the row lock.
    version = models.PositiveIntegerField(_("version"), default=0)
    hand_number = models.PositiveIntegerField(_("hands dealt"), default=0)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    # Last change of seats or hands: a waiting table idle for DDZ_BOT_FILL_SECONDS gets bots.
    changed_at = models.DateTimeField(_("changed"), default=timezone.now, db_index=True)
    # Private tables (issue #8): seated only with the invite code; hidden from the lobby.
    is_private = models.BooleanField(_("private"), default=False)
    invite_code = models.CharField(
        _("invite code"), max_length=16, unique=True, null=True, blank=True
    )
    host = models.ForeignKey(
        "accounts.User",
        verbose_name=_("host"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="hosted_tables",
    )
    locked = models.BooleanField(_("locked"), default=False)
    allow_bots = models.BooleanField(_("bots may fill seats"), default=True)
    allow_spectators = models.BooleanField(_("spectators may watch"), default=True)
    # The host's settings for the NEXT deal: {"options": {...}, "turn_seconds": n,
    # "bid_seconds": n, "coefficient": n}. A hand snapshots them when dealt (Hand.options,
    # Hand.stakes, Hand.turn_seconds/bid_seconds), so a change never touches a hand in play.
    # "bot_level", a managed table's pinned level (never a host's: the house pays a losing
    # bot's debt), is read at each bot move instead (games.table.stakes.table_bot_level).
    settings = models.JSONField(_("table settings"), default=dict, blank=True)
    # Opened by another app for one hand (games.services.table_deal_for): nobody joins it and
    # the lobby does not list it, its hand moves no beans, its seats are freed when it ends.
    managed = models.BooleanField(_("managed"), default=False)

    class Meta:
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        ordering = ["room", "id"]
        indexes = [models.Index(fields=["room", "status"], name="table_room_status")]

    def __str__(self) -> str:
        return f"{self.room} #{self.pk}"


class Seat(models.Model):
    table = models.ForeignKey(
        Table, verbose_name=_("table"), on_delete=models.CASCADE, related_name="seats"
    )
    # the table's room, kept on the seat so the database itself refuses a second seat of one
    # user in one room (concurrent quick-joins)
    room = models.ForeignKey(
        Room, verbose_name=_("room"), on_delete=models.PROTECT, related_name="+"
    )
    index = models.PositiveSmallIntegerField(_("seat"))
    user = models.ForeignKey(
        "accounts.User",
        verbose_name=_("player"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="seats",
    )
    is_bot = models.BooleanField(_("bot"), default=False)
    # Asks the player on that seat index to swap seats (between hands, issue #8).
    swap_with = models.PositiveSmallIntegerField(_("asks to swap with seat"), null=True, blank=True)
    # 托管: the server plays this seat (engine autoplay) until the player takes it back.
    autoplay = models.BooleanField(_("auto-play"), default=False)
    connections = models.PositiveSmallIntegerField(_("open connections"), default=0)
    connected_at = models.DateTimeField(_("connected"), null=True, blank=True)
    disconnected_at = models.DateTimeField(_("disconnected"), null=True, blank=True)
    # Left during a hand: the seat is auto-played and freed when the hand ends.
    sit_out_after_hand = models.BooleanField(_("leaves after the hand"), default=False)

    class Meta:
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        ordering = ["table", "index"]
        constraints = [
            models.UniqueConstraint(fields=["table", "index"], name="seat_unique_index"),
            models.UniqueConstraint(
                fields=["table", "user"],
                condition=Q(user__isnull=False),
                name="seat_one_per_user_and_table",
            ),
            models.UniqueConstraint(
                fields=["room", "user"],
                condition=Q(user__isnull=False),
                name="seat_one_per_user_and_room",
            ),
            models.CheckConstraint(
                condition=Q(is_bot=False) | Q(user__isnull=True), name="seat_bot_has_no_user"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table} seat {self.index}"

    @property
    def is_empty(self) -> bool:
        return self.user_id is None and not self.is_bot


class SocketLease(models.Model):
    """One open table socket, held by the served process that accepted it. The process renews
    its leases on a timer (games.services.presence); a lease not renewed for
    DDZ_SOCKET_LEASE_SECONDS belongs to a process that stopped or died, and is swept. A seat's
    ``connections`` is the count of its user's leases at the table, recomputed under the table
    lock."""

    table = models.ForeignKey(
        Table, verbose_name=_("table"), on_delete=models.CASCADE, related_name="socket_leases"
    )
    user = models.ForeignKey(
        "accounts.User",
        verbose_name=_("user"),
        on_delete=models.CASCADE,
        related_name="socket_leases",
    )
    process = models.CharField(_("process"), max_length=32, db_index=True)
    # channels' names are ASCII and under 100 characters
    channel_name = models.CharField(_("channel"), max_length=100, unique=True)
    renewed_at = models.DateTimeField(_("renewed"), db_index=True)

    class Meta:
        verbose_name = _("socket lease")
        verbose_name_plural = _("socket leases")
        indexes = [models.Index(fields=["table", "user"], name="socketlease_table_user")]

    def __str__(self) -> str:
        return f"{self.channel_name} ({self.process})"


class InviteMiss(models.Model):
    """A wrong invite code someone tried (issue #31): the throttle on guessing them
    (games/services/private.py) counts these by browser session and by address, on every
    process alike. Kept DDZ_INVITE_TRIES_SECONDS."""

    session_key = models.CharField(_("browser session"), max_length=40, blank=True, db_index=True)
    address = models.CharField(_("IP address"), max_length=64, blank=True, db_index=True)
    tried_at = models.DateTimeField(_("time"), db_index=True)

    class Meta:
        verbose_name = _("wrong invite code")
        verbose_name_plural = _("wrong invite codes")


class TableSession(models.Model):
    """A run of hands at one table with the same people (the night's score sheet)."""

    table = models.ForeignKey(
        Table, verbose_name=_("table"), on_delete=models.PROTECT, related_name="sessions"
    )
    number = models.PositiveIntegerField(_("number"))
    # Sorted user ids of the humans seated when the session began.
    player_ids = models.JSONField(_("players"), default=list)
    started_at = models.DateTimeField(_("started"), default=timezone.now)
    last_hand_at = models.DateTimeField(_("last hand"), default=timezone.now)

    class Meta:
        verbose_name = _("table session")
        verbose_name_plural = _("table sessions")
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="session_unique_number"),
        ]

    def __str__(self) -> str:
        return f"{self.table} session {self.number}"


class Hand(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active", _("Active")
        FINISHED = "finished", _("Finished")

    table = models.ForeignKey(
        Table, verbose_name=_("table"), on_delete=models.PROTECT, related_name="hands"
    )
    number = models.PositiveIntegerField(_("number"))
    # 0 for a hand's deal; n for its n-th deal again after everyone passed (classic3): one hand
    # of the players' history, its re-deals inside
    redeal = models.PositiveSmallIntegerField(_("re-deal"), default=0)
    variant_key = models.CharField(_("variant"), max_length=16)
    options = models.JSONField(_("rule options"), default=dict, blank=True)
    stakes = models.JSONField(_("stakes"), default=dict)
    # Secret until the hand is over; ``commitment`` (its SHA-256) is public from the deal on.
    seed = models.CharField(_("seed"), max_length=128)
    commitment = models.CharField(_("seed commitment"), max_length=64)
    record = models.JSONField(_("hand record"), default=dict)  # docs/rules.md §8.4, the snapshot
    version = models.PositiveIntegerField(_("version"), default=0)  # = number of actions
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.ACTIVE
    )
    # When the current decision (turn or simultaneous step) began, and the next deadline.
    decision_started_at = models.DateTimeField(_("decision started"), null=True, blank=True)
    deadline_at = models.DateTimeField(_("deadline"), null=True, blank=True, db_index=True)
    result = models.JSONField(_("result"), null=True, blank=True)
    settled = models.BooleanField(_("settled"), default=False)
    # Snapshot of the decision seconds at the deal (empty: the room's), and the session.
    turn_seconds = models.PositiveSmallIntegerField(_("turn seconds"), null=True, blank=True)
    bid_seconds = models.PositiveSmallIntegerField(_("bid seconds"), null=True, blank=True)
    session = models.ForeignKey(
        TableSession,
        verbose_name=_("session"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="hands",
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        verbose_name = _("hand")
        verbose_name_plural = _("hands")
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["table", "number", "redeal"], name="hand_unique_number"
            ),
            models.UniqueConstraint(
                fields=["table"], condition=Q(status="active"), name="hand_one_active_per_table"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table} hand {self.number}"

    @property
    def is_finished(self) -> bool:
        return self.status == self.Status.FINISHED

    @property
    def revealed_seed(self) -> str | None:
        """The seed, only once the hand is over (the commitment is always public)."""
        return self.seed if self.is_finished else None


class HandPlayer(models.Model):
    """Who held each seat of a hand (the table's seats change between hands)."""

    hand = models.ForeignKey(
        Hand, verbose_name=_("hand"), on_delete=models.CASCADE, related_name="players"
    )
    seat = models.PositiveSmallIntegerField(_("seat"))
    user = models.ForeignKey(
        "accounts.User",
        verbose_name=_("player"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="hand_seats",
    )
    is_bot = models.BooleanField(_("bot"), default=False)

    class Meta:
        verbose_name = _("hand player")
        verbose_name_plural = _("hand players")
        ordering = ["hand", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["hand", "seat"], name="handplayer_unique_seat"),
        ]


class HandActionIsAppendOnly(AppendOnlyError):
    """Raised on any attempt to change or remove a logged hand action."""


class HandAction(AppendOnlyModel):
    """One applied action (docs/rules.md §8.4 JSON) of a hand. Append-only, like the ledger: the
    model, its queryset and database triggers (migration 0003) refuse UPDATE and DELETE."""

    class Source(models.TextChoices):
        HUMAN = "human", _("Player")
        TIMEOUT = "timeout", _("Timeout")
        AUTOPLAY = "autoplay", _("Auto-play")
        BOT = "bot", _("Bot")
        SERVER = "server", _("Server")

    hand = models.ForeignKey(
        Hand, verbose_name=_("hand"), on_delete=models.PROTECT, related_name="actions"
    )
    seq = models.PositiveIntegerField(_("sequence"))  # 1-based; equals the hand's version after it
    seat = models.PositiveSmallIntegerField(_("seat"))
    phase = models.CharField(_("phase"), max_length=16, blank=True, default="")  # before it
    payload = models.JSONField(_("action"))
    source = models.CharField(_("source"), max_length=16, choices=Source.choices)
    created_at = models.DateTimeField(_("time"), default=timezone.now)

    append_only_error = HandActionIsAppendOnly

    class Meta:
        verbose_name = _("hand action")
        verbose_name_plural = _("hand actions")
        ordering = ["hand", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["hand", "seq"], name="handaction_unique_seq"),
        ]

    def __str__(self) -> str:
        return f"{self.hand} #{self.seq} {self.payload}"


class ServerProcess(models.Model):
    """A served process as its last heartbeat left it (every DDZ_SOCKET_RENEW_SECONDS): for the
    operators' live view in the admin. Written only by the process itself."""

    process = models.CharField(_("process"), max_length=32, unique=True)
    host = models.CharField(_("host"), max_length=255)
    pid = models.PositiveIntegerField(_("process id"))
    started_at = models.DateTimeField(_("started"))
    seen_at = models.DateTimeField(_("seen"), db_index=True)
    sockets = models.PositiveIntegerField(_("sockets"), default=0)
    # its deadline runner's last round and how late its most overdue hand was; None: no runner
    runner_round_at = models.DateTimeField(_("runner's last round"), null=True, blank=True)
    runner_lag_seconds = models.FloatField(_("runner's lag"), null=True, blank=True)
    # its last error log records (scrubbed): [{"at", "logger", "message"}]
    errors = models.JSONField(_("last errors"), default=list, blank=True)

    class Meta:
        verbose_name = _("server process")
        verbose_name_plural = _("server processes")

    def __str__(self) -> str:
        return f"{self.host}:{self.pid} ({self.process})"
