"""Helpers of the table and hand tests: rooms, players and seated tables, whole hands played
through the services, sockets over channels' communicator, and the page model the socket tests
hold a screen in (regions swapped in by id, as htmx does)."""

from __future__ import annotations

import itertools
import json
import re
import threading
from dataclasses import replace
from html.parser import HTMLParser
from typing import Any

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection

from accounts.models import User
from games import services
from games.engine.hand import autoplay_action, legal_actions, waiting_seats
from games.models import Hand, Room, Seat, Table
from games.push import frames, send
from games.reads import selectors
from games.reads.selectors import hand_state
from games.reads.snapshot import table_snapshot, table_snapshot_read
from games.runner.deadlines import hand_apply_due_deadlines
from games.screen.regions import render_screen
from site_kit.append_only import trigger_sql

_room_names = itertools.count(1)

BEANS = 1_000_000


def ensure_triggers() -> None:
    if connection.vendor != "sqlite":
        return
    with connection.cursor() as cursor:
        for _table, sql in trigger_sql():
            for statement in sql.SQLITE_CREATE:
                cursor.execute(statement)


def make_room(variant: str = "classic3", **fields: Any) -> Room:
    fields.setdefault("name", f"room {variant} {next(_room_names)}")
    # a simultaneous step closes as soon as all have decided, as the loops here expect; the
    # shortest step's time has tests of its own (tests/games/push/test_sealed_steps.py)
    fields.setdefault("step_min_seconds", 0)
    return services.room_create(variant=variant, **fields)


def make_player(name: str | None = None, *, beans: int = BEANS) -> User:
    from accounts.services import beans_grant

    user = User.objects.create_user(
        username=name or f"p{next(_room_names)}", password="pass-word-123"
    )
    if beans:
        beans_grant(user=user, amount=beans)
    return user


def seated_table(room: Room, humans: list[User], *, bots: int | None = None) -> Table:
    """A table of ``room`` with ``humans`` on seats 0.. and bots on the rest."""
    table = services.table_create(room=room)
    for user in humans:
        services.table_join(table_id=table.pk, user=user)
    services.table_fill_with_bots(table_id=table.pk)
    return table


def active_hand(table: Table | int) -> Hand | None:
    table_id = table if isinstance(table, int) else table.pk
    return Hand.objects.filter(table_id=table_id, status=Hand.Status.ACTIVE).first()


def client_action(state: Any, seat: int) -> dict[str, Any]:
    """The 托管 choice of ``seat`` as a client would send it (no seat)."""
    action = autoplay_action(state, seat)
    if action.act == "bid":  # 托管 never bids; bid the most so classic3 deals are played
        action = max(
            (a for a in legal_actions(state, seat) if a.act == "bid"), key=lambda a: a.value
        )
    if action.act == "show":  # 托管 never shows; show, so that a room's 明牌 is played
        action = replace(action, value=True)
    data = action.to_json()
    data.pop("seat")
    return data


def users_by_seat(table: Table) -> dict[int, User]:
    return {
        s.index: s.user
        for s in Seat.objects.filter(table=table, user__isnull=False).select_related("user")
    }


def _bot_seats(hand: Hand) -> set[int]:
    return set(
        Seat.objects.filter(table_id=hand.table_id, is_bot=True).values_list("index", flat=True)
    )


def awaits_bot(hand: Hand) -> bool:
    bots = _bot_seats(hand)
    return any(s in bots for s in waiting_seats(hand_state(hand)))


def bots_reply(table: Table | int, *, limit: int = 2000) -> int:
    """Run the deadline runner at each deadline, as its thread does once the room's delay is
    over, while the active hand awaits no player: the bots' replies, and the close of a sealed
    step they were the last to decide (its shortest time counts from the runner's clock, which
    runs ahead of the test's). Returns how many runs moved."""
    moved = 0
    for _ in range(limit):
        hand = active_hand(table)
        if hand is None or hand.deadline_at is None:
            return moved
        bots = _bot_seats(hand)
        if any(s not in bots for s in waiting_seats(hand_state(hand))):
            return moved
        moved += hand_apply_due_deadlines(now=hand.deadline_at)
    raise AssertionError("the bots keep replying")


def play_until_play_phase(
    table: Table | int, users: dict[int, User] | list[User], *, limit: int = 200
) -> Hand | None:
    """The humans (``users`` by seat) take their 托管 choices through the service, deal after
    deal, until the active hand reaches its play phase; returns that hand, or None when the
    hand ended before it (a new5 auto-win)."""
    for _ in range(limit):
        hand = active_hand(table)
        if hand is None:
            return None
        state = hand_state(hand)
        if state.phase == "play":
            return hand
        seat = waiting_seats(state)[0]
        services.hand_submit_action(
            hand_id=hand.pk,
            user=users[seat],
            action=client_action(state, seat),
            expected_version=hand.version,
        )
    raise AssertionError(f"no play phase after {limit} decisions")


def play_to_end(table: Table, *, limit: int = 2000) -> Hand:
    """Let the humans play (their 托管 choices, through the service) and the bots reply (the
    deadline runner) until no hand is active; returns the last hand."""
    users = users_by_seat(table)
    for _ in range(limit):
        bots_reply(table)
        hand = active_hand(table)
        if hand is None:
            return Hand.objects.filter(table=table).order_by("-number").first()
        state = hand_state(hand)
        seat = next(s for s in waiting_seats(state) if s in users)
        services.hand_submit_action(
            hand_id=hand.pk,
            user=users[seat],
            action=client_action(state, seat),
            expected_version=hand.version,
        )
    raise AssertionError("the hand did not end")


# --------------------------------------------------------------------------- websockets

ORIGIN = [(b"origin", b"http://localhost")]
VERSION_RE = re.compile(r'id="table-clock"[^>]*data-version="(\d+)"')
FRAME_RE = re.compile(
    r'id="table-frame"[^>]*data-version="(\d+)" data-full="([01])"(?: data-part="(\w+)")?'
    r'(?: data-own="([01])")?'
)
# what differs between two renderings of one state: the server's clock
VOLATILE_RE = re.compile(r' data-now="[^"]*"')
# regions a fresh load does not compare: the frame's own header, the sender's last error
UNCOMPARED = ("table-frame", "table-error")
VOID_TAGS = {"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


class _TopLevel(HTMLParser):
    """The top-level elements of a frame, by id."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=False)
        self.html = html
        self.starts = [0]
        for line in html.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))
        self.depth = 0
        self.opened: tuple[int, str | None] = (0, None)
        self.found: dict[str, str] = {}
        self.feed(html)
        self.close()

    def _offset(self) -> int:
        line, column = self.getpos()
        return self.starts[line - 1] + column

    def _record(self, end: int) -> None:
        start, element_id = self.opened
        if element_id:
            self.found[element_id] = self.html[start:end]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.depth == 0:
            self.opened = (self._offset(), dict(attrs).get("id"))
        if tag in VOID_TAGS:
            if self.depth == 0:
                self._record(self._offset() + len(self.get_starttag_text() or ""))
            return
        self.depth += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.depth == 0:
            self.opened = (self._offset(), dict(attrs).get("id"))
            self._record(self._offset() + len(self.get_starttag_text() or ""))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID_TAGS:
            return
        self.depth -= 1
        if self.depth == 0:
            self._record(self.html.index(">", self._offset()) + 1)


def regions(html: str) -> dict[str, str]:
    """A frame's regions by id, as the htmx ws extension swaps them in."""
    return _TopLevel(html).found


def swap_in(screen: dict[str, str], html: str) -> None:
    """``screen`` (a page's regions by id) after the frame ``html``, as the htmx ws extension
    swaps it in: each top-level element replaces the element of its id, a region or one inside
    a region (a move's seat panel in #table-seats), which loses its ``hx-swap-oob``."""
    for element_id, element in regions(html).items():
        marker = f'id="{element_id}"'
        holder = next((k for k, v in screen.items() if k != element_id and marker in v), None)
        if element_id in screen or holder is None:
            screen[element_id] = element
            continue
        region = screen[holder]
        start = region.rindex("<", 0, region.index(marker))
        old = _TopLevel(region[start:]).found[element_id]
        new = element.replace(' hx-swap-oob="true"', "", 1)
        screen[holder] = region[:start] + new + region[start + len(old) :]


def comparable(screen: dict[str, str]) -> dict[str, str]:
    return {k: VOLATILE_RE.sub("", v) for k, v in screen.items() if k not in UNCOMPARED}


def regions_differing(screen: dict[str, str], fresh: dict[str, str]) -> list[str]:
    """The regions of a fresh load (``fresh_screen``) that a page's ``screen`` shows otherwise
    (regions pushed on their own, spectator counts and notices, are no part of a load)."""
    shown = comparable(screen)
    return sorted(k for k, html in fresh.items() if shown.get(k) != html)


def fresh_screen(table_id: int, user: User, language: str = "") -> dict[str, str]:
    """The regions a fresh load shows ``user`` now (his seat's, or a spectator's)."""
    html = frames.full_frame(table_id=table_id, user=user, language=language)
    return comparable(regions(html))


def screen_html(table: Table, *, seat_index: int | None, user: Any) -> str:
    """Every region of the table's current state for one audience (``seat_index`` None: a
    spectator's), as a resync over HTTP renders it."""
    hand = selectors.table_current_hand(table=table)
    language = settings.LANGUAGE_CODE
    if seat_index is not None:
        language = selectors.stored_language(user=user)
    return render_screen(
        snapshot=table_snapshot(table=table, hand=hand),
        seat_index=seat_index,
        user=user,
        language=language,
    )


def push_frames(table_id: int, **kwargs: Any) -> list[frames.SeatFrame | frames.PublicFrame]:
    """The frames a push of the table's current state sends (``frames.audience_frames``)."""
    snapshot = table_snapshot_read(table_id=table_id)
    assert snapshot is not None
    return frames.audience_frames(snapshot, **kwargs)


def table_version(table_id: int) -> int:
    return Table.objects.values_list("version", flat=True).get(pk=table_id)


class Socket:
    """One browser tab: a communicator plus every frame it has received."""

    def __init__(self, user: User | None, table_id: int, label: str) -> None:
        from channels.routing import URLRouter
        from channels.testing import WebsocketCommunicator

        from ddz_site.routing import websocket_urlpatterns

        self.user = user
        self.label = label
        self.table_id = table_id
        self.frames: list[str] = []
        # the page: what it shows by region, the table version of that, and its resyncs
        self.screen: dict[str, str] = {}
        self.shown: int | None = None
        # the version of the shared regions on screen (a full screen's or a public frame's): a
        # push sends a seat's own frame of a version before its public one
        self.shared: int | None = None
        # the version of the last full screen or own frame taken
        self.own: int | None = None
        self.resyncs = 0
        self.awaiting_full = False  # a resync asked and not answered yet
        self.comm = WebsocketCommunicator(
            URLRouter(websocket_urlpatterns), f"/ws/table/{table_id}/", headers=ORIGIN
        )
        self.comm.scope["user"] = user

    async def open(self) -> Socket:
        connected, _ = await self.comm.connect(timeout=10)
        assert connected
        await self.expect(1)
        return self

    async def expect(self, count: int) -> list[str]:
        got = []
        while len(got) < count:
            html = await self._receive()
            if not html.startswith(SETTLED):
                got.append(html)
                self.frames.append(html)
                await self._page(html)
        return got

    async def _receive(self) -> str:
        return await self.comm.receive_from(timeout=60)

    async def _page(self, html: str) -> None:
        """What static/games/reconnect.js does with a frame."""
        found = FRAME_RE.search(html)
        if found is not None:
            version, full = int(found[1]), found[2] == "1"
            if self.shown is not None and version < self.shown:
                return
            if not full and self.shown is not None and version > self.shown + 1:
                await self.resync()
                return
            self.shown = version
            self.awaiting_full = self.awaiting_full and not full
            if full or found[3] == "seat":
                self.own = version
            if found[3] != "seat":
                self.shared = version
            if found[4] == "1" and self.own != version:  # his own frame of it was lost
                swap_in(self.screen, html)
                await self.resync()
                return
        swap_in(self.screen, html)

    async def resync(self) -> None:
        self.resyncs += 1
        self.awaiting_full = True
        await self.send({"intent": "resync"})

    async def reach(self, version: int) -> None:
        """Take frames until the page shows at least the table's ``version``, with its shared
        regions (and so the own regions sent before them)."""
        while self.shared is None or self.shared < version:
            await self.expect(1)

    async def quiet(self) -> bool:
        """Nothing more was on its way to this socket: everything sent to it has arrived (see
        ``settle``), and that was nothing."""
        return await settle([self]) == 0

    async def take_until(self, marker: str) -> int:
        """Take frames as the page does until ``marker`` comes; how many came before it (the
        markers of other sockets' settles at the table are no frames)."""
        taken = 0
        while (html := await self._receive()) != marker:
            if not html.startswith(SETTLED):
                self.frames.append(html)
                await self._page(html)
                taken += 1
        return taken

    async def send(self, data: dict[str, Any] | str) -> None:
        await self.comm.send_to(text_data=data if isinstance(data, str) else json.dumps(data))

    def version(self) -> int:
        """The hand version the page's forms send."""
        found = VERSION_RE.findall(self.screen.get("table-status", ""))
        assert found, f"{self.label}: no version in the last frame"
        return int(found[-1])

    async def close(self) -> None:
        await self.comm.disconnect()


def frame_for_action(action: dict[str, Any], version: int) -> dict[str, Any]:
    """A §8.4 action as the htmx form sends it: every value a string."""
    frame: dict[str, Any] = {"intent": "act", "version": str(version), "act": action["act"]}
    frame["HEADERS"] = {"HX-Request": "true"}
    if action["act"] == "play":
        frame["cards"] = action["cards"]
    elif "value" in action:
        value = action["value"]
        if isinstance(value, bool):
            frame["value"] = "true" if value else "false"
        else:
            frame["value"] = "" if value is None else str(value)
    return frame


SETTLED = '<div id="table-settled"'  # a marker frame of ``settle``, which no page shows
_markers = itertools.count(1)


async def settle(sockets: list[Socket]) -> int:
    """Take everything already on its way to ``sockets``; how many frames that was. The work
    queued in the database thread is done, the pushes it made have gone to the channel layer
    (games.push.send.drained), and a marker sent to each table's public group after them has
    come back on every socket: a channel keeps its messages in order, so nothing sent before
    the marker is still to come. No clock decides it."""
    await database_sync_to_async(lambda: None)()
    await send.drained()
    marker = f'{SETTLED} data-mark="{next(_markers)}" hidden></div>'
    layer = get_channel_layer()
    for table_id in {sock.table_id for sock in sockets}:
        everyone = frames.BulletinFrame(
            group=frames.public_group(table_id), html_by_language={settings.LANGUAGE_CODE: marker}
        )
        await layer.group_send(*frames.to_message(everyone))
    return sum([await sock.take_until(marker) for sock in sockets])


async def drain(sockets: list[Socket]) -> None:
    """Collect whatever is still on its way (presence pushes while tabs open, the answers to
    resyncs asked), until nothing more is."""
    while await settle(sockets) or any(sock.awaiting_full for sock in sockets):
        pass


def next_move(table_id: int, seats: set[int]) -> tuple[int, dict[str, Any]] | None:
    """(seat, action) of the next human decision at the table once the bots awaited before it
    have replied, None when no hand is active."""
    bots_reply(table_id)
    hand = active_hand(table_id)
    if hand is None:
        return None
    state = hand_state(hand)
    seat = next(s for s in waiting_seats(state) if s in seats)
    return seat, client_action(state, seat)


async def play_over_sockets(
    table_id: int,
    sockets: dict[int, Socket],
    watchers: list[Socket],
    *,
    after_step: Any = None,
    limit: int = 1500,
) -> int:
    """Every human decision sent as a browser would, once the bots awaited before it have
    replied (the deadline runner) and every tab shows their moves; after each, every tab takes
    frames until it shows the table's new version, however many it takes (a lost push heals by
    a resync). A decision inside a sealed step moves no table version: its sender's tab takes
    its own frame. ``after_step`` sees the frames of the bots' replies and of the decision.
    Returns the number of steps."""
    everyone = [*sockets.values(), *watchers]

    async def reach_table() -> None:
        version = await database_sync_to_async(table_version)(table_id)
        for s in everyone:
            await s.reach(version)

    for step in range(limit):
        marks = {s.label: len(s.frames) for s in everyone}
        move = await database_sync_to_async(next_move)(table_id, set(sockets))
        await reach_table()
        if move is None:
            if after_step is not None and step:
                await after_step(marks)  # the bots' last replies
            return step
        seat, action = move
        sock = sockets[seat]
        await sock.send(frame_for_action(action, sock.version()))
        await sock.expect(1)
        await reach_table()
        if after_step is not None:
            await after_step(marks)
    raise AssertionError("the hand did not end over the sockets")


def claim_deadlines_at_once(due: Any, *, claimers: int = 3) -> list[int]:
    """What ``claimers`` deadline runners, started together in threads of their own, each
    applied at ``due``."""
    barrier = threading.Barrier(claimers)
    results: list[int] = []

    def claim() -> None:
        try:
            barrier.wait(timeout=60)
            results.append(hand_apply_due_deadlines(now=due))
        finally:
            connection.close()

    threads = [threading.Thread(target=claim) for _ in range(claimers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return results
