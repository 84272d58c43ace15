"""The deadline runner's alarm: a service that schedules a bot's reply in this process wakes
the in-process runner, which then sleeps until the next deadline instead of its whole poll
interval (a bot's delay is well under one). Another process's runner finds the deadline at its
next poll, so ``DDZ_DEADLINE_POLL_SECONDS`` bounds how late a reply can be there."""

from __future__ import annotations

import threading
import time

_alarm = threading.Event()

# how often a sleeping runner looks at its stop event (stopping is rare; a wake is immediate)
_STOP_CHECK_SECONDS = 0.25


def wake() -> None:
    _alarm.set()


def pause(stop: threading.Event, seconds: float) -> None:
    """Sleep ``seconds``, less when woken (``wake``) or stopped."""
    until = time.monotonic() + seconds
    while not stop.is_set():
        left = until - time.monotonic()
        if left <= 0:
            return
        if _alarm.wait(min(left, _STOP_CHECK_SECONDS)):
            _alarm.clear()
            return
