"""What every write of a table shares: one transaction, the table row lock, the version bump,
the push after commit, and freeing a seat.

Each table or hand service is one transaction (``write``) that first locks the table row
(``lock_table``: ``select_for_update(no_key=True)``; one lock order everywhere: table, then
users in the ledger), records what it changed in the write's outbox (games/push/outbox.py) and
leaves the push to games/push/deliver.py, after the commit.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import IntegrityError, OperationalError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import User
from games.models import Hand, Seat, Table
from games.push import deliver, outbox
from games.reads import selectors
from games.table import life
from games.table.errors import ActionRejected, ErrorCode
from games.table.prepared import PreparedRead, read_together

logger = logging.getLogger(__name__)


@contextmanager
def write() -> Iterator[None]:
    """One transaction; a write that lost a race (SQLite's busy lock, a duplicate action
    sequence number, a version that moved) becomes a CONFLICT refusal with nothing changed.
    What it records in its outbox is pushed after its commit; a write inside another adds to
    the outer one's."""
    try:
        with outbox.collecting(deliver.deliver), transaction.atomic():
            yield
    except IntegrityError as error:
        raise ActionRejected.of(ErrorCode.CONFLICT, detail=str(error)) from error
    except OperationalError as error:
        if "locked" not in str(error).lower():
            raise
        raise ActionRejected.of(ErrorCode.CONFLICT, detail=str(error)) from error


def locking_tables(*, skip_locked: bool = False) -> QuerySet[Table]:
    """Tables with their room, each row read locked (PostgreSQL: FOR NO KEY UPDATE; SQLite
    serialises writers itself)."""
    return Table.objects.select_for_update(
        no_key=True, of=("self",), skip_locked=skip_locked
    ).select_related("room")


def locked_table(*, skip_locked: bool = False, **lookup: Any) -> Table | None:
    """The table matching ``lookup``, its row locked; None when there is none, or with
    ``skip_locked`` when another writer holds it. ``get`` rather than ``first``: the model's
    ordering by room would cost a join and a sort for one row."""
    try:
        return locking_tables(skip_locked=skip_locked).get(**lookup)
    except Table.DoesNotExist:
        return None


# every move and connect locks its table by id: compiled once (games/table/prepared.py)
_LOCKED_TABLE = PreparedRead(
    lambda table_id: locking_tables().filter(pk=table_id).order_by()[:1], "table_id"
)


def lock_table(
    table_id: Any, *, skip_locked: bool = False, missing: ErrorCode = ErrorCode.TABLE_NOT_FOUND
) -> Table | None:
    """Lock the table row; ``missing`` is the refusal when there is no such table."""
    try:
        table_id = int(table_id)
    except (TypeError, ValueError):
        raise ActionRejected.of(missing) from None
    if skip_locked:
        return locked_table(pk=table_id, skip_locked=True)
    table = _LOCKED_TABLE.first(table_id=table_id)
    if table is None:
        raise ActionRejected.of(missing)
    return table


def lock_table_for_move(
    table_id: Any, *, missing: ErrorCode
) -> tuple[Table, list[Seat], Hand | None]:
    """Lock the table row and read its seats (each with its user) and its active hand (None:
    none), all read after the lock: one round trip on PostgreSQL."""
    try:
        table_id = int(table_id)
    except (TypeError, ValueError):
        raise ActionRejected.of(missing) from None
    tables, seats = read_together(
        (_LOCKED_TABLE, {"table_id": table_id}),
        (selectors.SEATS_AND_ACTIVE_HAND, {"table_id": table_id}),
    )
    if not tables:
        raise ActionRejected.of(missing)
    table = tables[0]
    # without an active hand, the outer join leaves the first seat none
    hand = getattr(seats[0], "active_hand", None) if seats else None
    for seat in seats:
        seat.table = table
    if hand is not None:
        hand.table = table
    return table, seats, hand


def next_version(table: Table) -> int:
    """The table's version after this write: one step however many of its parts change the
    table, since a write makes one push and a page takes only the version after the one it
    shows (games/push/frames.py; two steps read as a lost push and cost a resync)."""
    stepped = outbox.current().stepped
    if table.pk not in stepped:
        stepped[table.pk] = table.version + 1
    table.version = stepped[table.pk]
    return table.version


def bump(table: Table, *, session: bool = False, presence: bool = False) -> None:
    """Store the table's next version (and status) and push it after commit; ``session``: with
    #table-session even mid-hand, ``presence``: only seats went on or off line."""
    next_version(table)
    table.changed_at = timezone.now()
    Table.objects.filter(pk=table.pk).update(
        version=table.version, status=table.status, changed_at=table.changed_at
    )
    outbox.table_moved(table.pk, presence=presence)
    if session:
        outbox.session_changed(table.pk)


def lock_seated(table_id: Any, user: Any) -> tuple[Table, Seat]:
    """Lock the table; the user's seat at it (NOT_SEATED without one)."""
    user = require_user(user)
    table = lock_table(table_id)
    assert table is not None
    seat = Seat.objects.filter(table=table, user=user).first()
    if seat is None:
        raise ActionRejected.of(ErrorCode.NOT_SEATED)
    return table, seat


def lock_between_hands(table_id: Any, *, user: Any = None) -> tuple[Table, list[Seat]]:
    """Lock the table and read its seats, refusing while a hand is played (HAND_IN_PROGRESS)
    and, with ``user``, unless he holds one of them (NOT_SEATED)."""
    table = lock_table(table_id)
    assert table is not None
    seats = selectors.table_seats(table=table)
    if user is not None and not any(s.user_id == user.pk for s in seats):
        raise ActionRejected.of(ErrorCode.NOT_SEATED)
    if selectors.table_active_hand(table=table) is not None:
        raise ActionRejected.of(ErrorCode.HAND_IN_PROGRESS)
    return table, seats


def seat_moves(seat: Seat, event: life.Event) -> life.SeatState:
    """The state the seat moves to on ``event`` (games/table/life.py); a move the model does
    not have is refused with nothing changed."""
    try:
        return life.seat_after(seat, event)
    except life.Refused as error:
        raise ActionRejected.of(ErrorCode.BAD_SEAT, detail=str(error)) from error


def require_user(user: Any) -> User:
    if user is None or not getattr(user, "is_authenticated", False):
        raise ActionRejected.of(ErrorCode.NOT_AUTHENTICATED)
    return user


def create_seats(table: Table, count: int) -> None:
    Seat.objects.bulk_create(
        Seat(table=table, room_id=table.room_id, index=i) for i in range(count)
    )


def put_bot(seat: Seat) -> None:
    """A house bot takes the seat."""
    vacate(seat, save=False)
    seat.is_bot = True
    seat.save()


def vacate(seat: Seat, *, save: bool = True) -> None:
    """Free the seat: nobody on it, no bot, nothing pending."""
    seat.user = None
    seat.is_bot = False
    seat.autoplay = False
    seat.sit_out_after_hand = False
    seat.swap_with = None
    seat.connections = 0
    seat.connected_at = seat.disconnected_at = None
    if save:
        seat.save()
