"""The frames of a push: a table's new state for everyone watching it, each audience its own
rendering.

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

Assembled after commit only (games/push/deliver.py), or for one socket's full screen.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils import translation

from games.models import Hand
from games.reads import selectors
from games.reads.private import session_facts
from games.reads.snapshot import TableSnapshot, table_snapshot_read
from games.screen.regions import render_error, render_push, render_screen
from games.screen.session import render_session
from games.table.errors import ActionRejected, ErrorCode
from games.table.hooks import hooks

EVENT_TYPE = "table.html"


def public_group(table_id: int) -> str:
    return f"table.{int(table_id)}.public"


def user_group(table_id: int, user_id: int) -> str:
    return f"table.{int(table_id)}.user.{int(user_id)}"


PUBLIC = "public"
OWN = "seat"


def frame_header(*, version: int, full: bool, part: str = PUBLIC) -> str:
    extra = "" if full else f' data-part="{part}"'
    return (
        f'<div id="table-frame" hidden data-version="{int(version)}"'
        f' data-full="{1 if full else 0}"{extra}></div>'
    )


def full_frame(*, table_id: int, user: Any, language: str) -> str:
    """Every region of the table's current state for one socket (a connect's or a resync's
    screen): its seat's if its user holds one, in his stored language, else a spectator's in
    ``language``. ActionRejected (TABLE_NOT_FOUND) when there is no such table."""
    snapshot = table_snapshot_read(table_id=table_id)
    if snapshot is None:
        raise ActionRejected.of(ErrorCode.TABLE_NOT_FOUND)
    seat = next((s for s in snapshot.seats if user is not None and s.user_id == user.pk), None)
    if seat is not None:
        language = selectors.stored_language(user=user)
    html = render_screen(
        snapshot=snapshot,
        seat_index=seat.index if seat is not None else None,
        user=user,
        language=language or settings.LANGUAGE_CODE,
    )
    return frame_header(version=snapshot.table.version, full=True) + html


def error_frame(*, message: str) -> str:
    """The #table-error partial, sent to the sender only."""
    return render_error(message=message)


def audience_frames(
    snapshot: TableSnapshot,
    *,
    only_seats: tuple[int, ...] | None = None,
    every_seat: bool = False,
) -> list[tuple[str, dict[str, Any]]]:
    """(group, event) of one push of ``snapshot``. The seats' own frames come
    first, the public frame last, so a socket has its seat's regions of a version by the time
    that version's shared ones arrive. ``only_seats``: the own regions of these seats' players
    alone (a sealed step's deciders: nothing public moved). ``every_seat``: every seat is sent
    its own regions, changed or not (what rides in the same frames changed for everyone)."""
    table = snapshot.table
    seated = [
        s
        for s in snapshot.seats
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
        snapshot=snapshot,
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
        # the language it was rendered in: what rides in the same frame (#table-session,
        # ``with_session``) is rendered in it too
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


def with_session(
    snapshot: TableSnapshot,
    frames: list[tuple[str, dict[str, Any]]],
    *,
    notices: list[str],
    session: bool,
) -> list[tuple[str, dict[str, Any]]]:
    """The push's frames (``audience_frames`` with ``every_seat``) with the notices appended to
    the public frame's shared regions (everyone's) and, with ``session``, #table-session
    rendered for each audience: a seat's in its own frame, a spectator's (for nobody, so never
    an invite code) in the public frame's spectator part."""
    table = snapshot.table
    hand = snapshot.hand
    hand_over = hand is None or hand.status != Hand.Status.ACTIVE
    facts = session_facts(table=table, seats=snapshot.seats) if session else None
    users = {s.user_id: s.user for s in snapshot.seats if s.user_id}
    tail = "".join(notices)

    def region(user: Any, language: str | None) -> str:
        if not session:
            return ""
        with translation.override(language or settings.LANGUAGE_CODE):
            return render_session(table=table, user=user, hand_over=hand_over, facts=facts)

    out = []
    for group, event in frames:
        # each rendering in the language of the regions it joins (a seat frame's reader's, a
        # public frame's one per language), never that of whoever caused the push
        if group != public_group(table.pk):
            user = users.get(int(group.rsplit(".", 1)[-1]))
            html = event.get("html", "") + region(user, event.get("language"))
            out.append((group, {**event, "html": html}))
            continue
        extended = {**event, "html": event.get("html", "") + tail}
        extended["html_by_language"] = {
            language: html + tail for language, html in event["html_by_language"].items()
        }
        extended["watcher_by_language"] = {
            language: html + region(None, language)
            for language, html in event["watcher_by_language"].items()
        }
        out.append((group, extended))
    return out


def close_watchers_frame(table_id: int, *, keep: tuple[int, ...]) -> tuple[str, dict[str, Any]]:
    """Every socket of the table but those of ``keep``'s users closes (the host stopped
    spectators)."""
    return public_group(table_id), {"type": "table.close_watchers", "skip_users": list(keep)}
