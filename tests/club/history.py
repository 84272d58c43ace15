"""Constructed hand histories for the club tests: finished hands with their players, outcome
rows and (optionally) logged timeouts, without playing them."""

from __future__ import annotations

import datetime
import itertools
from typing import Any

from django.utils import timezone

from club.models import HandOutcome
from games.models import Hand, HandAction, HandPlayer, Seat, Table
from tests.games.table_helpers import make_room

_numbers = itertools.count(1)


def make_table(variant: str = "classic3") -> Table:
    room = make_room(variant)
    table = Table.objects.create(room=room)
    return table


def finished_hand(
    table: Table,
    seats: list[Any],
    *,
    landlord: list[int],
    beans: list[int],
    when: datetime.datetime | None = None,
    spring: bool = False,
    timeouts: tuple[int, ...] = (),
    left: tuple[int, ...] = (),
) -> Hand:
    """A finished hand at ``table``: ``seats`` holds users (None for a bot); the landlord side
    are the seats in ``landlord``; ``beans`` per seat (winners > 0)."""
    when = when or timezone.now()
    hand = Hand.objects.create(
        table=table,
        number=next(_numbers),
        variant_key=table.room.variant,
        seed="s",
        commitment="c",
        status=Hand.Status.FINISHED,
        finished_at=when,
    )
    for i, user in enumerate(seats):
        HandPlayer.objects.create(hand=hand, seat=i, user=user, is_bot=user is None)
    landlord_won = beans[landlord[0]] > 0
    for i, user in enumerate(seats):
        if user is None:
            continue
        side = "landlord" if i in landlord else "farmer"
        HandOutcome.objects.create(
            hand=hand,
            user=user,
            seat=i,
            variant_key=hand.variant_key,
            side=side,
            won=(side == "landlord") == landlord_won,
            beans=beans[i],
            score=beans[i] // 10,
            spring=spring and side == "landlord",
            finished_at=when,
        )
    seq = itertools.count(1)
    for seat in timeouts:
        HandAction.objects.create(
            hand=hand, seq=next(seq), seat=seat, payload={"act": "timeout"}, source="timeout"
        )
    for seat in left:
        HandAction.objects.create(
            hand=hand,
            seq=next(seq),
            seat=seat,
            payload={"act": "autoplay", "value": True},
            source="autoplay",
        )
    return hand


def seats_of(table: Table) -> list[Seat]:
    return list(Seat.objects.filter(table=table))
