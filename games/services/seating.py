"""Rooms, tables and seats: who sits where, bots, presence. Every change of a seat goes through
the table's life model (games/table/life.py) and is one locked, versioned write
(games/services/base.py)."""

from __future__ import annotations

import datetime
import logging
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from games.engine.state import AUTOPLAY, Action
from games.engine.variants import find_variant
from games.models import Hand, HandAction, Room, Seat, Table
from games.push import outbox
from games.push.outbox import notify
from games.reads import selectors
from games.services import presence
from games.services.base import (
    bump,
    create_seats,
    lock_between_hands,
    lock_seated,
    lock_table,
    locked_table,
    put_bot,
    require_user,
    seat_moves,
    vacate,
    write,
)
from games.services.hand_run import HandRun, deadline_for
from games.table import life
from games.table.errors import ActionRejected, ErrorCode
from games.table.hooks import hooks
from games.table.invites import check_invite
from games.table.stakes import room_min_balance, table_min_balance

logger = logging.getLogger(__name__)


def room_create(**fields: Any) -> Room:
    """Create a room after full validation (variant options checked by the engine)."""
    room = Room(**fields)
    room.full_clean()
    room.save()
    return room


# --------------------------------------------------------------------------- tables and seats


def table_create(*, room: Room) -> Table:
    """A new empty table in ``room`` with one seat per player of the room's variant."""
    if not room.is_active:
        raise ActionRejected.of(ErrorCode.ROOM_CLOSED)
    variant = find_variant(room.variant, **(room.options or {}))
    with write():
        table = Table.objects.create(room=room)
        create_seats(table, variant.seats)
        outbox.table_moved(table.pk)
    return table


def _check_balance(room: Room, user: User, table: Table | None = None) -> None:
    minimum = table_min_balance(table) if table is not None else room_min_balance(room=room)
    beans = User.objects.filter(pk=user.pk).values_list("beans", flat=True).first() or 0
    if beans < minimum:
        raise ActionRejected.of(
            ErrorCode.INSUFFICIENT_BALANCE,
            detail=f"{user.username} has {beans} beans, needs {minimum}",
            minimum=minimum,
        )


def table_join(
    *, table_id: int, user: User, seat_index: int | None = None, invite_code: str | None = None
) -> Seat:
    """Seat ``user`` (the given seat or the lowest free one). Refused below the room's minimum
    balance, at a full table, or on a taken seat. Joining again returns the user's seat.
    A private table seats its host and holders of its invite code only, and nobody while
    locked."""
    user = require_user(user)
    with write():
        table = lock_table(table_id)
        assert table is not None
        seats = selectors.table_seats(table=table)
        mine = next((s for s in seats if s.user_id == user.pk), None)
        if mine is not None:
            return mine
        if not table.room.is_active:
            raise ActionRejected.of(ErrorCode.ROOM_CLOSED)
        if table.managed:
            raise ActionRejected.of(ErrorCode.TABLE_LOCKED)
        if not hooks.user_may_sit(user=user):
            raise ActionRejected.of(ErrorCode.SUSPENDED)
        _check_not_seated_elsewhere(table.room_id, user)
        if table.is_private:
            check_invite(table, user, invite_code)
        _check_balance(table.room, user, table)
        seat = _free_seat(seats, seat_index)
        seat_moves(seat, life.Event.SIT)
        vacate(seat, save=False)
        seat.user = user
        # his tabs open at the table (as a spectator until now) count at once
        seat.connections = selectors.user_live_sockets(
            table_id=table.pk,
            user_id=user.pk,
            now=timezone.now(),
            lease_seconds=presence.lease_seconds(),
        )
        seat.save()
        notify(table.pk, "joined", name=user.username)  # before the push: the regions come last
        bump(table)
    return seat


def _seat_in_room(room_id: int, user: User) -> Seat | None:
    return Seat.objects.filter(room_id=room_id, user=user).select_related("table").first()


def _check_not_seated_elsewhere(room_id: int, user: User) -> None:
    """One seat per user and room (the database refuses a second one too)."""
    seat = _seat_in_room(room_id, user)
    if seat is not None:
        raise ActionRejected.of(ErrorCode.SEATED_ELSEWHERE, table=seat.table_id)


# refusals of a table_join that another request overtook (the seat, the table, or his own seat)
_LOST_RACE = (
    ErrorCode.TABLE_FULL,
    ErrorCode.SEAT_TAKEN,
    ErrorCode.CONFLICT,
    ErrorCode.SEATED_ELSEWHERE,
)


def table_quick_join(*, room: Room, user: User) -> Table:
    """Find a waiting table of ``room`` with a free seat (fullest first; in a regrouping room
    none with a recent tablemate) and sit down, or open a new table. Idempotent per user and
    room, under concurrency too: a user who holds a seat in the room goes back to its table."""
    user = require_user(user)
    if not room.is_active:
        raise ActionRejected.of(ErrorCode.ROOM_CLOSED)
    already = _seat_in_room(room.pk, user)
    if already is not None and not already.sit_out_after_hand:
        return already.table
    if not hooks.user_may_sit(user=user):
        raise ActionRejected.of(ErrorCode.SUSPENDED)
    _check_balance(room, user)
    avoid: set[int] = set()
    if room.regroup_between_hands:
        avoid = selectors.user_recent_tablemates(user=user, hands=settings.DDZ_REGROUP_MEMORY_HANDS)
    try:
        for table in selectors.table_list_joinable(room=room).filter(is_private=False)[:50]:
            if avoid and Seat.objects.filter(table=table, user_id__in=avoid).exists():
                continue
            try:
                table_join(table_id=table.pk, user=user)
            except ActionRejected as error:
                if error.code in _LOST_RACE:
                    _raise_if_seated(room, user)
                    continue  # somebody was quicker
                raise
            return table
        try:
            with write():  # a new table only together with his seat at it
                table = table_create(room=room)
                table_join(table_id=table.pk, user=user)
        except ActionRejected:
            _raise_if_seated(room, user)
            raise
        return table
    except _AlreadySeated as seated:
        return seated.table


class _AlreadySeated(Exception):
    def __init__(self, table: Table) -> None:
        self.table = table


def _raise_if_seated(room: Room, user: User) -> None:
    """A concurrent quick-join of the same user won the race: go where it sat him."""
    seat = _seat_in_room(room.pk, user)
    if seat is not None:
        raise _AlreadySeated(seat.table)


def table_leave(*, table_id: int, user: User) -> None:
    """Stand up. Between hands the seat is freed at once; during a hand the seat goes to 托管
    and is freed when the hand ends."""
    with write():
        table, seat = lock_seated(table_id, user)
        hand = selectors.table_active_hand(table=table)
        if hand is not None and seat.sit_out_after_hand:
            return  # he is leaving already: the seat is freed when the hand ends
        seat_moves(seat, life.leave_event(in_hand=hand is not None))
        notify(table.pk, "left", name=user.username)
        if hand is None:
            vacate(seat)
        else:
            seat.sit_out_after_hand = True
            seat.save(update_fields=["sit_out_after_hand"])
            state = selectors.hand_state(hand)
            if not state.autoplay[seat.index]:
                run = HandRun(table=table, hand=hand, state=state, now=timezone.now())
                run.apply(Action(seat.index, AUTOPLAY, True), HandAction.Source.AUTOPLAY)
                run.finish()
        bump(table)


def table_add_bot(
    *, table_id: int, seat_index: int | None = None, user: User | None = None
) -> Seat:
    """Put a house bot on a free seat (between hands). With ``user``, only a seated player may."""
    with write():
        table, seats = lock_between_hands(table_id, user=user)
        if table.is_private and not table.allow_bots:
            raise ActionRejected.of(ErrorCode.BOTS_NOT_ALLOWED)
        seat = _free_seat(seats, seat_index)
        seat_moves(seat, life.Event.ADD_BOT)
        put_bot(seat)
        bump(table)
    return seat


def table_fill_with_bots(*, table_id: int, user: User | None = None) -> int:
    """Bots on every free seat; returns how many were added."""
    added = 0
    while True:
        try:
            table_add_bot(table_id=table_id, user=user)
        except ActionRejected as error:
            if error.code == ErrorCode.TABLE_FULL:
                return added
            raise
        added += 1


def bot_fill_seconds() -> int:
    return settings.DDZ_BOT_FILL_SECONDS


def table_fill_idle(*, now: datetime.datetime | None = None) -> int:
    """House bots on the free seats of every waiting table where a player has waited
    ``DDZ_BOT_FILL_SECONDS`` (0 = never) with nothing changing; returns the tables filled."""
    seconds = bot_fill_seconds()
    if seconds <= 0:
        return 0
    now = now or timezone.now()
    cutoff = now - datetime.timedelta(seconds=seconds)
    candidates = list(
        Table.objects.filter(
            status=Table.Status.WAITING, changed_at__lte=cutoff, room__is_active=True
        )
        .exclude(is_private=True, allow_bots=False)
        .filter(seats__user__isnull=False)
        .filter(pk__in=Seat.objects.filter(user__isnull=True, is_bot=False).values("table_id"))
        .values_list("pk", flat=True)
        .distinct()[:100]
    )
    filled = 0
    for table_id in candidates:
        try:
            with write():
                table = lock_table(table_id)
                assert table is not None
                if table.changed_at > cutoff or selectors.table_active_hand(table=table):
                    continue
                seats = selectors.table_seats(table=table)
                if not any(s.user_id for s in seats):
                    continue
                empty = [s for s in seats if s.is_empty]
                for seat in empty:
                    put_bot(seat)
                if empty:
                    bump(table)
                    filled += 1
        except ActionRejected as error:
            logger.info("bot fill of table %s: %s", table_id, error)
    return filled


def table_remove_bot(*, table_id: int, seat_index: int, user: User | None = None) -> None:
    """Take a bot off its seat (between hands)."""
    with write():
        table, seats = lock_between_hands(table_id, user=user)
        seat = next((s for s in seats if s.index == _int_or(seat_index, -1)), None)
        if seat is None or not seat.is_bot:
            raise ActionRejected.of(ErrorCode.BAD_SEAT)
        seat_moves(seat, life.Event.REMOVE_BOT)
        vacate(seat)
        bump(table)


def _free_seat(seats: list[Seat], seat_index: Any) -> Seat:
    """The seat asked for, which must be empty, or else the first empty one."""
    if seat_index is None:
        seat = next((s for s in seats if s.is_empty), None)
        if seat is None:
            raise ActionRejected.of(ErrorCode.TABLE_FULL)
        return seat
    seat = next((s for s in seats if s.index == _int_or(seat_index, -1)), None)
    if seat is None:
        raise ActionRejected.of(ErrorCode.BAD_SEAT)
    if not seat.is_empty:
        raise ActionRejected.of(ErrorCode.SEAT_TAKEN)
    return seat


def _int_or(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


# --------------------------------------------------------------------------- presence


@dataclass(frozen=True)
class Presence:
    seated: bool  # the user holds a seat at the table
    pushed: bool  # his seat went on or off line: every audience gets the new state


def seat_connect(*, table_id: int, user: User, channel_name: str | None = None) -> Presence:
    """A websocket of ``user`` opened at the table: its lease is recorded
    (games.services.presence) and, when he is seated, his seat is on line (cancels a pending
    disconnect grace)."""
    return _presence(table_id=table_id, user=user, channel_name=channel_name, opened=True)


def seat_disconnect(*, table_id: int, user: User, channel_name: str | None = None) -> Presence:
    """A websocket of ``user`` closed; with none of his left at the table, the grace starts."""
    return _presence(table_id=table_id, user=user, channel_name=channel_name, opened=False)


def _presence(*, table_id: int, user: User, channel_name: str | None, opened: bool) -> Presence:
    if user is None or not getattr(user, "is_authenticated", False):
        return Presence(seated=False, pushed=False)
    with write():
        table = lock_table(table_id)
        assert table is not None
        now = timezone.now()
        if opened:
            presence.lease_open(table=table, user_id=user.pk, channel_name=channel_name, now=now)
        else:
            presence.lease_close(table=table, user_id=user.pk, channel_name=channel_name)
        seat = Seat.objects.filter(table=table, user=user).first()
        if seat is None:
            return Presence(seated=False, pushed=False)
        seat_moves(seat, life.Event.CONNECT if opened else life.Event.DISCONNECT)
        pushed = presence.seat_recount(seat=seat, now=now, at=now)
        if pushed:
            _presence_changed(table)
    return Presence(seated=True, pushed=pushed)


def table_expire_leases(*, table_id: int, now: datetime.datetime) -> int:
    """The sockets of ``table`` whose process stopped renewing their leases are gone: their
    seats are recounted, and those left with no live socket go offline as of the moment the
    lease expired (their grace runs from then), and after commit the club hears whose sockets
    went (its spectator count). Returns how many seats the table now shows differently."""
    with write():
        skip = transaction.get_connection().features.has_select_for_update_skip_locked
        table = locked_table(pk=table_id, skip_locked=skip)
        if table is None:  # gone, or another writer holds it: the next sweep comes back
            return 0
        expired = presence.leases_expire(table=table, now=now)
        if expired:
            users = list(expired)
            transaction.on_commit(lambda: hooks.leases_expired(table_id=table_id, user_ids=users))
        changed = 0
        for seat in Seat.objects.filter(table=table, user_id__in=expired):
            changed += presence.seat_recount(seat=seat, now=now, at=expired[seat.user_id])
        if changed:
            _presence_changed(table)
    return changed


def _presence_changed(table: Table) -> None:
    """A seat went on or off line: the hand's deadline follows (the grace starts or ends) and
    every audience gets the new state."""
    hand = selectors.table_active_hand(table=table)
    if hand is not None:
        state = selectors.hand_state(hand)
        deadline = deadline_for(table, hand, state, selectors.table_seats(table=table))
        if deadline != hand.deadline_at:
            hand.deadline_at = deadline
            Hand.objects.filter(pk=hand.pk).update(deadline_at=deadline)
    # after a restart every tab of the club reconnects at once: one push per table for the
    # seats that came back while it waited, not one per seat
    bump(table, presence=True)
