"""The one owner of the push: after a write commits, its outbox (games/push/outbox.py) becomes
one push per table it touched.

``merge`` folds a table's events in the order they were recorded; ``deliver`` reads what the
screens need once (a snapshot, games/reads/snapshot.py: from what the service handed over, or
read whole), renders it through the screen modules, assembles each audience's frames and
sends them; the outbox's bulletins (what is no table state) follow, each rendered in every
language (``announce`` records one, outside a write too). A push never fails the write it
follows: an error is logged, and the pages heal by the next push or a resync.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field, replace
from functools import partial

from django.conf import settings
from django.db import transaction
from django.utils import translation

from games.models import Table
from games.push import frames, outbox, send
from games.push.outbox import (
    Bulletin,
    Event,
    Notice,
    Outbox,
    SessionChanged,
    TableMoved,
    WatchersClosed,
    Written,
)
from games.reads.snapshot import TableSnapshot, table_snapshot, table_snapshot_read
from games.screen.notices import render_notice
from site_kit import metrics

logger = logging.getLogger(__name__)


@dataclass
class TablePush:
    """One table's events of one write, merged."""

    table_id: int
    # a state push is due (its state changed, a notice, the session region)
    due: bool = False
    # what the service handed over; None: the push reads the table whole
    written: Written | None = None
    # the own regions of these seats' players alone (a sealed step's deciders); None: everyone
    deciders: tuple[int, ...] | None = None
    # only seats went on or off line: the push may be one with others waiting to run
    presence: bool = True
    notices: list[Notice] = field(default_factory=list)
    session: bool = False
    # users whose sockets stay when the host stops spectators; None: nobody is closed
    keep: tuple[int, ...] | None = None


def merge(events: list[Event]) -> list[TablePush]:
    """One push per table, in the order the tables were first touched. The last event decides
    what was handed over: a later event that hands nothing over has the push read the table
    whole, and a state handed over after earlier events of the table loses its state before
    (the write's first change is unknown to it, so every seat is sent its own regions)."""
    pushes: dict[int, TablePush] = {}
    for event in events:
        if isinstance(event, Bulletin):  # no table state: sent on its own
            continue
        push = pushes.get(event.table_id)
        first = push is None
        if push is None:
            push = pushes[event.table_id] = TablePush(event.table_id)
        if isinstance(event, WatchersClosed):
            push.keep = event.keep
            continue
        written = event.written if isinstance(event, TableMoved) else None
        if written is not None and not first:
            written = replace(written, before=None)
        push.written = written
        if isinstance(event, TableMoved):
            if event.deciders is None or (push.due and push.deciders is None):
                push.deciders = None
            else:
                push.deciders = tuple(sorted({*(push.deciders or ()), *event.deciders}))
            push.presence = push.presence and event.presence
        else:
            push.deciders = None
            push.presence = False
            if isinstance(event, Notice):
                push.notices.append(event)
            elif isinstance(event, SessionChanged):
                push.session = True
        push.due = True
    return list(pushes.values())


def deliver(box: Outbox) -> None:
    """Push what the committed write's outbox recorded."""
    started = send.action_started.get()
    if started is not None:  # a player's action just committed
        metrics.ACTION_COMMIT_SECONDS.observe(time.time() - started)
    for push in merge(box.events):
        try:
            if push.keep is not None:
                keep = frozenset(push.keep)
                send.send_frames([frames.CloseWatchers(table_id=push.table_id, keep=keep)])
            if not push.due:
                continue
            if push.presence and push.written is None:
                send.push_coalesced(push.table_id, partial(_push_table, push))
            else:
                _push_table(push)
        except Exception:  # a failed push must never undo or fail a committed write
            logger.exception("push of table %s failed", push.table_id)
    for event in box.events:
        if isinstance(event, Bulletin):
            try:
                send.send_frames([_bulletin_frame(event)])
            except Exception:
                logger.exception("push to %s failed", event.group)


def announce(bulletin: Bulletin) -> None:
    """Record ``bulletin`` in the write being made; outside one, push it after the commit of
    the transaction around this (at once in autocommit)."""
    box = outbox.recording()
    if box is not None:
        box.record(bulletin)
        return
    transaction.on_commit(lambda: deliver(outbox.Outbox(events=[bulletin])))


def _bulletin_frame(bulletin: Bulletin) -> frames.BulletinFrame:
    """The bulletin in every site language: each socket sends its reader's, whoever's action
    caused it."""
    by_language = {}
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            by_language[code] = bulletin.render()
    return frames.BulletinFrame(
        group=bulletin.group,
        html_by_language=by_language,
        skip_users=frozenset(bulletin.skip_users),
    )


def _push_table(push: TablePush) -> None:
    snapshot = _snapshot(push)
    if snapshot is None:  # the table is gone
        return
    session = push.session or snapshot.table.status == Table.Status.WAITING
    if not push.notices and not session:
        send.send_frames(frames.audience_frames(snapshot, only_seats=push.deciders))
        return
    # what rides in the same frames changed for everyone: every seat gets its own regions
    out = frames.audience_frames(snapshot, every_seat=True)
    notices = [render_notice(n.key, n.params) for n in push.notices]
    send.send_frames(frames.with_session(snapshot, out, notices=notices, session=session))


def _snapshot(push: TablePush) -> TableSnapshot | None:
    written = push.written
    if written is None:
        return table_snapshot_read(table_id=push.table_id)
    return table_snapshot(
        table=written.table,
        hand=written.hand,
        seats=written.seats,
        holders=written.holders,
        state=written.state,
        before=written.before,
    )
