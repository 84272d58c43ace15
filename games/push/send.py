"""Sending a push's frames through the channel layer, in the order they were made: the one
module that sends on the layer (the consumers, games/live, join and leave its groups).

A push is made in a database thread (after its write's commit) or the deadline runner's; the
in-memory channel layer must be used from the server's event loop, so the frames are handed to
it and sent there one push after the other (a socket's frames never overtake each other), and
the thread that made them goes on. Without a running loop (a command, a plain test) they are
sent before ``send_frames`` returns.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings

from games.push.frames import Frame, stamped, to_message
from site_kit import metrics

logger = logging.getLogger(__name__)

_loop_lock = threading.Lock()
_server_loop: asyncio.AbstractEventLoop | None = None


def remember_server_loop(loop: asyncio.AbstractEventLoop) -> None:
    """The consumers' event loop: the in-memory channel layer must be used from it, so pushes
    from a plain thread (the in-process deadline runner) are handed over to it."""
    global _server_loop
    with _loop_lock:
        _server_loop = loop


async def _send_all(layer: Any, frames: list[tuple[str, dict[str, Any]]]) -> None:
    # in order: a socket in two groups (its user's and the public one) gets its seat's frame
    # of a version before that version's public one. Both of the project's layers send a
    # whole push at once (ddz_site/layers.py); another layer sends it a frame at a time.
    send_many = getattr(layer, "group_send_many", None)
    if send_many is not None:
        await send_many(frames)
        return
    for group, event in frames:
        await layer.group_send(group, event)


# The channel each event loop's round trips use (one, not one per check: the Redis layer
# subscribes to a channel until a receive of it is cancelled)
_round_trip_channels: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, str] = (
    weakref.WeakKeyDictionary()
)


async def layer_round_trip() -> bool:
    """Whether a message sent to this process's own channel comes back through the layer
    (the readiness check, ddz_site/health.py); False when no layer is configured."""
    layer = get_channel_layer()
    if layer is None:
        return False
    loop = asyncio.get_running_loop()
    name = _round_trip_channels.get(loop)
    if name is None:
        name = _round_trip_channels[loop] = await layer.new_channel("ddz-ready.")
    token = f"{time.monotonic_ns()}"
    await layer.send(name, {"type": "ddz.ready", "token": token})
    try:
        while (await layer.receive(name)).get("token") != token:
            pass  # an earlier check's message that came back late
    except BaseException:
        _round_trip_channels.pop(loop, None)  # a cancelled receive gives its channel up
        raise
    return True


# When the player's action behind a push arrived (epoch seconds): the metrics time its commit
# and its push from it (site_kit/metrics.py), and with DDZ_LATENCY_LOG its frames carry it to
# the sockets that write them (games/live/latency.py).
action_started: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "action_started", default=None
)


def send_frames(frames: Sequence[Frame]) -> None:
    """Every frame of one push, in order. With the server's loop running, the frames are handed
    to it and this thread goes on (a service's database thread does not wait for the sockets);
    without one (a command, a plain test) they are sent before this returns."""
    layer = get_channel_layer()
    if layer is None or not frames:
        return
    started = action_started.get()
    if started is not None and settings.DDZ_LATENCY_LOG:
        frames = [stamped(frame, started) for frame in frames]
    messages = [to_message(frame) for frame in frames]
    loop = _server_loop
    if loop is not None and loop.is_running():
        loop.call_soon_threadsafe(_post, loop, layer, messages, started)
        return
    try:
        async_to_sync(_send_all)(layer, messages)
    except Exception:
        metrics.CHANNEL_LAYER_ERRORS.inc()
        raise
    _pushed(started)


def _pushed(started: float | None) -> None:
    if started is not None:
        metrics.ACTION_PUSH_SECONDS.observe(time.time() - started)


class _Queue:
    """The pushes handed to one loop, sent one after the other in the order they were made: a
    socket's frames never overtake each other."""

    def __init__(self) -> None:
        self.pushes: deque[tuple[Any, list[tuple[str, dict[str, Any]]], float | None]] = deque()
        self.sender: asyncio.Task[None] | None = None


_queues: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Queue] = weakref.WeakKeyDictionary()


def _post(
    loop: asyncio.AbstractEventLoop,
    layer: Any,
    frames: list[tuple[str, Any]],
    started: float | None,
) -> None:
    # runs on the loop (so does the sender): no lock is needed
    box = _queues.get(loop)
    if box is None:
        box = _queues[loop] = _Queue()
    box.pushes.append((layer, frames, started))
    if box.sender is None:
        box.sender = loop.create_task(_drain(box))


async def _drain(box: _Queue) -> None:
    try:
        while box.pushes:
            layer, frames, started = box.pushes.popleft()
            try:
                await _send_all(layer, frames)
            except Exception:  # one failed push must not stop the others
                metrics.CHANNEL_LAYER_ERRORS.inc()
                logger.exception("a push to %s failed", frames[0][0])
            else:
                _pushed(started)
    finally:
        box.sender = None


_coalescing: set[int] = set()
_coalescing_lock = threading.Lock()
_coalesced_tasks: set[asyncio.Task[None]] = set()


async def drained() -> None:
    """Return once every push handed to the running loop so far has gone to the channel layer:
    the coalesced pushes scheduled (each runs in the database thread, and may make more), then
    the queue of frames. What waits for it: a test before it says that nothing more is coming."""
    loop = asyncio.get_running_loop()
    while True:
        scheduled = [task for task in _coalesced_tasks if task.get_loop() is loop]
        sender = box.sender if (box := _queues.get(loop)) is not None else None
        if not scheduled and sender is None:
            return
        await asyncio.gather(*scheduled, *([sender] if sender else []), return_exceptions=True)


def push_coalesced(table_id: int, push: Callable[[], None]) -> None:
    """Run ``push`` (a push of whatever state the table has when it runs) in the database
    thread after the work already queued there, once for all the calls made for the table
    until it starts. Without the server's loop (a command, a test's own thread) it runs now.

    On a quiet server it runs at once. When every tab of a club reconnects after a restart,
    the seats of a table come on line one after the other, each queued behind the connects of
    the other tables: their pushes become one, which shows every seat that came back."""
    loop = _server_loop
    if loop is None or not loop.is_running():
        push()
        return
    with _coalescing_lock:
        if table_id in _coalescing:
            return
        _coalescing.add(table_id)

    def started() -> None:
        with _coalescing_lock:
            _coalescing.discard(table_id)
        push()

    def schedule() -> None:
        task = loop.create_task(database_sync_to_async(started)())
        _coalesced_tasks.add(task)  # the loop keeps only a weak reference to a task
        task.add_done_callback(_coalesced_tasks.discard)

    # a context of its own: the calling thread's would tell asgiref that this task runs inside
    # the database thread, which it then refuses to queue work for
    loop.call_soon_threadsafe(schedule, context=contextvars.Context())
