"""Presence that is true across processes (issue #16): who has a table socket open, and where.

Each open table socket is a ``SocketLease`` naming the served process that accepted it
(``PROCESS_ID``, chosen at random when the process starts). The process renews the leases of
the sockets it holds every ``DDZ_SOCKET_RENEW_SECONDS`` (``deadlines.renew_forever``, a thread
of every served process, whether or not it runs the deadline runner: the sockets live there).
A process that stops or dies stops renewing; after ``DDZ_SOCKET_LEASE_SECONDS`` its leases are
dead and the deadline runner's sweep (``services.table_expire_leases``) deletes them and takes
their users' seats offline as of the moment they expired, which starts the disconnect grace
(and the club's spectator count, which is the leases', loses their spectators). No process
ever touches another process's live leases, so a restart elsewhere changes nothing for the
sockets held here.

A seat's ``connections`` is recomputed from its user's live leases at the table whenever one
is opened, closed or expired, under the table's row lock (the caller holds it): never counted
up or down, so it cannot drift. ``disconnected_at`` is when the last one went away; None while
one is open (or since the player sat down, before his first socket).

Writes of leases are here; reads (``selectors.user_live_sockets``, ``tables_with_dead_leases``,
``leases_present``) in games/reads/selectors.py.
"""

from __future__ import annotations

import datetime
import secrets
import threading
from collections.abc import Hashable

from django.conf import settings
from django.db.models import Max

from accounts.models import User
from games.models import Seat, SocketLease, Table
from games.reads import selectors
from games.table.errors import ActionRejected, ErrorCode

PROCESS_ID = secrets.token_hex(8)

# The sockets this process holds (channel name -> table id, user), kept by the consumer: the
# renewer records them again when a sweep took their leases while this process could not renew
# (a stall, or the database away for longer than a lease). Released before the lease is deleted,
# so a socket that closed is never recorded again.
_held: dict[str, tuple[int, User]] = {}
_held_lock = threading.Lock()


def socket_held(*, channel_name: str, table_id: int, user: User) -> None:
    with _held_lock:
        _held[channel_name] = (table_id, user)


def socket_released(*, channel_name: str) -> None:
    with _held_lock:
        _held.pop(channel_name, None)


# The sockets of one opener (a browser session, or a user where the scope names one) this
# process is admitting or holds. A burst of connects from one session past the cap is refused
# here, before any database work: each would cost the process's one database thread two turns
# (its admission, then its refused lease), and the burst would queue every other table's work
# behind them. The cap itself is the cluster's, counted by the leases under the user's row lock
# (``lease_open``), and still decides every socket let through.
_opening: dict[Hashable, int] = {}


def socket_opening(*, opener: Hashable) -> bool:
    """Count a socket of ``opener`` while it is being admitted and held; False, counting
    nothing, when this process already has the cap of his sockets."""
    with _held_lock:
        count = _opening.get(opener, 0)
        if count >= settings.DDZ_WS_MAX_SOCKETS_PER_USER:
            return False
        _opening[opener] = count + 1
        return True


def socket_opening_ended(*, opener: Hashable) -> None:
    """A socket counted by ``socket_opening`` closed."""
    with _held_lock:
        count = _opening.pop(opener, 0) - 1
        if count > 0:
            _opening[opener] = count


def sockets_held() -> dict[str, tuple[int, User]]:
    with _held_lock:
        return dict(_held)


def socket_is_held(*, channel_name: str) -> bool:
    with _held_lock:
        return channel_name in _held


def lease_seconds() -> int:
    return settings.DDZ_SOCKET_LEASE_SECONDS


def lease_open(
    *, table: Table, user_id: int, channel_name: str | None, now: datetime.datetime
) -> None:
    """Record a socket of ``user_id`` at ``table`` held by this process. Without a channel name
    (a caller with no socket of its own, e.g. a test) the lease gets a name of its own.

    Refused (TOO_MANY_SOCKETS) when the user already holds DDZ_WS_MAX_SOCKETS_PER_USER live
    sockets on any process: his row is locked first, so his connects count one after the
    other however many tabs, tables and processes they come from at once."""
    User.objects.select_for_update().filter(pk=user_id).exists()
    held = selectors.user_live_sockets_anywhere(
        user_id=user_id, now=now, lease_seconds=lease_seconds()
    )
    if held >= settings.DDZ_WS_MAX_SOCKETS_PER_USER:
        raise ActionRejected.of(ErrorCode.TOO_MANY_SOCKETS, detail=f"{held} held")
    SocketLease.objects.create(
        table=table,
        user_id=user_id,
        process=PROCESS_ID,
        channel_name=channel_name or f"{PROCESS_ID}.local!{secrets.token_hex(8)}",
        renewed_at=now,
    )


def lease_close(*, table: Table, user_id: int, channel_name: str | None) -> None:
    """Forget a closed socket; without a channel name, the newest lease this process holds for
    ``user_id`` at ``table`` (the counterpart of a nameless ``lease_open``)."""
    leases = SocketLease.objects.filter(table=table, user_id=user_id)
    if channel_name:
        leases.filter(channel_name=channel_name).delete()
        return
    newest = leases.filter(process=PROCESS_ID).order_by("-pk").values_list("pk", flat=True)[:1]
    SocketLease.objects.filter(pk__in=list(newest)).delete()


def leases_renew(*, now: datetime.datetime, channel_names: list[str]) -> int:
    """Renew the leases of the sockets this process holds (one statement, no table lock: a
    renewal changes nobody's presence). Returns how many. A lease of this process whose socket
    it no longer holds (its end went unrecorded: the database away when it closed) is left to
    expire and be swept like a dead process's, rather than kept alive for ever."""
    return SocketLease.objects.filter(process=PROCESS_ID, channel_name__in=channel_names).update(
        renewed_at=now
    )


def leases_expire(*, table: Table, now: datetime.datetime) -> dict[int, datetime.datetime]:
    """Delete the dead leases of ``table`` (under its lock); returns, per user who had one,
    when his last dead lease expired."""
    lease = datetime.timedelta(seconds=lease_seconds())
    dead = SocketLease.objects.filter(table=table, renewed_at__lt=now - lease)
    expired = {
        row["user_id"]: row["last"] + lease
        for row in dead.values("user_id").annotate(last=Max("renewed_at")).order_by()
    }
    if expired:
        dead.delete()
    return expired


def seat_recount(*, seat: Seat, now: datetime.datetime, at: datetime.datetime) -> bool:
    """Set the seat's presence from its user's live leases at the table (under the table
    lock); a seat whose last socket went away is offline as of ``at``. Returns whether what
    the table shows (on or off line) changed."""
    count = selectors.user_live_sockets(
        table_id=seat.table_id, user_id=seat.user_id, now=now, lease_seconds=lease_seconds()
    )
    shown_online = seat.disconnected_at is None
    if count:
        if not seat.connections:
            seat.connected_at = at
        seat.disconnected_at = None
    elif seat.disconnected_at is None:
        seat.disconnected_at = at
    seat.connections = count
    seat.save(update_fields=["connections", "connected_at", "disconnected_at"])
    return shown_online != (seat.disconnected_at is None)
