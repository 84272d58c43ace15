"""Private tables and seat management between hands (issue #8).

Writes follow games/services/base.py: one transaction, the table row locked first, version
bumped, the push and its notices after commit. The host's rule options, decision seconds and
stakes are stored on the table (``Table.settings``) and only read when the next hand is dealt:
a hand snapshots them (``Hand.options``/``stakes``/``record``, ``Hand.turn_seconds``/
``bid_seconds``), so a change never reaches a hand in play. Seats change only between hands.
The invite codes are games/table/invites.py; the reads (who may watch, the sessions' sheets)
games/reads/private.py.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from games.engine.variants import OptionValue, find_variant
from games.models import InviteMiss, Room, Seat, Table
from games.push import outbox
from games.push.outbox import notify
from games.reads import selectors
from games.services.base import (
    bump,
    create_seats,
    lock_between_hands,
    lock_seated,
    lock_table,
    require_user,
    seat_moves,
    vacate,
    write,
)
from games.services.seating import table_join, table_leave
from games.table import life
from games.table.errors import ActionRejected, ErrorCode
from games.table.invites import new_invite_code, normalise_code

SECONDS_RANGE = (5, 120)

SETTING_LABELS = {
    "options": _("rule options"),
    "turn_seconds": _("turn seconds"),
    "bid_seconds": _("bid seconds"),
    "coefficient": _("coefficient"),
    "allow_bots": _("bots"),
    "allow_spectators": _("spectators"),
}


# --------------------------------------------------------------------------- writes


def invite_table(
    *, code: Any, session_key: str, address: str, table_id: int | None = None
) -> Table | None:
    """The private table ``code`` is the invite code of (only table ``table_id``, when given),
    or None for a wrong code, which is remembered with the browser session and the address it
    came from. Past DDZ_INVITE_TRIES wrong codes in DDZ_INVITE_TRIES_SECONDS from either, every
    code they try is refused (INVITE_TRIES), a right one too: a guesser learns nothing more."""
    now = timezone.now()
    window = datetime.timedelta(seconds=settings.DDZ_INVITE_TRIES_SECONDS)
    address = address[:64]  # the column's width
    misses = selectors.invite_misses(session_key=session_key, address=address, since=now - window)
    if misses >= settings.DDZ_INVITE_TRIES:
        raise ActionRejected.of(
            ErrorCode.INVITE_TRIES,
            detail=f"{misses} wrong codes",
            seconds=settings.DDZ_INVITE_TRIES_SECONDS,
        )
    table = selectors.private_table_of_code(code=normalise_code(code), table_id=table_id)
    if table is None:
        with write():
            InviteMiss.objects.filter(tried_at__lt=now - window).delete()
            InviteMiss.objects.create(session_key=session_key, address=address, tried_at=now)
    return table


def table_create_private(*, room: Room, user: User, coefficient: Any = None) -> Table:
    """Open a private table in ``room`` with ``user`` as host, seated. Operators may set a
    coefficient between the room's and ``room.private_coefficient_max``."""
    user = require_user(user)
    if not room.is_active:
        raise ActionRejected.of(ErrorCode.ROOM_CLOSED)
    if not room.private_tables:
        raise ActionRejected.of(ErrorCode.PRIVATE_NOT_ALLOWED)
    settings: dict[str, Any] = {}
    if coefficient not in (None, ""):
        settings["coefficient"] = _coefficient(room, user, coefficient)
    variant = find_variant(room.variant, **(room.options or {}))
    for _attempt in range(5):
        try:
            with write(), transaction.atomic():
                table = Table.objects.create(
                    room=room,
                    is_private=True,
                    invite_code=new_invite_code(),
                    host=user,
                    settings=settings,
                )
                create_seats(table, variant.seats)
        except ActionRejected as error:  # an invite code collision: draw again
            if error.code is not ErrorCode.CONFLICT:
                raise
            continue
        break
    else:  # pragma: no cover
        raise ActionRejected.of(ErrorCode.CONFLICT)
    table_join(table_id=table.pk, user=user)
    return table


def _coefficient(room: Room, user: User, value: Any) -> int:
    try:
        value = int(value)
    except (TypeError, ValueError):
        raise ActionRejected.of(ErrorCode.BAD_SETTING) from None
    if value == room.coefficient:
        return value
    limit = room.private_coefficient_max
    if not user.is_staff or limit is None or not room.coefficient <= value <= limit:
        raise ActionRejected.of(ErrorCode.BAD_SETTING, detail=f"coefficient {value}")
    return value


def _host_table(table_id: Any, user: Any) -> Table:
    user = require_user(user)
    table = lock_table(table_id)
    assert table is not None
    if not table.is_private or table.host_id != user.pk:
        raise ActionRejected.of(ErrorCode.NOT_HOST)
    return table


def host_option_choices(room: Room) -> dict[str, tuple[OptionValue, ...]]:
    """The rule options a host may set in ``room`` and their values."""
    choices = find_variant(room.variant).option_choices
    return {name: tuple(choices[name]) for name in room.host_options or [] if name in choices}


def _option_value(choices: tuple[OptionValue, ...], raw: object) -> OptionValue:
    for value in choices:
        if raw == value or str(raw) == str(value):
            return value
    raise ActionRejected.of(ErrorCode.BAD_SETTING, detail=f"option value {raw!r}")


def _seconds(raw: Any) -> int:
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise ActionRejected.of(ErrorCode.BAD_SETTING) from None
    if not SECONDS_RANGE[0] <= value <= SECONDS_RANGE[1]:
        raise ActionRejected.of(ErrorCode.BAD_SETTING, detail=f"seconds {value}")
    return value


def table_update_settings(
    *,
    table_id: Any,
    user: User,
    options: dict[str, Any] | None = None,
    turn_seconds: Any = None,
    bid_seconds: Any = None,
    coefficient: Any = None,
    allow_bots: bool | None = None,
    allow_spectators: bool | None = None,
) -> Table:
    """The host's settings. Rule options, seconds and coefficient wait for the next deal (a
    hand in play keeps its snapshot); the bots and spectators switches apply at once."""
    with write():
        table = _host_table(table_id, user)
        room = table.room
        new = dict(table.settings or {})
        if options is not None:
            allowed = host_option_choices(room)
            chosen = dict(new.get("options") or {})
            for name, raw in options.items():
                if name not in allowed:
                    raise ActionRejected.of(ErrorCode.BAD_SETTING, detail=f"option {name}")
                chosen[name] = _option_value(allowed[name], raw)
            new["options"] = chosen
        if turn_seconds not in (None, ""):
            new["turn_seconds"] = _seconds(turn_seconds)
        if bid_seconds not in (None, ""):
            new["bid_seconds"] = _seconds(bid_seconds)
        if coefficient not in (None, ""):
            new["coefficient"] = _coefficient(room, user, coefficient)
        changed = [
            k
            for k in ("options", "turn_seconds", "bid_seconds", "coefficient")
            if (table.settings or {}).get(k) != new.get(k)
        ]
        fields = ["settings"]
        if allow_bots is not None and bool(allow_bots) != table.allow_bots:
            table.allow_bots = bool(allow_bots)
            changed.append("allow_bots")
            fields.append("allow_bots")
        if allow_spectators is not None and bool(allow_spectators) != table.allow_spectators:
            table.allow_spectators = bool(allow_spectators)
            changed.append("allow_spectators")
            fields.append("allow_spectators")
            if not table.allow_spectators:
                _close_watchers_on_commit(table)
        if not changed:
            return table
        table.settings = new
        table.save(update_fields=fields)
        in_hand = selectors.table_active_hand(table=table) is not None
        key = "settings_next" if in_hand else "settings"
        notify(table.pk, key, name=user.username, what=_Joined(changed))
        bump(table, session=True)
    return table


def _close_watchers_on_commit(table: Table) -> None:
    """Close the spectators' sockets (everyone but the seated and the host) after commit."""
    keep = [*Seat.objects.filter(table=table, user__isnull=False).values_list("user_id", flat=True)]
    if table.host_id is not None:
        keep.append(table.host_id)
    outbox.watchers_closed(table.pk, keep=tuple(keep))


class _Joined:
    """Setting labels joined, translated when rendered (per notice language)."""

    def __init__(self, keys: list[str]) -> None:
        self.keys = keys

    def __str__(self) -> str:
        return ", ".join(str(SETTING_LABELS[k]) for k in self.keys)


def table_set_locked(*, table_id: Any, user: User, locked: bool) -> Table:
    """The host locks (nobody new may sit) or unlocks the table."""
    with write():
        table = _host_table(table_id, user)
        if table.locked != bool(locked):
            table.locked = bool(locked)
            table.save(update_fields=["locked"])
            notify(table.pk, "locked" if locked else "unlocked", name=user.username)
            bump(table)
    return table


def table_remove_seat(*, table_id: Any, user: User, seat_index: Any) -> None:
    """The host frees an idle seat between hands: a bot, or a player with no open connection.
    Never during a hand."""
    with write():
        table = _host_table(table_id, user)
        if selectors.table_active_hand(table=table) is not None:
            raise ActionRejected.of(ErrorCode.HAND_IN_PROGRESS)
        seat = next(
            (s for s in selectors.table_seats(table=table) if str(s.index) == str(seat_index)), None
        )
        if seat is None or seat.is_empty or seat.user_id == user.pk:
            raise ActionRejected.of(ErrorCode.BAD_SEAT)
        if seat.user_id is not None and seat.connections > 0:
            raise ActionRejected.of(ErrorCode.SEAT_NOT_IDLE)
        other = seat.user.username if seat.user is not None else str(_("a bot"))
        vacate(seat)
        notify(table.pk, "removed", name=user.username, other=other)
        bump(table)


def _between_hands_seat(table_id: Any, user: Any) -> tuple[Table, list[Seat], Seat]:
    user = require_user(user)
    table, seats = lock_between_hands(table_id, user=user)
    mine = next(s for s in seats if s.user_id == user.pk)
    return table, seats, mine


# a seated player's open sockets: they follow him to another seat
_PRESENCE_FIELDS = ("connections", "connected_at", "disconnected_at")


def seat_move(*, table_id: Any, user: User, seat_index: Any) -> Seat:
    """Move to a free seat between hands."""
    with write():
        table, seats, mine = _between_hands_seat(table_id, user)
        target = next((s for s in seats if str(s.index) == str(seat_index)), None)
        if target is None:
            raise ActionRejected.of(ErrorCode.BAD_SEAT)
        if not target.is_empty:
            raise ActionRejected.of(ErrorCode.SEAT_TAKEN)
        seat_moves(mine, life.Event.LEAVE)
        seat_moves(target, life.Event.SIT)
        # his tabs stay open (no reload): the new seat keeps their count and times
        presence = {field: getattr(mine, field) for field in _PRESENCE_FIELDS}
        vacate(mine)
        target.user = user
        for field, value in presence.items():
            setattr(target, field, value)
        target.save(update_fields=["user", *_PRESENCE_FIELDS])
        bump(table)
    return target


def seat_request_swap(*, table_id: Any, user: User, seat_index: Any) -> None:
    """Ask the player on ``seat_index`` to swap seats (again: withdraw the request)."""
    with write():
        table, seats, mine = _between_hands_seat(table_id, user)
        target = next((s for s in seats if str(s.index) == str(seat_index)), None)
        if target is None or target.user_id is None or target is mine:
            raise ActionRejected.of(ErrorCode.BAD_SEAT)
        mine.swap_with = None if mine.swap_with == target.index else target.index
        mine.save(update_fields=["swap_with"])
        if mine.swap_with is not None:
            notify(table.pk, "swap_asked", name=user.username, other=target.user.username)
        bump(table)


def seat_accept_swap(*, table_id: Any, user: User, seat_index: Any) -> None:
    """Accept the swap asked by the player on ``seat_index``: both change seats."""
    with write():
        table, seats, mine = _between_hands_seat(table_id, user)
        other = next((s for s in seats if str(s.index) == str(seat_index)), None)
        if other is None or other.user_id is None or other.swap_with != mine.index:
            raise ActionRejected.of(ErrorCode.NO_SWAP_REQUEST)
        mine_user, other_user = mine.user, other.user
        fields = _PRESENCE_FIELDS
        mine_state = [getattr(mine, f) for f in fields]
        other_state = [getattr(other, f) for f in fields]
        mine.user = None
        mine.save(update_fields=["user"])
        other.user = mine_user
        other.swap_with = None
        for f, v in zip(fields, mine_state, strict=True):
            setattr(other, f, v)
        other.save()
        mine.user = other_user
        mine.swap_with = None
        for f, v in zip(fields, other_state, strict=True):
            setattr(mine, f, v)
        mine.save()
        assert mine_user is not None and other_user is not None
        notify(table.pk, "swapped", name=other_user.username, other=mine_user.username)
        bump(table)


def seat_stand_after_hand(*, table_id: Any, user: User, enabled: bool = True) -> None:
    """Stand up once the hand in play is over (the player keeps playing it); between hands
    this is simply leaving."""
    with write():
        table, seat = lock_seated(table_id, user)
        in_hand = selectors.table_active_hand(table=table) is not None
        if in_hand:
            seat.sit_out_after_hand = bool(enabled)
            seat.save(update_fields=["sit_out_after_hand"])
            if enabled:
                notify(table.pk, "stand_after", name=user.username)
            bump(table, session=True)
            return
    table_leave(table_id=table_id, user=user)
