"""Dealing (issue #5): a new hand at a table, absent and broke players stood up first, and a
managed table's one hand (competitions). The deal itself and the hand's automatic opening are
games/services/hand_run.py's ``deal_hand``."""

from __future__ import annotations

import datetime
from collections.abc import Sequence

from django.utils import timezone

from accounts.models import User
from games.engine.bot import BotLevel
from games.engine.variants import find_variant
from games.models import Hand, Room, Seat, Table
from games.push.outbox import notify
from games.reads import selectors
from games.services.base import (
    bump,
    create_seats,
    lock_between_hands,
    put_bot,
    seat_moves,
    vacate,
    write,
)
from games.services.hand_run import deal_hand
from games.table import life
from games.table.errors import ActionRejected, ErrorCode
from games.table.stakes import disconnect_grace, table_min_balance


def hand_start(*, table_id: int, user: User | None = None) -> Hand:
    """Deal a new hand (with ``user``: only a seated player may). Before the deal, players below
    the table's minimum balance and players away past the disconnect grace are stood up, each
    with a notice (a bot takes an absent player's seat where the room says so); the deal then
    goes ahead only at a filled table with a player present (games/table/life.py). Stand-ups
    commit even when the deal is then refused."""
    now = timezone.now()
    with write():
        table, seats = lock_between_hands(table_id, user=user)
        refusal = _stand_up_before_deal(table, seats, user=user, now=now)
        if refusal is None:
            hand = deal_hand(table, seats, now=now)
            # the session region too: seat moves and swaps are offered between hands only
            bump(table, session=True)
            return hand
        bump(table)
    raise refusal


def _stand_up_before_deal(
    table: Table, seats: list[Seat], *, user: User | None, now: datetime.datetime
) -> ActionRejected | None:
    """Stand up who may not be dealt in, and say why the deal cannot go ahead (None: deal).
    The player asking for the deal is at the table, socket or not."""
    minimum = table_min_balance(table)
    broke = [s for s in seats if s.user_id is not None and s.user.beans < minimum]
    broke_names = ", ".join(s.user.username for s in broke)
    for seat in broke:
        notify(table.pk, "stood_up_balance", name=seat.user.username, minimum=minimum)
        vacate(seat)
    if user is not None:  # the player asking is here, whatever his sockets say
        for seat in seats:
            if seat.user_id == user.pk and seat.connections == 0:
                seat.disconnected_at = None
    plan = life.deal_plan(
        seats,
        now=now,
        grace=disconnect_grace(),
        bots_take_absent_seats=table.room.bots_take_absent_seats and table.allow_bots,
    )
    absent = [s for s in seats if s.index in plan.stand_up]
    absent_names = ", ".join(s.user.username for s in absent)
    for seat in absent:
        notify(table.pk, "stood_up_absent", name=seat.user.username)
        if seat.index in plan.bots:
            notify(table.pk, "bot_took_seat", name=seat.user.username)
            put_bot(seat)
        else:
            vacate(seat)
    if broke:
        return ActionRejected.of(
            ErrorCode.STOOD_UP_BALANCE,
            detail="stood up below the minimum: " + broke_names,
            names=broke_names,
            minimum=minimum,
        )
    if plan.deal:
        return None
    if absent and len(plan.bots) < len(absent):
        return ActionRejected.of(
            ErrorCode.STOOD_UP_ABSENT, detail="stood up away: " + absent_names, names=absent_names
        )
    if plan.why == "nobody_here":
        return ActionRejected.of(ErrorCode.NOBODY_HERE)
    return ActionRejected.of(ErrorCode.SEATS_NOT_FILLED)


def table_deal_for(
    *,
    room: Room,
    players: Sequence[User | None],
    seed: str | None = None,
    bot_level: BotLevel | None = None,
) -> Hand:
    """Open a managed table in ``room`` with ``players`` on seats 0.. (None: a house bot) and
    deal its one hand at once; from ``seed`` when given, so that every table given it plays the
    same deal under the same commitment. Its bots play at ``bot_level`` (the room's when None),
    pinned for the hand: every table given one seed and level faces the same bots. Nobody else
    sits at a managed table, its hand moves no beans and is never dealt again, and its seats are
    freed when the hand ends (CONFLICT when a player holds a seat elsewhere in the room)."""
    variant = find_variant(room.variant, **(room.options or {}))
    if len(players) != variant.seats:
        raise ValueError(f"{variant.key} seats {variant.seats} players")
    now = timezone.now()
    with write():
        level = bot_level or BotLevel(room.bot_level)
        table = Table.objects.create(
            room=room, managed=True, changed_at=now, settings={"bot_level": level.value}
        )
        create_seats(table, variant.seats)
        for seat, user in zip(selectors.table_seats(table=table), players, strict=True):
            seat_moves(seat, life.Event.SIT if user is not None else life.Event.ADD_BOT)
            if user is None:
                put_bot(seat)
            else:
                seat.user = user
                seat.save(update_fields=["user"])
        hand = deal_hand(table, selectors.table_seats(table=table), now=now, seed=seed)
        bump(table)
    return hand
