"""What every write of a table shares: one transaction, the table row lock, the version bump,
the push after commit, and freeing a seat.

Each table or hand service is one transaction (``write``) that first locks the table row
(``lock_table``: ``select_for_update(no_key=True)``; one lock order everywhere: table, then
users in the ledger) and pushes only after commit (``broadcast_on_commit``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError, OperationalError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import User
from games.models import Seat, Table
from games.reads import selectors
from games.table import life
from games.table.errors import ActionRejected, ErrorCode
from games.table.prepared import PreparedRead

if TYPE_CHECKING:
    from games.screen.rendering import TableSnapshot

logger = logging.getLogger(__name__)


@contextmanager
def write() -> Iterator[None]:
    """One transaction; a write that lost a race (SQLite's busy lock, a duplicate action
    sequence number, a version that moved) becomes a CONFLICT refusal with nothing changed."""
    try:
        with transaction.atomic():
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


def broadcast_on_commit(
    table_id: int,
    *,
    notices: list[str] | None = None,
    club: bool = False,
    known: TableSnapshot | None = None,
    coalesce: bool = False,
    only_seats: tuple[int, ...] | None = None,
) -> None:
    """Push the table's state once after the outermost commit (once per transaction).
    ``notices`` (games.screen.notify partials) and the #table-club region (between hands, or with
    ``club``) ride in the same frame of each audience, so one push stays one frame. ``known``:
    the table as the caller just wrote it (the push then reads only what it lacks); the last
    call of a transaction decides, and a call without one has the push read everything.
    ``coalesce``: a push that carries nothing but the state (a seat coming on line) may be
    one push with others of the table waiting to run (broadcast.push_coalesced).
    ``only_seats``: the push goes to these seats' players alone (a sealed step's deciders)."""
    connection = transaction.get_connection()
    if connection.in_atomic_block:
        for entry in connection.run_on_commit:
            existing = entry[1]
            if getattr(existing, "ddz_table_id", None) == table_id:
                existing.ddz_notices.extend(notices or ())
                existing.ddz_club = existing.ddz_club or club
                if known is not None:
                    # the state before this call's writes is not the state before the
                    # transaction's first: the push sends every seat its own regions
                    known.before = None
                existing.ddz_known = known
                existing.ddz_coalesce = existing.ddz_coalesce and coalesce
                if existing.ddz_only is not None:
                    both = None if only_seats is None else {*existing.ddz_only, *only_seats}
                    existing.ddz_only = None if both is None else tuple(sorted(both))
                return

    from games.push import broadcast

    def send() -> None:
        if send.ddz_coalesce and not (send.ddz_notices or send.ddz_club or send.ddz_known):
            broadcast.push_coalesced(table_id, push)
        else:
            push()

    def push() -> None:
        try:
            known = send.ddz_known
            if known is not None:
                club_due = known.table.status == Table.Status.WAITING
            else:
                club_due = _club_due(table_id)
            if not send.ddz_notices and not send.ddz_club and not club_due:
                broadcast.table_changed(table_id, known=known, only_seats=send.ddz_only)
                return
            from games.services.private import with_club

            frames = broadcast.audience_frames(table_id, known=known, every_seat=True)
            broadcast.send_frames(
                with_club(table_id, frames, notices=send.ddz_notices, force=send.ddz_club)
            )
        except Exception:  # a failed push must never undo or fail a committed write
            logger.exception("broadcast of table %s failed", table_id)

    send.ddz_table_id = table_id  # type: ignore[attr-defined]
    send.ddz_notices = list(notices or ())  # type: ignore[attr-defined]
    send.ddz_club = club  # type: ignore[attr-defined]
    send.ddz_known = known  # type: ignore[attr-defined]
    send.ddz_coalesce = coalesce  # type: ignore[attr-defined]
    send.ddz_only = only_seats  # type: ignore[attr-defined]
    transaction.on_commit(send)


def _club_due(table_id: int) -> bool:
    """The #table-club region changes between hands only (seats, the sheet's new line)."""
    return Table.objects.filter(pk=table_id, status=Table.Status.WAITING).exists()


def next_version(table: Table) -> int:
    """The table's version after this transaction: one step however many of its writes change
    the table, since a transaction makes one push and a page takes only the version after the
    one it shows (games/push/broadcast.py; two steps read as a lost push and cost a resync)."""
    if not getattr(table, "ddz_stepped", False):
        table.version += 1
        table.ddz_stepped = True  # type: ignore[attr-defined]
        transaction.on_commit(lambda: setattr(table, "ddz_stepped", False))
    return table.version


def bump(table: Table) -> None:
    next_version(table)
    table.changed_at = timezone.now()
    Table.objects.filter(pk=table.pk).update(
        version=table.version, status=table.status, changed_at=table.changed_at
    )


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
    """The state the seat moves to on ``event`` (games/life.py); a move the model does
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
