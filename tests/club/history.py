"""Constructed hand histories for the club tests: finished hands with their players, outcome
rows and (optionally) logged timeouts, without playing them."""

from __future__ import annotations

import datetime
import itertools
from typing import Any

from django.utils import timezone

from club.models import HandOutcome
from games.models import Hand, HandAction, HandPlayer, Seat, Table
from tests.support.tables import make_room

_numbers = itertools.count(1)


def make_table(variant: str = "classic3") -> Table:
    room = make_room(variant)
    table = Table.objects.create(room=room)
    return table


def _finished(table: Table, seats: list[Any], *, when: datetime.datetime, **fields: Any) -> Hand:
    """A finished hand of ``table`` with its players (None for a bot)."""
    hand = Hand.objects.create(
        table=table,
        number=next(_numbers),
        variant_key=table.room.variant,
        seed="s",
        commitment="c",
        status=Hand.Status.FINISHED,
        finished_at=when,
        **fields,
    )
    for i, user in enumerate(seats):
        HandPlayer.objects.create(hand=hand, seat=i, user=user, is_bot=user is None)
    return hand


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
    hand = _finished(table, seats, when=when)
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


def settled_hand(
    table: Table,
    seats: list[Any],
    *,
    landlord: list[int],
    landlord_won: bool,
    undecided: tuple[int, ...] = (),
    self_autoplay: tuple[int, ...] = (),
    when: datetime.datetime | None = None,
) -> Hand:
    """A finished hand with the result JSON a played one has (sides, winner, beans, scores)
    and an action log: every human seat made a play himself, except those in ``undecided``
    (the server timed them out and played them, 托管) and those in ``self_autoplay`` (who
    handed the seat to 托管 themselves first). Nothing of it is recorded by the club yet."""
    n = len(seats)
    won = 1 if landlord_won else -1
    beans = [won * (10 if i in landlord else -10) for i in range(n)]
    hand = _finished(
        table,
        seats,
        when=when or timezone.now(),
        settled=True,
        result={
            "summary": {
                "teams": {
                    "landlord": landlord,
                    "farmer": [i for i in range(n) if i not in landlord],
                },
                "winner_side": "landlord" if landlord_won else "farmer",
                "multiplier": 1,
            },
            "beans": beans,
            "scores": [b // 10 for b in beans],
            "players": [u.pk if u is not None else None for u in seats],
        },
    )
    seq = itertools.count(1)
    for i, user in enumerate(seats):
        if user is None:
            source, payload = "bot", {"act": "pass"}
        elif i in undecided:
            HandAction.objects.create(
                hand=hand, seq=next(seq), seat=i, payload={"act": "timeout"}, source="timeout"
            )
            source, payload = "autoplay", {"act": "pass"}
        elif i in self_autoplay:
            HandAction.objects.create(
                hand=hand, seq=next(seq), seat=i, source="human",
                payload={"act": "autoplay", "value": True},
            )  # fmt: skip
            source, payload = "autoplay", {"act": "pass"}
        else:
            source, payload = "human", {"act": "pass"}
        HandAction.objects.create(hand=hand, seq=next(seq), seat=i, payload=payload, source=source)
    return hand


def seats_of(table: Table) -> list[Seat]:
    return list(Seat.objects.filter(table=table))
