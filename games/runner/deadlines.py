"""Server-side deadlines (docs/rules.md §2.5): timeouts of pending decisions and the disconnect
grace, applied with no browser connected, exactly once however many processes run them.

Everything is in the database (``Hand.deadline_at``, ``decision_started_at``, the seats'
presence and the socket leases behind it), so a restart loses nothing. A claimer takes due
hands one by one: on PostgreSQL it locks the table row with ``SKIP LOCKED`` (a hand another
process is working on is skipped and left to it), re-checks the deadline under the lock and
applies the engine's default action; the version guard and the unique action sequence make a
second application impossible anyway.

The same loop expires the socket leases of processes that stopped or died
(games.services.presence), so their users' grace starts, and seats house bots at waiting
tables whose players have waited ``DDZ_BOT_FILL_SECONDS`` (``services.table_fill_idle``), and
does the work other apps hand it (``hooks.due_work``: starting and ending what they scheduled).

Bots reply here too: a hand that awaits a bot is due after the room's ``bot_delay_ms``. The
bot's move is decided before the table is locked (``services.hand_decide_bots``, a search of up
to ``DDZ_BOT_THINK_SECONDS``) and applied under the lock only if the hand has not moved since,
so neither a player's request nor a table lock ever waits for a bot's thinking.

Runners: ``manage.py run_deadlines`` (a loop), or the in-process thread that games/apps.py
starts when the site is served (``DDZ_DEADLINE_RUNNER=thread``, the default; ``off`` disables).
Either is a thread of its own, never the one that serves the sockets' database calls. A runner
sleeps until the next deadline (at most its poll interval); a bot scheduled in its own process
wakes it (games.table.wake).
"""

from __future__ import annotations

import datetime
import logging
import threading
import time
from collections.abc import Callable

from django.conf import settings
from django.db import close_old_connections, connection
from django.db.utils import DatabaseError
from django.utils import timezone

from games import services
from games.models import Hand
from games.reads import selectors
from games.services import presence
from games.services.base import locked_table, write
from games.table import wake
from games.table.errors import ActionRejected
from games.table.hooks import hooks
from site_kit import logs, metrics

logger = logging.getLogger(__name__)

_BATCH = 100


def poll_seconds() -> float:
    return settings.DDZ_DEADLINE_POLL_SECONDS


def due_hands(*, now: datetime.datetime) -> list[tuple[int, datetime.datetime]]:
    """The due hands' ids and deadlines, the most overdue first."""
    return list(
        Hand.objects.filter(status=Hand.Status.ACTIVE, deadline_at__lte=now)
        .order_by("deadline_at", "pk")
        .values_list("pk", "deadline_at")[:_BATCH]
    )


def next_deadline_in(*, now: datetime.datetime) -> float | None:
    """Seconds until the earliest deadline of an active hand (0 when one is due); None: none."""
    first = (
        Hand.objects.filter(status=Hand.Status.ACTIVE, deadline_at__isnull=False)
        .order_by("deadline_at")
        .values_list("deadline_at", flat=True)
        .first()
    )
    return None if first is None else max(0.0, (first - now).total_seconds())


def _apply_one(hand_id: int, *, now: datetime.datetime) -> bool:
    thinking = time.perf_counter()
    replies = services.hand_decide_bots(hand_id=hand_id)  # before the lock: it may search
    if replies:
        metrics.BOT_DECISION_SECONDS.observe(time.perf_counter() - thinking)
    skip = connection.features.has_select_for_update_skip_locked
    with write():
        table = locked_table(hands__pk=hand_id, skip_locked=skip)
        if table is None:  # gone, or another process holds it and will deal with the hand
            return False
        hand = Hand.objects.filter(pk=hand_id).first()
        if hand is None:
            return False
        return services.apply_deadline(table=table, hand=hand, now=now, replies=replies)


def hand_apply_due_deadlines(*, now: datetime.datetime | None = None) -> int:
    """Apply every deadline due at ``now``; returns the number of hands that moved."""
    now = now or timezone.now()
    moved = 0
    due = due_hands(now=now)
    heartbeat.lag_seconds = (now - due[0][1]).total_seconds() if due else 0.0
    metrics.RUNNER_LAG_SECONDS.set(heartbeat.lag_seconds)
    for hand_id, deadline in due:
        context = logs.bind(hand_id=hand_id)
        try:
            if _apply_one(hand_id, now=now):
                moved += 1
                metrics.RUNNER_APPLY_LAG_SECONDS.observe(
                    (timezone.now() - deadline).total_seconds()
                )
        except ActionRejected as error:  # lost a race: the other writer's state stands
            logger.info("deadline of hand %s: %s", hand_id, error)
        except DatabaseError:
            logger.exception("deadline of hand %s failed; will retry", hand_id)
        finally:
            logs.unbind(context)
    return moved


class Heartbeat:
    """This process's deadline runner as its last round left it: when that round ended (a
    monotonic clock; None before the first) and how late its most overdue hand was. Readiness
    (/readyz) and the operators' live view read it."""

    def __init__(self) -> None:
        self.loaded = time.monotonic()
        self.running = False  # run_forever started in this process
        self.round_ended: float | None = None
        self.lag_seconds: float = 0.0

    def age_seconds(self) -> float:
        """Seconds since the last round ended (before the first: since the process began)."""
        return time.monotonic() - (self.round_ended or self.loaded)


heartbeat = Heartbeat()


def runner_running() -> bool:
    """Whether this process runs a deadline runner (the served process's thread, or
    ``manage.py run_deadlines``)."""
    return heartbeat.running or "ddz-deadlines" in _threads


def presence_sweep(*, now: datetime.datetime | None = None) -> int:
    """Expire the socket leases nobody renews any more (games.services.presence); returns how
    many seats changed (went offline)."""
    now = now or timezone.now()
    changed = 0
    tables = selectors.tables_with_dead_leases(now=now, lease_seconds=presence.lease_seconds())
    for table_id in tables:
        try:
            changed += services.table_expire_leases(table_id=table_id, now=now)
        except ActionRejected as error:  # lost a race: the next sweep comes back
            logger.info("socket leases of table %s: %s", table_id, error)
        except DatabaseError:
            logger.exception("socket leases of table %s failed; will retry", table_id)
    return changed


def run_forever(*, stop: threading.Event | None = None, interval: float | None = None) -> None:
    """Poll for due deadlines and dead socket leases until ``stop`` is set."""
    stop = stop or threading.Event()
    interval = poll_seconds() if interval is None else interval
    heartbeat.running = True
    try:
        while not stop.is_set():
            pause = interval
            try:
                presence_sweep()
                hand_apply_due_deadlines()
                services.table_fill_idle()
                hooks.runner_round()
                now = timezone.now()
                dues = [
                    d for d in (next_deadline_in(now=now), hooks.due_work(now=now)) if d is not None
                ]
                if dues:
                    pause = max(_MIN_PAUSE_SECONDS, min(interval, *dues))
            except Exception:
                logger.exception("deadline runner iteration failed")
            else:
                heartbeat.round_ended = time.monotonic()
            finally:
                close_old_connections()
            wake.pause(stop, pause)
    finally:
        heartbeat.running = False


# A hand left due (another process holds its table, or its bot's move lost a race) is looked at
# again this soon, not in a busy loop.
_MIN_PAUSE_SECONDS = 0.05


def leases_keep(*, now: datetime.datetime | None = None) -> int:
    """Renew this process's socket leases, and record again those of its open sockets that a
    sweep took (this process could not renew in time: a stall, the database away); their
    seats come back on line before any grace runs out. Returns how many were recorded again."""
    now = now or timezone.now()
    held = presence.sockets_held()
    renewed = presence.leases_renew(now=now, channel_names=list(held))
    if renewed >= len(held):
        return 0
    present = selectors.leases_present(channel_names=list(held))
    restored = 0
    for name, (table_id, user) in held.items():
        if name in present:
            continue
        try:
            services.seat_connect(table_id=table_id, user=user, channel_name=name)
        except ActionRejected as error:  # the table is gone, or a race: the next round sees
            logger.info("socket lease %s: %s", name, error)
            continue
        if presence.socket_is_held(channel_name=name):
            restored += 1
        else:  # it closed meanwhile, its own lease already deleted: so is this one
            services.seat_disconnect(table_id=table_id, user=user, channel_name=name)
    return restored


def renew_forever(*, stop: threading.Event | None = None, interval: float | None = None) -> None:
    """Keep this process's socket leases, and record its heartbeat, until ``stop`` is set (in
    ``manage.py run_deadlines`` it holds no socket: only the heartbeat)."""
    stop = stop or threading.Event()
    interval = settings.DDZ_SOCKET_RENEW_SECONDS if interval is None else interval
    while not stop.is_set():
        try:
            leases_keep()
            process_beat()
        except Exception:
            logger.exception("keeping the socket leases failed; will retry")
        finally:
            close_old_connections()
        stop.wait(interval)


def process_beat() -> None:
    """Record this process's heartbeat for the operators' live view, and its database pool's
    use for the metrics."""
    runs = runner_running() and heartbeat.round_ended is not None
    age = datetime.timedelta(seconds=heartbeat.age_seconds())
    services.process_beat(
        sockets=len(presence.sockets_held()),
        runner_round_at=timezone.now() - age if runs else None,
        runner_lag_seconds=heartbeat.lag_seconds if runs else None,
        errors=logs.recent_errors(),
    )
    pool = getattr(connection, "pool", None)
    if pool is not None:
        metrics.pool_observe(pool.get_stats())


_threads: dict[str, threading.Thread] = {}
_threads_lock = threading.Lock()


def start_daemon(name: str, target: Callable[[], None]) -> threading.Thread:
    """Run ``target`` in a daemon thread called ``name``, once per process."""
    with _threads_lock:
        thread = _threads.get(name)
        if thread is not None and thread.is_alive():
            return thread
        thread = threading.Thread(target=_closing(target), name=name, daemon=True)
        thread.start()
        _threads[name] = thread
        return thread


def _closing(target: Callable[[], None]) -> Callable[[], None]:
    def main() -> None:
        # let the server finish starting before the first query
        threading.Event().wait(1.0)
        try:
            target()
        finally:
            connection.close()

    return main


def start_thread() -> threading.Thread:
    """Start the in-process runner once per process."""
    return start_daemon("ddz-deadlines", run_forever)
