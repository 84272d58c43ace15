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

A frame is a frozen value, one class per audience (``SeatFrame``, ``PublicFrame``, and
``BulletinFrame`` for what is no table state: a chat bubble, the spectator count, an event
page's regions; ``CloseWatchers``), assembled here and turned into the channel layer's message
and back by one pair of functions (``to_message``, ``from_message``); the consumer asks it for
its reader's rendering (``text_for``).

Assembled after commit only (games/push/deliver.py), or for one socket's full screen.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar

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


def public_group(table_id: int) -> str:
    return f"table.{int(table_id)}.public"


def user_group(table_id: int, user_id: int) -> str:
    return f"table.{int(table_id)}.user.{int(user_id)}"


def page_group(page: str, page_id: int, user_id: int | None = None) -> str:
    """The sockets of one page (``page``: which kind, ``event`` for an event page), or of one
    user on it."""
    name = f"{page}-{int(page_id)}"
    return name if user_id is None else f"{name}-user-{int(user_id)}"


PUBLIC = "public"
OWN = "seat"


def _in_language(by_language: Mapping[str, str], language: str) -> str:
    """The rendering in ``language``, else in the club's, else any."""
    html = by_language.get(language) or by_language.get(settings.LANGUAGE_CODE)
    return html if html is not None else next(iter(by_language.values()), "")


@dataclass(frozen=True, kw_only=True)
class SeatFrame:
    """A seat's own regions (hand, controls, result, from ``view_for``), to its user's
    sockets at the table alone, in the language they were rendered in (what rides in the same
    frame, ``with_session``, is rendered in it too)."""

    KIND: ClassVar[str] = "seat"
    table_id: int
    user_id: int
    language: str
    html: str
    # when the player's action behind it arrived (DDZ_LATENCY_LOG, games/live/latency.py)
    started: float | None = None

    @property
    def group(self) -> str:
        return user_group(self.table_id, self.user_id)

    def text_for(self, *, user_id: int, language: str) -> str | None:
        return self.html


@dataclass(frozen=True, kw_only=True)
class PublicFrame:
    """The shared regions (status, seats, trick, from ``public_view``) once per language read
    at the table, to every socket there, seated ones included, and a spectator's own regions,
    which a seated user's socket leaves out."""

    KIND: ClassVar[str] = "public"
    table_id: int
    html_by_language: Mapping[str, str]
    # a spectator's own regions per language, after the shared ones
    watcher_by_language: Mapping[str, str]
    # the language each seated user's own regions are rendered in: his shared ones follow it
    seated_languages: Mapping[int, str]
    # who was sent his own frame of this version just before (``mark_own``)
    own_sent: frozenset[int]
    started: float | None = None

    @property
    def group(self) -> str:
        return public_group(self.table_id)

    def text_for(self, *, user_id: int, language: str) -> str | None:
        """A seated user's copy in his seat's language, marked with whether his own frame went
        before it; a spectator's in his socket's, followed by a spectator's own regions."""
        seat_language = self.seated_languages.get(user_id)
        language = seat_language or language
        if language not in self.html_by_language:
            language = settings.LANGUAGE_CODE
        html = _in_language(self.html_by_language, language)
        if seat_language is not None:
            return mark_own(html, sent=user_id in self.own_sent)
        if self.watcher_by_language:
            html += _in_language(self.watcher_by_language, language)
        return html


@dataclass(frozen=True, kw_only=True)
class BulletinFrame:
    """What is no table state, the same for everyone in a group but ``skip_users``, in each
    reader's language: a chat bubble, the spectator count, an event page's regions."""

    KIND: ClassVar[str] = "bulletin"
    group: str
    html_by_language: Mapping[str, str]
    skip_users: frozenset[int] = frozenset()
    started: float | None = None

    def text_for(self, *, user_id: int | None, language: str) -> str | None:
        if user_id in self.skip_users:
            return None
        return _in_language(self.html_by_language, language)


@dataclass(frozen=True, kw_only=True)
class CloseWatchers:
    """Every socket of the table but those of ``keep``'s users closes (the host stopped
    spectators)."""

    KIND: ClassVar[str] = "close_watchers"
    table_id: int
    keep: frozenset[int]
    started: float | None = None

    @property
    def group(self) -> str:
        return public_group(self.table_id)


Frame = SeatFrame | PublicFrame | BulletinFrame | CloseWatchers
_KINDS: dict[str, type[Frame]] = {
    kind.KIND: kind for kind in (SeatFrame, PublicFrame, BulletinFrame, CloseWatchers)
}
# the channel-layer event each frame is handled by: ``frame.html`` by ``frame_html`` (a page),
# ``frame.close`` by ``frame_close`` (docs/conventions.md §4)
HTML_EVENT = "frame.html"
CLOSE_EVENT = "frame.close"


def to_message(frame: Frame) -> tuple[str, dict[str, Any]]:
    """(group, message) of ``frame`` for the channel layer: plain types only, mappings keyed by
    strings (the Redis layer's msgpack refuses others), sets as sorted lists."""
    message: dict[str, Any] = {
        "type": CLOSE_EVENT if isinstance(frame, CloseWatchers) else HTML_EVENT,
        "frame": frame.KIND,
    }
    for item in fields(frame):
        value = getattr(frame, item.name)
        if isinstance(value, frozenset):
            value = sorted(value)
        elif isinstance(value, Mapping):
            value = {str(key): text for key, text in value.items()}
        message[item.name] = value
    return frame.group, message


def from_message(message: Mapping[str, Any]) -> Frame:
    """The frame ``to_message`` made ``message`` of."""
    kind = _KINDS[message["frame"]]
    values: dict[str, Any] = {}
    for item in fields(kind):
        if item.name not in message:
            continue
        value = message[item.name]
        if item.type == "frozenset[int]":
            value = frozenset(value)
        elif item.type == "Mapping[int, str]":
            value = {int(key): text for key, text in value.items()}
        values[item.name] = value
    return kind(**values)


def stamped(frame: Frame, started: float) -> Frame:
    return replace(frame, started=started)


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
) -> list[SeatFrame | PublicFrame]:
    """The frames of one push of ``snapshot``. The seats' own frames come first, the public
    frame last, so a socket has its seat's regions of a version by the time that version's
    shared ones arrive. ``only_seats``: the own regions of these seats' players alone (a sealed
    step's deciders: nothing public moved). ``every_seat``: every seat is sent its own
    regions, changed or not (what rides in the same frames changed for everyone)."""
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
    frames: list[SeatFrame | PublicFrame] = []
    own_header = frame_header(version=table.version, full=False, part=OWN)
    for seat in seated:
        html = push.own.get(seat.index)
        if html is not None:
            frames.append(
                SeatFrame(
                    table_id=table.pk,
                    user_id=seat.user_id,
                    language=spoken[seat.user_id],
                    html=own_header + html,
                )
            )
    if not public or not push.shared:  # nobody at the table reads it
        return frames
    header = frame_header(version=table.version, full=False)
    frames.append(
        PublicFrame(
            table_id=table.pk,
            html_by_language={language: header + html for language, html in push.shared.items()},
            watcher_by_language=push.watcher,
            seated_languages=spoken,
            own_sent=frozenset(f.user_id for f in frames if isinstance(f, SeatFrame)),
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
    frames: list[SeatFrame | PublicFrame],
    *,
    notices: list[str],
    session: bool,
) -> list[SeatFrame | PublicFrame]:
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

    def region(user: Any, language: str) -> str:
        if not session:
            return ""
        with translation.override(language):
            return render_session(table=table, user=user, hand_over=hand_over, facts=facts)

    # each rendering in the language of the regions it joins (a seat frame's reader's, a
    # public frame's one per language), never that of whoever caused the push
    return [
        replace(frame, html=frame.html + region(users.get(frame.user_id), frame.language))
        if isinstance(frame, SeatFrame)
        else replace(
            frame,
            html_by_language={
                language: html + tail for language, html in frame.html_by_language.items()
            },
            watcher_by_language={
                language: html + region(None, language)
                for language, html in frame.watcher_by_language.items()
            },
        )
        for frame in frames
    ]
