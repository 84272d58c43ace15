"""Room arithmetic, and every write of tables, seats and hands (issue #5).

Each table/hand service is one transaction that first locks the table row
(``select_for_update(no_key=True)``; one lock order everywhere: table, then users in the ledger),
rebuilds the hand from its stored record, calls the engine, appends ``HandAction`` rows, saves
the new record and version, lets bots and 托管 seats act, settles a finished hand through the
ledger and broadcasts only after commit (``transaction.on_commit``). No game state lives in
process memory: a second process or a restart serves any table from the database.

Refusals are ``games.errors.ActionRejected`` (code + translated message).
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import IntegrityError, OperationalError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import User
from games import selectors
from games.engine.beans import RoomStakes, round_half_up
from games.engine.dealing import deal, new_seed, next_landlord_seat, seed_commitment
from games.engine.errors import EngineError
from games.engine.flows import flow_for
from games.engine.hand import (
    apply,
    autoplay_action,
    start_hand,
    summary,
    waiting_seats,
)
from games.engine.record import hand_record
from games.engine.scoring import tie_order
from games.engine.state import (
    AUTOPLAY,
    PHASE_GRAB,
    PHASE_PARTNER,
    PHASE_PLAY,
    PHASE_REDEAL,
    TIMEOUT,
    Action,
    HandState,
)
from games.engine.variants import find_variant
from games.errors import ActionRejected, ErrorCode, from_engine_error
from games.models import Hand, HandAction, HandPlayer, Room, Seat, Table, TableSession
from games.prepared import PreparedInsert, PreparedRead, PreparedUpdate

if TYPE_CHECKING:
    from games.rendering import TableSnapshot

logger = logging.getLogger(__name__)

Source = HandAction.Source

# Safety bound for one service call's automatic actions (a whole new5 hand is ~250 actions).
_MAX_AUTOMATIC_ACTIONS = 2000
# A classic3 table whose deals keep ending with three passes re-deals at most this often per call.
_MAX_REDEALS = 20


def disconnect_grace_seconds() -> int:
    return settings.DDZ_DISCONNECT_GRACE_SECONDS


# --------------------------------------------------------------------------- rooms


def room_computed_min_balance(room: Room) -> int:
    """The largest loss one seat can suffer in this room (RULES.md §7 ``min_balance``)."""
    variant = find_variant(room.variant, **(room.options or {}))
    units = variant.max_loss_units(max_multiplier=room.max_multiplier)
    return units * room.base_score * room.coefficient + room.house_take


def room_min_balance(*, room: Room) -> int:
    """The room's override when set, else the computed value."""
    if room.min_balance is not None:
        return room.min_balance
    return room_computed_min_balance(room)


def table_options(table: Table) -> dict[str, Any]:
    """The rule options of the table's next deal: the room's, with a private table's host
    choices for the options the room lets hosts set."""
    options = dict(table.room.options or {})
    if table.is_private:
        chosen = (table.settings or {}).get("options") or {}
        for name in table.room.host_options or []:
            if name in chosen:
                options[name] = chosen[name]
    return options


def table_stakes(table: Table) -> RoomStakes:
    """The stakes of the table's next deal (a private table may carry an operator's coefficient)."""
    stakes = table.room.stakes
    coefficient = (table.settings or {}).get("coefficient") if table.is_private else None
    if coefficient:
        stakes = dataclasses.replace(stakes, coefficient=int(coefficient))
    return stakes


def table_seconds(table: Table) -> tuple[int, int]:
    """(turn seconds, bid seconds) of the table's next deal."""
    chosen = (table.settings or {}) if table.is_private else {}
    return (
        int(chosen.get("turn_seconds") or table.room.turn_seconds),
        int(chosen.get("bid_seconds") or table.room.bid_seconds),
    )


def table_min_balance(table: Table) -> int:
    """Beans needed to sit at this table: the room's minimum, or more when a private table's
    options or stakes allow a larger loss."""
    room = table.room
    if not table.is_private or not table.settings:
        return room_min_balance(room=room)
    stakes = table_stakes(table)
    variant = find_variant(room.variant, **table_options(table))
    units = variant.max_loss_units(max_multiplier=room.max_multiplier)
    computed = units * stakes.base_score * stakes.coefficient + stakes.house_take
    return max(computed, room_min_balance(room=room))


def room_create(**fields: Any) -> Room:
    """Create a room after full validation (variant options checked by the engine)."""
    room = Room(**fields)
    room.full_clean()
    room.save()
    return room


# --------------------------------------------------------------------------- plumbing


@contextmanager
def _write() -> Iterator[None]:
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


def _locking_tables(*, skip_locked: bool = False) -> QuerySet[Table]:
    """Tables with their room, each row read locked (PostgreSQL: FOR NO KEY UPDATE; SQLite
    serialises writers itself)."""
    return Table.objects.select_for_update(
        no_key=True, of=("self",), skip_locked=skip_locked
    ).select_related("room")


def _locked_table(*, skip_locked: bool = False, **lookup: Any) -> Table | None:
    """The table matching ``lookup``, its row locked; None when there is none, or with
    ``skip_locked`` when another writer holds it. ``get`` rather than ``first``: the model's
    ordering by room would cost a join and a sort for one row."""
    try:
        return _locking_tables(skip_locked=skip_locked).get(**lookup)
    except Table.DoesNotExist:
        return None


# every move and connect locks its table by id: compiled once (games/prepared.py)
_LOCKED_TABLE = PreparedRead(
    lambda table_id: _locking_tables().filter(pk=table_id).order_by()[:1], "table_id"
)

# and writes its three rows
_MOVE_HAND_FIELDS = ("record", "version", "decision_started_at", "deadline_at")
_MOVE_HAND = PreparedUpdate(Hand, fields=_MOVE_HAND_FIELDS, where=("id", "version"))
_APPEND_ACTIONS = PreparedInsert(
    HandAction, fields=("hand", "seq", "seat", "phase", "payload", "source", "created_at")
)
_MOVE_TABLE = PreparedUpdate(Table, fields=("version", "changed_at"), where=("id",))


def _lock_table(
    table_id: Any, *, skip_locked: bool = False, missing: ErrorCode = ErrorCode.TABLE_NOT_FOUND
) -> Table | None:
    """Lock the table row; ``missing`` is the refusal when there is no such table."""
    try:
        table_id = int(table_id)
    except (TypeError, ValueError):
        raise ActionRejected.of(missing) from None
    if skip_locked:
        return _locked_table(pk=table_id, skip_locked=True)
    table = _LOCKED_TABLE.first(table_id=table_id)
    if table is None:
        raise ActionRejected.of(missing)
    return table


def _broadcast_on_commit(
    table_id: int,
    *,
    notices: list[str] | None = None,
    club: bool = False,
    known: TableSnapshot | None = None,
    coalesce: bool = False,
) -> None:
    """Push the table's state once after the outermost commit (once per transaction).
    ``notices`` (games.notify partials) and the #table-club region (between hands, or with
    ``club``) ride in the same frame of each audience, so one push stays one frame. ``known``:
    the table as the caller just wrote it (the push then reads only what it lacks); the last
    call of a transaction decides, and a call without one has the push read everything.
    ``coalesce``: a push that carries nothing but the state (a seat coming on line) may be
    one push with others of the table waiting to run (broadcast.push_coalesced)."""
    connection = transaction.get_connection()
    if connection.in_atomic_block:
        for entry in connection.run_on_commit:
            existing = entry[1]
            if getattr(existing, "ddz_table_id", None) == table_id:
                existing.ddz_notices.extend(notices or ())
                existing.ddz_club = existing.ddz_club or club
                existing.ddz_known = known
                existing.ddz_coalesce = existing.ddz_coalesce and coalesce
                return

    from games import broadcast

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
                broadcast.table_changed(table_id, known=known)
                return
            from games.private import with_club

            frames = broadcast.audience_frames(table_id, known=known)
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
    transaction.on_commit(send)


def _club_due(table_id: int) -> bool:
    """The #table-club region changes between hands only (seats, the sheet's new line)."""
    return Table.objects.filter(pk=table_id, status=Table.Status.WAITING).exists()


def _bump(table: Table) -> None:
    table.version += 1
    table.changed_at = timezone.now()
    Table.objects.filter(pk=table.pk).update(
        version=table.version, status=table.status, changed_at=table.changed_at
    )


def _seats(table: Table) -> list[Seat]:
    return selectors.table_seats(table=table)


def _is_suspended(user: User) -> bool:
    """An operator suspended the account (club app): it can no longer sit down."""
    from club.services import user_is_suspended

    return user_is_suspended(user=user)


def _require_user(user: Any) -> User:
    if user is None or not getattr(user, "is_authenticated", False):
        raise ActionRejected.of(ErrorCode.NOT_AUTHENTICATED)
    return user


# --------------------------------------------------------------------------- tables and seats


def table_create(*, room: Room) -> Table:
    """A new empty table in ``room`` with one seat per player of the room's variant."""
    if not room.is_active:
        raise ActionRejected.of(ErrorCode.ROOM_CLOSED)
    variant = find_variant(room.variant, **(room.options or {}))
    with _write():
        table = Table.objects.create(room=room)
        Seat.objects.bulk_create(Seat(table=table, index=i) for i in range(variant.seats))
        _broadcast_on_commit(table.pk)
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
    user = _require_user(user)
    with _write():
        table = _lock_table(table_id)
        assert table is not None
        seats = _seats(table)
        mine = next((s for s in seats if s.user_id == user.pk), None)
        if mine is not None:
            return mine
        if not table.room.is_active:
            raise ActionRejected.of(ErrorCode.ROOM_CLOSED)
        if _is_suspended(user):
            raise ActionRejected.of(ErrorCode.SUSPENDED)
        if table.is_private:
            from games.private import check_invite

            check_invite(table, user, invite_code)
        _check_balance(table.room, user, table)
        seat = _free_seat(seats, seat_index)
        seat.user = user
        seat.is_bot = False
        seat.autoplay = False
        seat.sit_out_after_hand = False
        seat.connections = 0
        seat.connected_at = seat.disconnected_at = None
        seat.save()
        from games.notify import notify

        notify(table.pk, "joined", name=user.username)  # before the push: the regions come last
        _bump(table)
        _broadcast_on_commit(table.pk)
    return seat


def table_quick_join(*, room: Room, user: User) -> Table:
    """Find a waiting table of ``room`` with a free seat (fullest first; in a regrouping room
    none with a recent tablemate) and sit down, or open a new table."""
    user = _require_user(user)
    if not room.is_active:
        raise ActionRejected.of(ErrorCode.ROOM_CLOSED)
    already = (  # seated here already (waiting, or in a hand he has not left): go back there
        Seat.objects.filter(user=user, table__room=room, sit_out_after_hand=False)
        .select_related("table")
        .order_by("-table_id")
        .first()
    )
    if already is not None:
        return already.table
    if _is_suspended(user):
        raise ActionRejected.of(ErrorCode.SUSPENDED)
    _check_balance(room, user)
    avoid: set[int] = set()
    if room.regroup_between_hands:
        avoid = selectors.user_recent_tablemates(user=user, hands=settings.DDZ_REGROUP_MEMORY_HANDS)
    for table in selectors.table_list_joinable(room=room).filter(is_private=False)[:50]:
        if avoid and Seat.objects.filter(table=table, user_id__in=avoid).exists():
            continue
        try:
            table_join(table_id=table.pk, user=user)
        except ActionRejected as error:
            if error.code in (ErrorCode.TABLE_FULL, ErrorCode.SEAT_TAKEN, ErrorCode.CONFLICT):
                continue  # somebody was quicker
            raise
        return table
    table = table_create(room=room)
    table_join(table_id=table.pk, user=user)
    return table


def table_leave(*, table_id: int, user: User) -> None:
    """Stand up. Between hands the seat is freed at once; during a hand the seat goes to 托管
    and is freed when the hand ends."""
    user = _require_user(user)
    with _write():
        table = _lock_table(table_id)
        assert table is not None
        seat = Seat.objects.filter(table=table, user=user).first()
        if seat is None:
            raise ActionRejected.of(ErrorCode.NOT_SEATED)
        hand = selectors.table_active_hand(table=table)
        from games.notify import notify

        notify(table.pk, "left", name=user.username)
        if hand is None:
            _vacate(seat)
        else:
            seat.sit_out_after_hand = True
            seat.save(update_fields=["sit_out_after_hand"])
            state = selectors.hand_state(hand)
            if not state.autoplay[seat.index]:
                run = _Run(table=table, hand=hand, state=state, now=timezone.now())
                run.apply(Action(seat.index, AUTOPLAY, True), Source.AUTOPLAY)
                run.finish()
        _bump(table)
        _broadcast_on_commit(table.pk)


def _vacate(seat: Seat) -> None:
    seat.user = None
    seat.is_bot = False
    seat.autoplay = False
    seat.sit_out_after_hand = False
    seat.connections = 0
    seat.connected_at = seat.disconnected_at = None
    seat.save()


def table_add_bot(
    *, table_id: int, seat_index: int | None = None, user: User | None = None
) -> Seat:
    """Put a house bot on a free seat (between hands). With ``user``, only a seated player may."""
    with _write():
        table = _lock_table(table_id)
        assert table is not None
        seats = _seats(table)
        if user is not None and not any(s.user_id == user.pk for s in seats):
            raise ActionRejected.of(ErrorCode.NOT_SEATED)
        if table.is_private and not table.allow_bots:
            raise ActionRejected.of(ErrorCode.BOTS_NOT_ALLOWED)
        if selectors.table_active_hand(table=table) is not None:
            raise ActionRejected.of(ErrorCode.HAND_IN_PROGRESS)
        seat = _free_seat(seats, seat_index)
        seat.is_bot = True
        seat.user = None
        seat.autoplay = False
        seat.save()
        _bump(table)
        _broadcast_on_commit(table.pk)
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
            with _write():
                table = _lock_table(table_id)
                assert table is not None
                if table.changed_at > cutoff or selectors.table_active_hand(table=table):
                    continue
                seats = _seats(table)
                if not any(s.user_id for s in seats):
                    continue
                empty = [s for s in seats if s.is_empty]
                for seat in empty:
                    seat.is_bot = True
                    seat.save(update_fields=["is_bot"])
                if empty:
                    _bump(table)
                    _broadcast_on_commit(table.pk)
                    filled += 1
        except ActionRejected as error:
            logger.info("bot fill of table %s: %s", table_id, error)
    return filled


def table_remove_bot(*, table_id: int, seat_index: int, user: User | None = None) -> None:
    """Take a bot off its seat (between hands)."""
    with _write():
        table = _lock_table(table_id)
        assert table is not None
        seats = _seats(table)
        if user is not None and not any(s.user_id == user.pk for s in seats):
            raise ActionRejected.of(ErrorCode.NOT_SEATED)
        if selectors.table_active_hand(table=table) is not None:
            raise ActionRejected.of(ErrorCode.HAND_IN_PROGRESS)
        seat = next((s for s in seats if s.index == _int_or(seat_index, -1)), None)
        if seat is None or not seat.is_bot:
            raise ActionRejected.of(ErrorCode.BAD_SEAT)
        _vacate(seat)
        _bump(table)
        _broadcast_on_commit(table.pk)


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


def seat_connect(*, table_id: int, user: User) -> Presence:
    """A websocket of a seated user opened (presence; cancels a pending disconnect grace)."""
    return _presence(table_id=table_id, user=user, delta=1)


def seat_disconnect(*, table_id: int, user: User) -> Presence:
    """A websocket of a seated user closed; with none left the disconnect grace starts."""
    return _presence(table_id=table_id, user=user, delta=-1)


def _presence(*, table_id: int, user: User, delta: int) -> Presence:
    if user is None or not getattr(user, "is_authenticated", False):
        return Presence(seated=False, pushed=False)
    with _write():
        table = _lock_table(table_id)
        assert table is not None
        seat = Seat.objects.filter(table=table, user=user).first()
        if seat is None:
            return Presence(seated=False, pushed=False)
        now = timezone.now()
        was_online = seat.connections > 0
        seat.connections = max(0, seat.connections + delta)
        if delta > 0:
            seat.connected_at = now
            seat.disconnected_at = None
        elif seat.connections == 0:
            seat.disconnected_at = now
        seat.save(update_fields=["connections", "connected_at", "disconnected_at"])
        hand = selectors.table_active_hand(table=table)
        if hand is not None:
            state = selectors.hand_state(hand)
            deadline = _deadline(table, hand, state, _seats(table))
            if deadline != hand.deadline_at:
                hand.deadline_at = deadline
                Hand.objects.filter(pk=hand.pk).update(deadline_at=deadline)
        pushed = was_online != (seat.connections > 0)
        if pushed:
            _bump(table)
            # after a restart every tab of the club reconnects at once: one push per table
            # for the seats that came back while it waited, not one per seat
            _broadcast_on_commit(table.pk, coalesce=True)
    return Presence(seated=True, pushed=pushed)


# --------------------------------------------------------------------------- hands


def hand_start(*, table_id: int, user: User | None = None) -> Hand:
    """Deal a new hand at a table whose seats are all filled (with ``user``: only a seated
    player may). Players below the room's minimum balance are stood up first."""
    with _write():
        table = _lock_table(table_id)
        assert table is not None
        seats = _seats(table)
        if user is not None and not any(s.user_id == user.pk for s in seats):
            raise ActionRejected.of(ErrorCode.NOT_SEATED)
        if selectors.table_active_hand(table=table) is not None:
            raise ActionRejected.of(ErrorCode.HAND_IN_PROGRESS)
        minimum = table_min_balance(table)
        broke = [s for s in seats if s.user_id is not None and s.user.beans < minimum]
        if not broke:
            if any(s.is_empty for s in seats):
                raise ActionRejected.of(ErrorCode.SEATS_NOT_FILLED)
            hand = _deal_hand(table, seats, now=timezone.now())
            _bump(table)
            _broadcast_on_commit(table.pk)
            return hand
        # Stand up whoever can no longer cover the room's minimum; that commits, then refuse.
        from games.notify import notify

        names = ", ".join(s.user.username for s in broke)
        for seat in broke:
            notify(table.pk, "stood_up_balance", name=seat.user.username, minimum=minimum)
            _vacate(seat)
        _bump(table)
        _broadcast_on_commit(table.pk)
    raise ActionRejected.of(
        ErrorCode.STOOD_UP_BALANCE,
        detail="stood up below the minimum: " + names,
        names=names,
        minimum=minimum,
    )


def _deal_hand(
    table: Table, seats: list[Seat], *, now: datetime.datetime, redeals: int = 0
) -> Hand:
    """Deal, store and play the automatic opening of a new hand (inside the table lock)."""
    variant = find_variant(table.room.variant, **table_options(table))
    previous = Hand.objects.filter(table=table).order_by("-number").first()
    previous_landlord = None
    if previous is not None and previous.result:
        previous_landlord = previous.result.get("landlord")
    number = table.hand_number + 1
    seed = new_seed()
    dealt = deal(
        variant,
        seed,
        hand_number=number,
        landlord_seat=next_landlord_seat(variant, previous_landlord),
    )
    balances = [s.user.beans if s.user is not None else None for s in seats]
    state = start_hand(variant, dealt, table_stakes(table), balances=balances)
    # A private table's hand keeps the host's seconds of its deal; a public table's hands
    # follow the room (an operator's change reaches the pending decision, as before).
    turn_seconds, bid_seconds = table_seconds(table) if table.is_private else (None, None)
    hand = Hand.objects.create(
        table=table,
        number=number,
        variant_key=variant.key,
        options=dict(variant.options),
        stakes=hand_record(state)["room"],
        seed=seed,
        commitment=seed_commitment(seed),
        record=hand_record(state),
        version=0,
        decision_started_at=now,
        turn_seconds=turn_seconds,
        bid_seconds=bid_seconds,
        session=_session_for(table, seats, previous, now),
    )
    HandPlayer.objects.bulk_create(
        HandPlayer(hand=hand, seat=s.index, user=s.user, is_bot=s.is_bot) for s in seats
    )
    for seat in seats:
        seat.autoplay = False
        seat.sit_out_after_hand = False
    Seat.objects.filter(table=table).update(
        autoplay=False, sit_out_after_hand=False, swap_with=None
    )
    table.hand_number = number
    table.status = Table.Status.PLAYING
    Table.objects.filter(pk=table.pk).update(hand_number=number, status=table.status)
    run = _Run(
        table=table, hand=hand, state=state, now=now, seats=seats, fresh=True, redeals=redeals
    )
    run.finish()
    return run.hand


def _session_for(
    table: Table, seats: list[Seat], previous: Hand | None, now: datetime.datetime
) -> TableSession:
    """The table's running session while the same people sit (bots aside); else a new one."""
    humans = sorted(s.user_id for s in seats if s.user_id is not None)
    session = previous.session if previous is not None else None
    if session is not None and session.player_ids == humans:
        TableSession.objects.filter(pk=session.pk).update(last_hand_at=now)
        return session
    last = TableSession.objects.filter(table=table).order_by("-number").first()
    return TableSession.objects.create(
        table=table,
        number=(last.number + 1) if last is not None else 1,
        player_ids=humans,
        started_at=now,
        last_hand_at=now,
    )


def _action_from_client(seat: int, action: Any) -> Action:
    if not isinstance(action, dict):
        raise ActionRejected.of(ErrorCode.MALFORMED)
    act = action.get("act")
    if act in (TIMEOUT, AUTOPLAY):
        raise ActionRejected.of(ErrorCode.UNKNOWN_ACT, detail=f"{act} is server-side")
    data = {k: v for k, v in action.items() if k in ("act", "value", "cards")}
    data["seat"] = seat  # the seat is the server's business, never the client's
    try:
        return Action.from_json(data)
    except EngineError as error:
        raise from_engine_error(error) from error
    except (TypeError, ValueError, AttributeError, KeyError) as error:
        raise ActionRejected.of(ErrorCode.BAD_VALUE, detail=str(error)) from error


def _locked_hand(*, table_id: Any, hand_id: Any) -> tuple[Table, Hand]:
    """Lock the table and return it with the hand, read after the lock. With ``table_id`` (a
    socket knows its table): the table's active hand; a ``hand_id`` given too must name it,
    else the client shows an older hand (STALE_VERSION); no active hand, or no such table, is
    HAND_NOT_FOUND. With only ``hand_id``: that hand, whatever its status."""
    if table_id is None and hand_id is None:
        raise TypeError("table_id or hand_id is required")
    if hand_id is not None:
        try:
            hand_id = int(hand_id)
        except (TypeError, ValueError):
            raise ActionRejected.of(ErrorCode.HAND_NOT_FOUND) from None
    if table_id is None:
        # the hand's table is found by the locking query itself; the hand is read after it
        table = _locked_table(hands__pk=hand_id)
        if table is None:
            raise ActionRejected.of(ErrorCode.HAND_NOT_FOUND)
        return table, Hand.objects.get(pk=hand_id)
    table = _lock_table(table_id, missing=ErrorCode.HAND_NOT_FOUND)
    assert table is not None
    hand = selectors.table_active_hand(table=table)
    if hand is None:
        raise ActionRejected.of(ErrorCode.HAND_NOT_FOUND)
    if hand_id is not None and hand_id != hand.pk:
        raise ActionRejected.of(
            ErrorCode.STALE_VERSION, detail=f"hand {hand_id} is not the current hand"
        )
    return table, hand


def _player_seat(hand: Hand, user: Any) -> tuple[int, dict[int, int | None]]:
    """The seat ``user`` holds in the hand, and who holds each seat (the push shows each
    seat's cards to its holder only)."""
    user = _require_user(user)
    holders: dict[int, int | None] = {}
    seat = None
    for index, user_id in selectors.hand_holders(hand=hand):
        holders.setdefault(index, user_id)
        if seat is None and user_id == user.pk:
            seat = index
    if seat is None:
        raise ActionRejected.of(ErrorCode.NOT_SEATED)
    return seat, holders


def _check_version(hand: Hand, state: HandState, expected_version: Any) -> None:
    """The client must have seen the current version. One exception: inside a simultaneous
    step (qq5 reveal/double, new5 grab) the others' choices are secret, so a version that only
    misses actions of that same step is as good as the current one."""
    try:
        expected = int(expected_version)
    except (TypeError, ValueError):
        raise ActionRejected.of(ErrorCode.STALE_VERSION, detail="no version") from None
    if expected == hand.version:
        return
    if 0 <= expected < hand.version and state.phase in flow_for(state.variant).simultaneous_phases:
        missed = HandAction.objects.filter(hand=hand, seq__gt=expected)
        if not missed.exclude(phase=state.phase).exists():
            return
    raise ActionRejected.of(
        ErrorCode.STALE_VERSION, detail=f"expected {expected}, current {hand.version}"
    )


def hand_submit_action(
    *,
    table_id: int | None = None,
    hand_id: int | None = None,
    user: User,
    action: dict[str, Any],
    expected_version: Any,
) -> Hand:
    """Apply a player's action (RULES.md §8.4 shape without ``seat``: the server knows it) to
    the active hand of ``table_id``, or to the hand ``hand_id`` (see ``_locked_hand``).

    Raises ActionRejected: STALE_VERSION when ``expected_version`` is not the hand's version
    (or ``hand_id`` not the table's active hand), HAND_NOT_FOUND, HAND_OVER, NOT_SEATED, or
    the engine's refusal mapped to a code and a translated message.
    """
    with _write():
        table, hand = _locked_hand(table_id=table_id, hand_id=hand_id)
        if hand.status != Hand.Status.ACTIVE:
            raise ActionRejected.of(ErrorCode.HAND_OVER)
        seat, holders = _player_seat(hand, user)
        state = selectors.hand_state(hand)
        _check_version(hand, state, expected_version)
        decision = _action_from_client(seat, action)
        run = _Run(table=table, hand=hand, state=state, now=timezone.now(), holders=holders)
        run.apply(decision, Source.HUMAN)
        run.finish()
        return run.hand


def seat_set_autoplay(
    *, table_id: int | None = None, hand_id: int | None = None, user: User, enabled: bool
) -> Hand:
    """Hand the seat to 托管 (``enabled``) or take control back, in the hand found as for
    ``hand_submit_action``."""
    with _write():
        table, hand = _locked_hand(table_id=table_id, hand_id=hand_id)
        if hand.status != Hand.Status.ACTIVE:
            raise ActionRejected.of(ErrorCode.HAND_OVER)
        seat, holders = _player_seat(hand, user)
        state = selectors.hand_state(hand)
        enabled = bool(enabled)
        Seat.objects.filter(table=table, index=seat).update(autoplay=enabled)
        if state.autoplay[seat] == enabled:
            return hand
        run = _Run(table=table, hand=hand, state=state, now=timezone.now(), holders=holders)
        run.apply(Action(seat, AUTOPLAY, enabled), Source.HUMAN)
        run.finish()
        return run.hand


def hand_apply_due_deadlines(*, now: datetime.datetime | None = None) -> int:
    """Apply every due deadline (see games/deadlines.py); returns how many hands moved."""
    from games.deadlines import hand_apply_due_deadlines as apply_due

    return apply_due(now=now)


# --------------------------------------------------------------------------- the engine loop


def _bot_action() -> Callable[[HandState, int], Action] | None:
    try:
        from games.engine.bot import bot_action
    except ImportError:
        return None
    # Bots act inside the caller's transaction and table lock: their search (up to 60 ms a
    # play) waits until their replies are scheduled off the request path (issue #20).
    return lambda state, seat: bot_action(state, seat, think=0.0)


@dataclass
class _Run:
    """The changes of one service call to one hand: actions applied in memory, then saved at
    ``finish`` (append the HandAction rows, store record and version, set the deadline,
    settle when over), all inside the caller's transaction and table lock."""

    table: Table
    hand: Hand
    state: HandState
    now: datetime.datetime
    seats: list[Seat] | None = None
    holders: dict[int, int | None] | None = None  # seat -> user id, when already read
    fresh: bool = False
    rows: list[HandAction] = field(default_factory=list)
    redeals: int = 0

    def __post_init__(self) -> None:
        self.start_version = self.hand.version
        self.start_phase = self.state.phase
        if self.seats is None:
            self.seats = _seats(self.table)

    def apply(self, action: Action, source: str) -> None:
        phase = self.state.phase
        try:
            self.state = apply(self.state, action)
        except EngineError as error:
            raise from_engine_error(error) from error
        except (TypeError, ValueError, KeyError, AttributeError, IndexError) as error:
            # a value of the wrong type that the engine did not type-check first
            raise ActionRejected.of(ErrorCode.BAD_VALUE, detail=repr(error)) from error
        self.rows.append(
            HandAction(
                hand=self.hand,
                seq=self.start_version + len(self.rows) + 1,
                seat=action.seat,
                phase=phase,
                payload=action.to_json(),
                source=source,
                created_at=self.now,
            )
        )

    def automate(self) -> None:
        """Bots and 托管 seats that the hand waits for act now, one appended action each,
        until a human is awaited or the hand is over."""
        assert self.seats is not None
        bots = {s.index for s in self.seats if s.is_bot}
        bot_action = _bot_action()
        for _ in range(_MAX_AUTOMATIC_ACTIONS):
            if self.state.finished:
                return
            due = [s for s in waiting_seats(self.state) if s in bots or self.state.autoplay[s]]
            if not due:
                return
            seat = due[0]
            if seat in bots:
                self.apply(self._bot_move(bot_action, seat), Source.BOT)
            else:
                self.apply(autoplay_action(self.state, seat), Source.AUTOPLAY)
        raise RuntimeError(f"hand {self.hand.pk}: automatic play does not end")  # pragma: no cover

    def _bot_move(self, bot_action: Callable[[HandState, int], Action] | None, seat: int) -> Action:
        if bot_action is not None:
            try:
                move = bot_action(self.state, seat)
                apply(self.state, move)  # checked here so a bot bug never stalls a table
                return move
            except Exception:
                logger.exception("bot failed at hand %s seat %s; using 托管", self.hand.pk, seat)
        return autoplay_action(self.state, seat)

    def finish(self) -> None:
        self.automate()
        hand = self.hand
        state = self.state
        if not self.rows and not self.fresh:
            return
        new_version = self.start_version + len(self.rows)
        hand.record = hand_record(state)
        hand.version = new_version
        if self.rows or self.fresh:
            simultaneous = flow_for(state.variant).simultaneous_phases
            same_step = (
                not self.fresh
                and state.phase == self.start_phase
                and state.phase in simultaneous
                and hand.decision_started_at is not None
            )
            if not same_step:
                hand.decision_started_at = self.now
        if state.finished:
            hand.deadline_at = None
        else:
            assert self.seats is not None
            hand.deadline_at = _deadline(self.table, hand, state, self.seats)
        # Optimistic guard on top of the lock: exactly one writer moves a version forward.
        if not self.fresh:
            moved = _MOVE_HAND.run(
                where={"id": hand.pk, "version": self.start_version},
                **{name: getattr(hand, name) for name in _MOVE_HAND_FIELDS},
            )
            if moved != 1:
                raise ActionRejected.of(ErrorCode.CONFLICT, detail="version moved")
        else:
            hand.save(update_fields=_MOVE_HAND_FIELDS)
        _APPEND_ACTIONS.run(self.rows)
        self._sync_seat_autoplay()
        self._remember_on_commit(hand, state)
        if state.finished:
            _finish_hand(self.table, hand, state, self.now, redeals=self.redeals)
        self.table.version += 1
        self.table.changed_at = self.now
        _MOVE_TABLE.run(
            where={"id": self.table.pk}, version=self.table.version, changed_at=self.now
        )
        known = None
        if not state.finished:  # a finished hand also changed the table and the ledger
            from games.rendering import table_snapshot

            known = table_snapshot(
                table=self.table, hand=hand, seats=self.seats, holders=self.holders, state=state
            )
        _broadcast_on_commit(self.table.pk, known=known)

    def _sync_seat_autoplay(self) -> None:
        """Seat.autoplay mirrors the hand's 托管 flags (for screens and the lobby)."""
        assert self.seats is not None
        for seat in self.seats:
            flag = bool(self.state.autoplay[seat.index])
            if seat.autoplay != flag:
                seat.autoplay = flag
                Seat.objects.filter(pk=seat.pk).update(autoplay=flag)

    @staticmethod
    def _remember_on_commit(hand: Hand, state: HandState) -> None:
        key = Hand(pk=hand.pk, version=hand.version, commitment=hand.commitment)
        transaction.on_commit(lambda: selectors.hand_state_remember(key, state))


# RULES.md §2.5: the new5 grab and partner windows are 10 s (at most; a room may be quicker).
_PHASE_MAX_SECONDS = {PHASE_GRAB: 10, PHASE_PARTNER: 10}


def decision_seconds(room: Room, state: HandState, hand: Hand | None = None) -> int:
    """The time for the pending decision: turn seconds in play, bid seconds otherwise, as the
    hand snapshotted them at the deal (the room's for hands dealt before the snapshot)."""
    turn = (hand.turn_seconds if hand is not None else None) or room.turn_seconds
    bid = (hand.bid_seconds if hand is not None else None) or room.bid_seconds
    if state.phase == PHASE_PLAY:
        return int(turn)
    return min(int(bid), _PHASE_MAX_SECONDS.get(state.phase, bid))


def _deadline(
    table: Table, hand: Hand, state: HandState, seats: list[Seat]
) -> datetime.datetime | None:
    """The next moment something must happen: the pending decision's timeout, or earlier the
    end of a disconnected awaited player's grace."""
    if state.finished:
        return None
    waiting = [s for s in waiting_seats(state) if not state.autoplay[s]]
    if not waiting:
        return None
    start = hand.decision_started_at or timezone.now()
    deadline = start + datetime.timedelta(seconds=decision_seconds(table.room, state, hand))
    grace = datetime.timedelta(seconds=disconnect_grace_seconds())
    by_index = {s.index: s for s in seats}
    for index in waiting:
        seat = by_index.get(index)
        if seat is None or seat.user_id is None or seat.connections > 0:
            continue
        if seat.disconnected_at is not None:
            deadline = min(deadline, seat.disconnected_at + grace)
    return deadline


def apply_deadline(*, table: Table, hand: Hand, now: datetime.datetime) -> bool:
    """Apply what is due at ``hand`` (inside the table lock): timeouts of the pending decision
    (托管 for plays: the seat is marked auto-play and keeps being played), and 托管 for awaited
    players whose disconnect grace is over. Returns whether anything changed."""
    if hand.status != Hand.Status.ACTIVE or hand.deadline_at is None or hand.deadline_at > now:
        return False
    state = selectors.hand_state(hand)
    seats = _seats(table)
    run = _Run(table=table, hand=hand, state=state, now=now, seats=seats)
    start = hand.decision_started_at or now
    timed_out = start + datetime.timedelta(seconds=decision_seconds(table.room, state, hand)) <= now
    grace = datetime.timedelta(seconds=disconnect_grace_seconds())
    by_index = {s.index: s for s in seats}
    for index in list(waiting_seats(state)):
        if run.state.finished or index not in waiting_seats(run.state):
            continue
        seat = by_index[index]
        gone = (
            seat.user_id is not None
            and seat.connections == 0
            and seat.disconnected_at is not None
            and seat.disconnected_at + grace <= now
        )
        if run.state.autoplay[index]:
            continue
        if timed_out and run.state.phase == PHASE_PLAY:
            run.apply(Action(index, AUTOPLAY, True), Source.TIMEOUT)
            run.apply(Action(index, TIMEOUT), Source.TIMEOUT)
        elif timed_out:
            run.apply(Action(index, TIMEOUT), Source.TIMEOUT)
        elif gone:
            run.apply(Action(index, AUTOPLAY, True), Source.AUTOPLAY)
        else:
            continue
        if run.state.autoplay[index]:
            Seat.objects.filter(pk=seat.pk).update(autoplay=True)
    if not run.rows:
        # nothing was due after all (e.g. a reconnect): just move the deadline on
        deadline = _deadline(table, hand, state, seats)
        Hand.objects.filter(pk=hand.pk).update(deadline_at=deadline)
        return False
    run.finish()
    return True


def _score_moves(state: HandState, units: tuple[Fraction, ...]) -> list[int]:
    """积分 per seat (RULES.md §7.4): the units rounded half-up; qq5 moves by X = units × B
    (§3.6), the only variant whose units leave the base score out of the score."""
    base = state.stakes.base_score if state.variant.key == "qq5" else 1
    return [round_half_up(Fraction(u) * base) for u in units]


def _title_id(score: int | None) -> int | None:
    from accounts.selectors import title_for

    if score is None:
        return None
    title = title_for(score)
    return title.pk if title is not None else None


def _finish_hand(
    table: Table, hand: Hand, state: HandState, now: datetime.datetime, *, redeals: int = 0
) -> None:
    """Settle (exactly once, through the ledger), reveal the seed, free the seats, and for a
    classic3 all-pass deal go straight to the re-deal."""
    from accounts.services import beans_settle_hand

    players = selectors.hand_players(hand=hand)
    users: list[User | None] = [p.user if not p.is_bot else None for p in players]
    result: dict[str, Any] = {
        "summary": summary(state),
        "landlord": state.landlord,
        "seed": hand.seed,
        "players": [p.user_id for p in players],
    }
    if state.result is not None:
        before = [(u.score if u is not None else None) for u in users]
        titles_before = [_title_id(s) for s in before]
        settlement = beans_settle_hand(
            hand_ref=str(hand.pk),
            units=state.result.units,
            stakes=state.stakes,
            seats=users,
            tie_order=tie_order(state),
            scores=_score_moves(state, state.result.units),
        )
        after = [
            User.objects.filter(pk=u.pk).values_list("score", flat=True).first()
            if u is not None
            else None
            for u in users
        ]
        result.update(
            {
                "beans": list(settlement.detail.get("deltas", [])),
                "house": settlement.house,
                "units": [str(u) for u in state.result.units],
                "scores": [
                    (a - b) if a is not None and b is not None else 0
                    for a, b in zip(after, before, strict=True)
                ],
                "score_after": after,
                "titles_before": titles_before,
                "titles_after": [_title_id(s) for s in after],
                "multiplier": result["summary"]["multiplier"],
                "spring": state.result.spring,
                "anti_spring": state.result.anti_spring,
            }
        )
    else:
        result["redeal"] = state.phase == PHASE_REDEAL
    hand.status = Hand.Status.FINISHED
    hand.finished_at = now
    hand.deadline_at = None
    hand.result = result
    hand.settled = True
    hand.save(update_fields=["status", "finished_at", "deadline_at", "result", "settled"])
    seats = _seats(table)
    regroup = table.room.regroup_between_hands and state.phase != PHASE_REDEAL
    for seat in seats:
        if seat.sit_out_after_hand or (regroup and not seat.is_empty):
            _vacate(seat)
        elif seat.autoplay:
            seat.autoplay = False
            seat.save(update_fields=["autoplay"])
    table.status = Table.Status.WAITING
    Table.objects.filter(pk=table.pk).update(status=table.status)
    if state.phase == PHASE_REDEAL and redeals < _MAX_REDEALS:
        seats = _seats(table)
        if not any(s.is_empty for s in seats):
            next_hand = _deal_hand(table, seats, now=now, redeals=redeals + 1)
            logger.debug("re-dealt hand %s after all passed", next_hand.pk)
