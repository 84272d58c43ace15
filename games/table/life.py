"""The life of a table: who sits, who is there, when a hand is dealt and who is dealt in.

One model, read at a glance from the two transition tables below, and the decisions every
service that seats, unseats, connects, disconnects, deals or finishes takes from it. Nothing
here touches the database: a seat's state is derived from its row (who sits, bot, leaving,
live sockets, since when it has none), a table's from its seats and its hand, so the model
is the same whichever process reads it and a restart changes nothing.

Seat states::

    EMPTY    nobody sits
    BOT      a house bot sits
    PRESENT  a player sits, with a live socket at the table (or sat down within the grace)
    AWAY     a player sits without a live socket; past the grace he is dealt in no more
    LEAVING  a player left during a hand: 托管 plays it out, then the seat is freed

Table states::

    WAITING  seats to fill before a deal
    READY    every seat filled and a present player: a seated player may deal
    IN_HAND  a hand is being played (it plays on under 托管 whoever leaves or vanishes)
    RESULT   the last hand's result is shown; the next deal is as from READY
    IDLE     every seat filled but no player present: nothing is dealt until one returns
"""

from __future__ import annotations

import datetime
import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


class SeatState(enum.StrEnum):
    EMPTY = "empty"
    BOT = "bot"
    PRESENT = "present"
    AWAY = "away"
    LEAVING = "leaving"


class TableState(enum.StrEnum):
    WAITING = "waiting"
    READY = "ready"
    IN_HAND = "in_hand"
    RESULT = "result"
    IDLE = "idle"


class Event(enum.StrEnum):
    SIT = "sit"  # a player takes the seat (join, quick-join, a move or swap between hands)
    ADD_BOT = "add_bot"
    REMOVE_BOT = "remove_bot"
    CONNECT = "connect"  # a live socket of the player at the table
    DISCONNECT = "disconnect"  # his last live socket closed, or its process stopped renewing
    LEAVE = "leave"  # between hands: the seat is freed at once
    LEAVE_IN_HAND = "leave_in_hand"  # 托管 plays the hand out
    STAND_UP_ABSENT = "stand_up_absent"  # away past the grace when a deal is due
    FINISH = "finish"  # the hand ended
    DEAL = "deal"


S, E = SeatState, Event
# (state, event) -> next state. A pair that is not here is refused by ``seat_next``.
SEAT_TRANSITIONS: dict[tuple[SeatState, Event], SeatState] = {
    (S.EMPTY, E.SIT): S.PRESENT,
    (S.EMPTY, E.ADD_BOT): S.BOT,
    (S.BOT, E.REMOVE_BOT): S.EMPTY,
    (S.BOT, E.FINISH): S.BOT,
    (S.BOT, E.DEAL): S.BOT,
    (S.PRESENT, E.CONNECT): S.PRESENT,
    (S.PRESENT, E.DISCONNECT): S.AWAY,
    (S.PRESENT, E.LEAVE): S.EMPTY,
    (S.PRESENT, E.LEAVE_IN_HAND): S.LEAVING,
    (S.PRESENT, E.FINISH): S.PRESENT,
    (S.PRESENT, E.DEAL): S.PRESENT,
    (S.AWAY, E.CONNECT): S.PRESENT,
    (S.AWAY, E.DISCONNECT): S.AWAY,
    (S.AWAY, E.LEAVE): S.EMPTY,
    (S.AWAY, E.LEAVE_IN_HAND): S.LEAVING,
    (S.AWAY, E.FINISH): S.AWAY,
    (S.AWAY, E.DEAL): S.AWAY,  # within the grace only: past it he is stood up first
    (S.AWAY, E.STAND_UP_ABSENT): S.EMPTY,  # or BOT, where the room puts bots on such seats
    (S.LEAVING, E.CONNECT): S.LEAVING,
    (S.LEAVING, E.DISCONNECT): S.LEAVING,
    (S.LEAVING, E.FINISH): S.EMPTY,
}

T = TableState
# (state, event) -> next state, for the events that change a table's state by themselves;
# seat events move a table between WAITING, READY and IDLE through ``table_state``.
TABLE_TRANSITIONS: dict[tuple[TableState, Event], TableState] = {
    (T.READY, E.DEAL): T.IN_HAND,
    (T.RESULT, E.DEAL): T.IN_HAND,
    (T.IN_HAND, E.FINISH): T.RESULT,
}
del S, E, T


class Refused(ValueError):
    """The model has no such transition (a service turns it into its refusal)."""


def seat_next(state: SeatState, event: Event) -> SeatState:
    try:
        return SEAT_TRANSITIONS[(state, event)]
    except KeyError:
        raise Refused(f"a seat that is {state} cannot {event}") from None


class SeatRow(Protocol):
    """What the model reads of a seat (games.models.Seat has it)."""

    index: int
    user_id: int | None
    is_bot: bool
    sit_out_after_hand: bool
    connections: int
    disconnected_at: datetime.datetime | None


def absent_since(seat: SeatRow) -> datetime.datetime | None:
    """Since when the seated player has had no live socket at the table; None while he has
    one, and for a player who has not opened the table since he sat down (his page does at
    once; a socket that never came is no disconnect)."""
    if seat.user_id is None or seat.is_bot or seat.connections > 0:
        return None
    return seat.disconnected_at


def seat_state(seat: SeatRow) -> SeatState:
    if seat.is_bot:
        return SeatState.BOT
    if seat.user_id is None:
        return SeatState.EMPTY
    if seat.sit_out_after_hand:
        return SeatState.LEAVING
    if seat.connections > 0 or absent_since(seat) is None:
        return SeatState.PRESENT
    return SeatState.AWAY


def gone(seat: SeatRow, *, now: datetime.datetime, grace: datetime.timedelta) -> bool:
    """Away for longer than the disconnect grace (docs/rules.md §2.5)."""
    since = absent_since(seat)
    return since is not None and since + grace <= now


def here(seat: SeatRow, *, now: datetime.datetime, grace: datetime.timedelta) -> bool:
    """A player who counts as at the table: a live socket, or away within the grace."""
    return seat_state(seat) in (SeatState.PRESENT, SeatState.AWAY) and not gone(
        seat, now=now, grace=grace
    )


def table_state(
    seats: Sequence[SeatRow],
    *,
    in_hand: bool,
    shows_result: bool,
    now: datetime.datetime,
    grace: datetime.timedelta,
) -> TableState:
    if in_hand:
        return TableState.IN_HAND
    if any(seat_state(s) is SeatState.EMPTY for s in seats):
        return TableState.WAITING
    if not any(here(s, now=now, grace=grace) for s in seats):
        return TableState.IDLE
    return TableState.RESULT if shows_result else TableState.READY


@dataclass(frozen=True)
class DealPlan:
    """What must happen before a deal: the players to stand up (away past the grace), the
    seats a bot then takes, and whether the deal can go ahead at all."""

    stand_up: tuple[int, ...] = ()
    bots: tuple[int, ...] = ()
    deal: bool = False
    why: str = ""  # when not dealing: "empty" (seats to fill) or "nobody_here"


def deal_plan(
    seats: Sequence[SeatRow],
    *,
    now: datetime.datetime,
    grace: datetime.timedelta,
    bots_take_absent_seats: bool,
) -> DealPlan:
    """Nobody absent past the grace is dealt in; a table with no present player deals
    nothing (an abandoned table stops instead of playing 托管 against itself)."""
    stand_up = tuple(
        s.index for s in seats if s.user_id is not None and gone(s, now=now, grace=grace)
    )
    bots = stand_up if bots_take_absent_seats else ()
    if not any(here(s, now=now, grace=grace) for s in seats):
        return DealPlan(stand_up=stand_up, bots=bots, why="nobody_here")
    empty = [s for s in seats if seat_state(s) is SeatState.EMPTY and s.index not in bots]
    if empty or (len(bots) < len(stand_up)):
        return DealPlan(stand_up=stand_up, bots=bots, why="empty")
    return DealPlan(stand_up=stand_up, bots=bots, deal=True)


def may_redeal(
    seats: Sequence[SeatRow],
    autoplay: Iterable[bool],
    *,
    now: datetime.datetime,
    grace: datetime.timedelta,
) -> bool:
    """A classic3 deal where everyone passed is dealt again, as part of the same hand, only
    while a player is at the table and playing himself: redeals among bots and 托管 seats
    alone would go on for ever."""
    autoplay = list(autoplay)
    return any(
        here(s, now=now, grace=grace) and not autoplay[s.index]
        for s in seats
        if s.index < len(autoplay)
    )


def leave_event(*, in_hand: bool) -> Event:
    return Event.LEAVE_IN_HAND if in_hand else Event.LEAVE


def seat_after(seat: Any, event: Event) -> SeatState:
    """The state ``seat`` moves to on ``event``; Refused when the model has no such move."""
    return seat_next(seat_state(seat), event)
