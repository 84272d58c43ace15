"""Push a table's new state to everyone watching it, each audience its own rendering.

Groups (names: ASCII, dots, under 100 characters):
  ``table.<id>.user.<uid>``  every socket of that user at that table: his seat's own regions
                             (hand, controls, result, rendered from ``view_for``), him alone.
  ``table.<id>.public``      every socket at the table, seated ones included: the shared regions
                             (status, seats, trick), rendered once per language read at the table
                             from ``public_view``, and a spectator's own regions, which a seated
                             user's socket leaves out (the event names the seated users). A
                             move's push carries only the seat panels it changed, each swapped
                             in by id (decided from the public views before and after it).
A seat's hidden cards never travel through the shared group, and a seat group can never reach
the next occupant of that seat. A seat is sent its own regions only when they changed (decided
from the state before and after the push, from what that seat may know alone), so how many
frames it gets tells it nothing of the others; every socket gets the one public frame.

Every state frame starts with ``frame_header``: the table's version, and whether it is a full
screen (a connect's or a resync's, every region) or a push (``part``: the public frame or a
seat's own). The page takes a push of the version it shows or the next one, so a version's two
frames in either order; a push further ahead means one was lost (a full queue drops a
message), and the page asks for a resync instead (static/games/reconnect.js). A lost own frame
makes no gap: a seated socket's copy of the public frame says whether one of its version was
sent before it (``mark_own``), and the page that has none asks for a resync too. A sealed
step's decisions move no table version: a decider's own frames inside it keep the step's,
which is no gap.

Called after commit only (``transaction.on_commit`` in games/services.py).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
import weakref
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings

from games.models import Hand, Table
from games.reads import selectors
from games.table.hooks import hooks

if TYPE_CHECKING:
    from games.screen.rendering import TableSnapshot

logger = logging.getLogger(__name__)

EVENT_TYPE = "table.html"

_loop_lock = threading.Lock()
_server_loop: asyncio.AbstractEventLoop | None = None


def public_group(table_id: int) -> str:
    return f"table.{int(table_id)}.public"


def user_group(table_id: int, user_id: int) -> str:
    return f"table.{int(table_id)}.user.{int(user_id)}"


def remember_server_loop(loop: asyncio.AbstractEventLoop) -> None:
    """The consumers' event loop: the in-memory channel layer must be used from it, so pushes
    from a plain thread (the in-process deadline runner) are handed over to it."""
    global _server_loop
    with _loop_lock:
        _server_loop = loop


PUBLIC = "public"
OWN = "seat"


def frame_header(*, version: int, full: bool, part: str = PUBLIC) -> str:
    extra = "" if full else f' data-part="{part}"'
    return (
        f'<div id="table-frame" hidden data-version="{int(version)}"'
        f' data-full="{1 if full else 0}"{extra}></div>'
    )


def render_for(
    *, table: Table, hand: Hand | None, seat_index: int | None, user: Any, language: str
) -> str:
    """All screen regions of ``table`` for one audience (``seat_index`` None: spectators), in
    the language its pushes use: a seat its player's stored one, a spectator ``language``."""
    from games.screen.rendering import render_screen

    html = render_screen(
        table=table, hand=hand, seat_index=seat_index, user=user, language=language
    )
    return frame_header(version=table.version, full=True) + html


def render_error(*, message: str) -> str:
    from games.screen.rendering import render_error as render

    return render(message=message)


def audience_frames(
    table_id: int,
    *,
    known: TableSnapshot | None = None,
    only_seats: tuple[int, ...] | None = None,
    every_seat: bool = False,
) -> list[tuple[str, dict[str, Any]]]:
    """(group, event) of one push of the table's current state: read from the database, or
    ``known`` (what the service that just committed it holds). The seats' own frames come
    first, the public frame last, so a socket has its seat's regions of a version by the time
    that version's shared ones arrive. ``only_seats``: the own regions of these seats' players
    alone (a sealed step's deciders: nothing public moved). ``every_seat``: every seat is sent
    its own regions, changed or not (what rides in the same frames changed for everyone)."""
    from games.screen.rendering import render_push, table_snapshot

    if known is None:
        table = selectors.table_get(table_id=table_id)
        if table is None:
            return []
        hand = selectors.table_current_hand(table=table)
        known = table_snapshot(table=table, hand=hand)
    table = known.table
    seated = [
        s
        for s in known.seats
        if s.user_id is not None
        and not (s.is_bot or s.user.is_bot)  # no socket reads a bot's regions
        and (only_seats is None or s.index in only_seats)
    ]
    # Read after the table: a spectator who arrives later reads a state at least as new on
    # connecting.
    players, spectators = hooks.push_languages(
        table_id=table.pk, seated_user_ids=[s.user_id for s in seated]
    )
    spoken = {s.user_id: players.get(s.user_id) or settings.LANGUAGE_CODE for s in seated}
    public = only_seats is None
    push = render_push(
        snapshot=known,
        players=[(s.index, s.user, spoken[s.user_id]) for s in seated],
        languages=spoken.values() if public else (),
        watcher_languages=spectators if public else (),
        every_seat=every_seat or not public,
    )
    frames: list[tuple[str, dict[str, Any]]] = []
    own_header = frame_header(version=table.version, full=False, part=OWN)
    own_sent: list[str] = []
    for seat in seated:
        html = push.own.get(seat.index)
        if html is None:
            continue
        own_sent.append(str(seat.user_id))
        # the language it was rendered in: what rides in the same frame (games.services.private's
        # #table-club) is rendered in it too
        event = {"type": EVENT_TYPE, "html": own_header + html, "language": spoken[seat.user_id]}
        frames.append((user_group(table.pk, seat.user_id), event))
    if not public or not push.shared:  # nobody at the table reads it
        return frames
    header = frame_header(version=table.version, full=False)
    by_language = {language: header + html for language, html in push.shared.items()}
    frames.append(
        (
            public_group(table.pk),
            {
                "type": EVENT_TYPE,
                "html": by_language.get(settings.LANGUAGE_CODE, next(iter(by_language.values()))),
                "html_by_language": by_language,
                # a spectator's own regions, after the shared ones: seated users leave them out
                "watcher_by_language": push.watcher,
                # the language each seated user's own regions are rendered in (string keys: the
                # Redis layer's msgpack refuses others)
                "seated_languages": {str(uid): language for uid, language in spoken.items()},
                # who was sent his own frame of this version just before: his socket's copy
                # of the public frame says so (``mark_own``), so the page can tell it was lost
                "own_sent": own_sent,
            },
        )
    )
    return frames


def mark_own(html: str, *, sent: bool) -> str:
    """A seated socket's copy of a public frame, marked with whether an own frame of the same
    version went to his user before it: a lost own frame shows at no version, so the page
    compares the versions of the two (static/games/reconnect.js). Only that socket reads the
    mark, and it is about his own regions."""
    public = f'data-part="{PUBLIC}"'
    return html.replace(public, f'{public} data-own="{1 if sent else 0}"', 1)


async def _send_all(layer: Any, frames: list[tuple[str, dict[str, Any]]]) -> None:
    # in order: a socket in two groups (its user's and the public one) gets its seat's frame
    # of a version before that version's public one. Both of the project's layers send a
    # whole push at once (ddz_site/layers.py).
    await layer.group_send_many(frames)


def _send(group: str, event: dict[str, Any]) -> None:
    """One frame to one group (other modules' pushes)."""
    send_frames([(group, event)])


def send_frames(frames: list[tuple[str, dict[str, Any]]]) -> None:
    """Every frame of one push, in order. With the server's loop running, the frames are handed
    to it and this thread goes on (a service's database thread does not wait for the sockets);
    without one (a command, a plain test) they are sent before this returns."""
    layer = get_channel_layer()
    if layer is None or not frames:
        return
    loop = _server_loop
    if loop is not None and loop.is_running():
        loop.call_soon_threadsafe(_post, loop, layer, frames)
        return
    async_to_sync(_send_all)(layer, frames)


class _Outbox:
    """The pushes handed to one loop, sent one after the other in the order they were made: a
    socket's frames never overtake each other."""

    def __init__(self) -> None:
        self.pushes: deque[tuple[Any, list[tuple[str, dict[str, Any]]]]] = deque()
        self.sender: asyncio.Task[None] | None = None


_outboxes: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Outbox] = (
    weakref.WeakKeyDictionary()
)


def _post(loop: asyncio.AbstractEventLoop, layer: Any, frames: list[tuple[str, Any]]) -> None:
    # runs on the loop (so does the sender): no lock is needed
    box = _outboxes.get(loop)
    if box is None:
        box = _outboxes[loop] = _Outbox()
    box.pushes.append((layer, frames))
    if box.sender is None:
        box.sender = loop.create_task(_drain(box))


async def _drain(box: _Outbox) -> None:
    try:
        while box.pushes:
            layer, frames = box.pushes.popleft()
            try:
                await _send_all(layer, frames)
            except Exception:  # one failed push must not stop the others
                logger.exception("a push to %s failed", frames[0][0])
    finally:
        box.sender = None


_coalescing: set[int] = set()
_coalescing_lock = threading.Lock()
_coalesced_tasks: set[asyncio.Task[None]] = set()


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


def table_changed(
    table_id: int,
    *,
    known: TableSnapshot | None = None,
    only_seats: tuple[int, ...] | None = None,
) -> None:
    """Render and send the table's state to each audience, or to the players of
    ``only_seats`` alone (after commit)."""
    send_frames(audience_frames(table_id, known=known, only_seats=only_seats))
