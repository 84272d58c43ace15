"""Server-side deadlines (RULES.md §2.5): timeouts of pending decisions and the disconnect
grace, applied with no browser connected, exactly once however many processes run them.

Everything is in the database (``Hand.deadline_at``, ``decision_started_at``, the seats'
presence), so a restart loses nothing. A claimer takes due hands one by one: on PostgreSQL it
locks the table row with ``SKIP LOCKED`` (a hand another process is working on is skipped and
left to it), re-checks the deadline under the lock and applies the engine's default action; the
version guard and the unique action sequence make a second application impossible anyway.

The same loop seats house bots at waiting tables whose players have waited
``DDZ_BOT_FILL_SECONDS`` (``services.table_fill_idle``).

Runners: ``manage.py run_deadlines`` (a loop), or the in-process thread that games/apps.py
starts when the site is served (``DDZ_DEADLINE_RUNNER=thread``, the default; ``off`` disables).
"""

from __future__ import annotations

import datetime
import logging
import threading

from django.conf import settings
from django.db import close_old_connections, connection
from django.db.utils import DatabaseError
from django.utils import timezone

from games import services
from games.errors import ActionRejected
from games.models import Hand
from games.services.base import locked_table, write

logger = logging.getLogger(__name__)

_BATCH = 100


def poll_seconds() -> float:
    return settings.DDZ_DEADLINE_POLL_SECONDS


def due_hand_ids(*, now: datetime.datetime) -> list[int]:
    return list(
        Hand.objects.filter(status=Hand.Status.ACTIVE, deadline_at__lte=now)
        .order_by("deadline_at", "pk")
        .values_list("pk", flat=True)[:_BATCH]
    )


def _apply_one(hand_id: int, *, now: datetime.datetime) -> bool:
    skip = connection.features.has_select_for_update_skip_locked
    with write():
        table = locked_table(hands__pk=hand_id, skip_locked=skip)
        if table is None:  # gone, or another process holds it and will deal with the hand
            return False
        hand = Hand.objects.filter(pk=hand_id).first()
        if hand is None:
            return False
        return services.apply_deadline(table=table, hand=hand, now=now)


def hand_apply_due_deadlines(*, now: datetime.datetime | None = None) -> int:
    """Apply every deadline due at ``now``; returns the number of hands that moved."""
    now = now or timezone.now()
    moved = 0
    for hand_id in due_hand_ids(now=now):
        try:
            if _apply_one(hand_id, now=now):
                moved += 1
        except ActionRejected as error:  # lost a race: the other writer's state stands
            logger.info("deadline of hand %s: %s", hand_id, error)
        except DatabaseError:
            logger.exception("deadline of hand %s failed; will retry", hand_id)
    return moved


def run_forever(*, stop: threading.Event | None = None, interval: float | None = None) -> None:
    """Poll for due deadlines until ``stop`` is set."""
    stop = stop or threading.Event()
    interval = poll_seconds() if interval is None else interval
    while not stop.is_set():
        try:
            hand_apply_due_deadlines()
            services.table_fill_idle()
        except Exception:
            logger.exception("deadline runner iteration failed")
        finally:
            close_old_connections()
        stop.wait(interval)


_thread: threading.Thread | None = None
_thread_lock = threading.Lock()


def start_thread() -> threading.Thread:
    """Start the in-process runner once per process (a daemon thread)."""
    global _thread
    with _thread_lock:
        if _thread is not None and _thread.is_alive():
            return _thread
        thread = threading.Thread(target=_thread_main, name="ddz-deadlines", daemon=True)
        thread.start()
        _thread = thread
        return thread


def reset_presence_counts() -> int:
    """Forget socket counts a crashed process left behind (its sockets are gone). Seats then
    look present until their next disconnect, which starts the grace as usual."""
    from games.models import Seat

    return Seat.objects.filter(connections__gt=0).update(connections=0)


def _thread_main() -> None:
    # let the server finish starting before the first query
    threading.Event().wait(1.0)
    try:
        try:
            reset_presence_counts()
        except DatabaseError:
            logger.exception("could not reset presence counts")
        run_forever()
    finally:
        connection.close()
