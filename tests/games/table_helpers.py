"""Shared helpers of the table/hand tests (services, consumer, deadlines, leaks).

``live_db``: a transactional database for tests whose code runs in other threads (channels'
``database_sync_to_async``, deadline claimers). SQLite flushes a transactional test with
DELETE, which the append-only triggers of the ledger and the hand log refuse; the fixture drops
them just before pytest-django's flush and every database test that needs them (re)creates them
(``append_only_triggers``). PostgreSQL flushes with TRUNCATE, which row triggers do not see.
"""

from __future__ import annotations

import copy
import itertools
import json
import re
from typing import Any

import pytest
from django.db import connection

from accounts.models import User
from ddz_site.append_only import trigger_sql
from games import services
from games.engine.hand import autoplay_action, legal_actions, waiting_seats
from games.models import Hand, Room, Seat, Table
from games.selectors import hand_state

_room_names = itertools.count(1)

BEANS = 1_000_000


def ensure_triggers() -> None:
    if connection.vendor != "sqlite":
        return
    with connection.cursor() as cursor:
        for _table, sql in trigger_sql():
            for statement in sql.SQLITE_CREATE:
                cursor.execute(statement)


@pytest.fixture
def append_only_triggers(db):
    ensure_triggers()


@pytest.fixture
def live_db(transactional_db):
    """A transactional database (data committed, visible to other threads)."""
    ensure_triggers()


def make_room(variant: str = "classic3", **fields: Any) -> Room:
    fields.setdefault("name", f"room {variant} {next(_room_names)}")
    # a simultaneous step closes as soon as all have decided, as the loops here expect; the
    # shortest step's time has tests of its own (tests/games/test_sealed_steps.py)
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
    data = action.to_json()
    data.pop("seat")
    return data


def users_by_seat(table: Table) -> dict[int, User]:
    return {
        s.index: s.user
        for s in Seat.objects.filter(table=table, user__isnull=False).select_related("user")
    }


def play_to_end(table: Table, *, limit: int = 2000) -> Hand:
    """Let the humans play (their 托管 choices, through the service) until no hand is active;
    returns the last hand."""
    users = users_by_seat(table)
    for _ in range(limit):
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
VERSION_RE = re.compile(r'id="table-status"[^>]*data-version="(\d+)"')


@pytest.fixture
def fresh_layer(settings):
    """A new channel layer for this test's event loop (same backend as configured)."""
    settings.CHANNEL_LAYERS = copy.deepcopy(settings.CHANNEL_LAYERS)
    yield
    settings.CHANNEL_LAYERS = copy.deepcopy(settings.CHANNEL_LAYERS)


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
        got = [await self.comm.receive_from(timeout=10) for _ in range(count)]
        self.frames.extend(got)
        return got

    async def quiet(self) -> bool:
        return await self.comm.receive_nothing(timeout=0.05)

    async def send(self, data: dict[str, Any] | str) -> None:
        await self.comm.send_to(text_data=data if isinstance(data, str) else json.dumps(data))

    def version(self) -> int:
        found = VERSION_RE.findall(self.frames[-1] if self.frames else "")
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


async def drain(sockets: list[Socket]) -> None:
    """Collect whatever is still on its way (presence pushes while tabs open)."""
    for sock in sockets:
        while not await sock.quiet():
            await sock.expect(1)


def next_move(table_id: int, seats: set[int]) -> tuple[int, dict[str, Any]] | None:
    """(seat, action) of the next human decision at the table, None when no hand is active."""
    hand = active_hand(table_id)
    if hand is None:
        return None
    state = hand_state(hand)
    seat = next(s for s in waiting_seats(state) if s in seats)
    return seat, client_action(state, seat)


def shown_state(table_id: int) -> tuple[int, int]:
    """(hand id, the version screens show) of the table's latest hand."""
    hand = Hand.objects.filter(table_id=table_id).order_by("-number").first()
    assert hand is not None
    return hand.pk, hand_state(hand).public_version


async def play_over_sockets(
    table_id: int,
    sockets: dict[int, Socket],
    watchers: list[Socket],
    *,
    after_step: Any = None,
    limit: int = 1500,
) -> int:
    """Every human decision sent as a browser would; each push checked to reach every tab
    (a decision inside a sealed step: its sender's tab alone). Returns the number of steps."""
    from channels.db import database_sync_to_async

    everyone = [*sockets.values(), *watchers]
    for step in range(limit):
        move = await database_sync_to_async(next_move)(table_id, set(sockets))
        if move is None:
            return step
        seat, action = move
        sock = sockets[seat]
        marks = {s.label: len(s.frames) for s in everyone}
        before = await database_sync_to_async(shown_state)(table_id)
        await sock.send(frame_for_action(action, sock.version()))
        await sock.expect(1)
        if await database_sync_to_async(shown_state)(table_id) != before:
            for s in everyone:
                if s is not sock:
                    await s.expect(1)
        if after_step is not None:
            await after_step(marks)
    raise AssertionError("the hand did not end over the sockets")
