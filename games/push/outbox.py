"""What one write changed, recorded as plain events, pushed once after its commit.

A service records events in the outbox of the write it makes (``collecting``: the outermost
``services.base.write`` opens one, nested writes add to it, a write that fails takes its own
events back); nothing in a service renders or sends. When the write's transaction commits, the
push (games/push/deliver.py) merges the events of each table into one push: one version step,
one frame per audience, the notices and the session region inside it.

Events:
  ``TableMoved``      the table's state changed; ``written``: what the service holds of it (the
                      push then reads only what it lacks), ``deciders``: a sealed step's deciders
                      alone are sent their own regions, ``presence``: only seats went on or off
                      line (the push may join the others of the table waiting to run);
  ``Notice``          a notice to everyone at the table (games/screen/notices.py), rendered in
                      every language by the push;
  ``SessionChanged``  the #table-session region changed mid-hand (a host's or a player's
                      request);
  ``WatchersClosed``  the host stopped spectators: every socket but ``keep``'s users closes;
  ``Bulletin``        what is no table state, for everyone in a group (a chat bubble, the
                      spectator count, an event page's regions), rendered by the push in every
                      language (``games.push.deliver.announce`` records one outside a write too).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction

from games.engine.state import HandState


@dataclass(frozen=True)
class Written:
    """A table as its service has just written it: the table and hand rows, the seats with
    their users, who held each seat of the hand, the hand's state, and its state before the
    write (a push then sends a seat its own regions only when they changed)."""

    table: Any
    hand: Any
    seats: list[Any]
    holders: dict[int, int | None] | None
    state: HandState
    before: HandState | None


@dataclass(frozen=True)
class TableMoved:
    table_id: int
    written: Written | None = None
    deciders: tuple[int, ...] | None = None
    presence: bool = False


@dataclass(frozen=True)
class Notice:
    table_id: int
    key: str
    params: dict[str, Any]


@dataclass(frozen=True)
class SessionChanged:
    table_id: int


@dataclass(frozen=True)
class WatchersClosed:
    table_id: int
    keep: tuple[int, ...]


@dataclass(frozen=True)
class Bulletin:
    """``render`` (the reader's language active) shown to the sockets of ``group``
    (games.push.frames: a table's public group, a page's) but those of ``skip_users``."""

    group: str
    render: Callable[[], str]
    skip_users: tuple[int, ...] = ()


Event = TableMoved | Notice | SessionChanged | WatchersClosed | Bulletin


@dataclass
class Outbox:
    """The events of one write, in the order they were recorded, and the version it has
    stepped each table to (one step per write, however many of its parts change the table: a
    page takes only the version after the one it shows)."""

    events: list[Event] = field(default_factory=list)
    stepped: dict[int, int] = field(default_factory=dict)

    def record(self, event: Event) -> None:
        self.events.append(event)


_local = threading.local()


def recording() -> Outbox | None:
    """The outbox of the write being made in this thread; None outside a write."""
    return getattr(_local, "box", None)


def current() -> Outbox:
    """The outbox of the write being made in this thread."""
    box = recording()
    if box is None:
        raise RuntimeError("a push is recorded inside a write (games.services.base.write)")
    return box


@contextmanager
def collecting(deliver: Callable[[Outbox], None]) -> Iterator[Outbox]:
    """The outbox of a write: the outermost opens it and hands it to ``deliver`` after its
    transaction commits (at once when it ran in autocommit; at the commit of a transaction
    around it otherwise); a nested write adds to it, and takes its events back if it fails."""
    box: Outbox | None = getattr(_local, "box", None)
    if box is not None:
        mark = len(box.events)
        try:
            yield box
        except BaseException:
            del box.events[mark:]
            raise
        return
    box = _local.box = Outbox()
    try:
        yield box
    finally:
        _local.box = None
    if box.events:
        transaction.on_commit(lambda: deliver(box))


def table_moved(
    table_id: int,
    *,
    written: Written | None = None,
    deciders: tuple[int, ...] | None = None,
    presence: bool = False,
) -> None:
    current().record(TableMoved(table_id, written=written, deciders=deciders, presence=presence))


def notify(table_id: int, key: str, **params: Any) -> None:
    """A notice to the table, inside its next push (it rides in the same frame as the regions:
    one push, one frame per audience)."""
    current().record(Notice(table_id, key, params))


def session_changed(table_id: int) -> None:
    """Include #table-session in this write's push even mid-hand."""
    current().record(SessionChanged(table_id))


def watchers_closed(table_id: int, *, keep: tuple[int, ...]) -> None:
    current().record(WatchersClosed(table_id, keep))
