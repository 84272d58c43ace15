"""Hypothesis against the live consumer (in-process, the real ASGI stack with its origin check and
session auth, on the configured database and channel layer).

Random and malformed frames, huge frames, wrong types, replayed frames, frames for other tables
and seats, and a flood from one socket: never a server exception, never a state change, never a
message to anyone but the sender, and the sender's socket stays open.
"""

from __future__ import annotations

import asyncio
import json
import logging

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.models import BeanEntry
from games import services
from games.engine.hand import waiting_seats
from games.live.intents import MAX_FRAME_CHARS
from games.models import Hand, HandAction, Seat, Table
from games.reads.selectors import hand_state
from tests.support.tables import (
    client_action,
    ensure_triggers,
    make_player,
    make_room,
    users_by_seat,
)

pytestmark = pytest.mark.timeout(240)

ORIGIN = (b"origin", b"http://localhost")


def _cookie(user) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


def _table_in_play():
    """A classic3 table of three people in the play phase, waiting for someone; returns the
    table, an idle seated user (not awaited), another seated user, a spectator, a replayed
    frame (an action already applied) and the id of another table."""
    ensure_triggers()
    room = make_room("classic3")
    users = [make_player() for _ in range(3)]
    table = services.table_create(room=room)
    for user in users:
        services.table_join(table_id=table.pk, user=user)
    other = services.table_create(room=room)
    services.hand_start(table_id=table.pk)
    seats = users_by_seat(table)
    replay = None
    for _ in range(200):
        hand = Hand.objects.get(table=table, status=Hand.Status.ACTIVE)
        state = hand_state(hand)
        awaited = waiting_seats(state)
        if state.phase == "play" and len(awaited) == 1 and hand.version > 0:
            break
        seat = awaited[0]
        action = client_action(state, seat)
        frame = {"intent": "act", "version": str(hand.version), **_strings(action)}
        services.hand_submit_action(
            hand_id=hand.pk, user=seats[seat], action=action, expected_version=hand.version
        )
        replay = (seat, frame)
    (awaited,) = waiting_seats(hand_state(Hand.objects.get(pk=hand.pk)))
    idle = next(s for s in seats if s != awaited)
    return {
        "table": table.pk,
        "other_table": other.pk,
        "sender": _cookie(seats[idle]),
        "awaited": _cookie(seats[awaited]),
        "spectator": _cookie(make_player()),
        "replay": replay[1],
        "sender_seat": idle,
    }


def _strings(action: dict) -> dict:
    out = {"act": action["act"]}
    if "cards" in action:
        out["cards"] = action["cards"]
    if "value" in action:
        value = action["value"]
        out["value"] = (
            ("true" if value else "false") if isinstance(value, bool) else str(value or "")
        )
    return out


def _snapshot(table_id: int) -> tuple:
    hand = Hand.objects.filter(table_id=table_id).order_by("-number").first()
    return (
        Table.objects.filter(pk=table_id).values_list("version", "status").first(),
        (hand.version, hand.status, hand.record, hand.deadline_at) if hand else None,
        HandAction.objects.count(),
        BeanEntry.objects.count(),
        list(Seat.objects.filter(table_id=table_id).values_list("autoplay", "user_id")),
    )


async def _connect(table_id: int, cookie: bytes) -> WebsocketCommunicator:
    from ddz_site.asgi import application

    comm = WebsocketCommunicator(
        application, f"/ws/table/{table_id}/", headers=[ORIGIN, (b"cookie", cookie)]
    )
    connected, _ = await comm.connect(timeout=10)
    assert connected
    await comm.receive_from(timeout=10)  # the state on connect
    return comm


async def _drain(comm: WebsocketCommunicator, *, wait: float = 0.1) -> list[str]:
    got = []
    while not await comm.receive_nothing(timeout=wait):
        got.append(await comm.receive_from(timeout=5))
    return got


async def _served_state(comm: WebsocketCommunicator) -> bool:
    """After a resync asked: the full state comes. Replies to earlier frames that a loaded
    machine delivers after the drain's quiet window may come first; they are no state."""
    for _ in range(50):
        reply = await comm.receive_from(timeout=30)
        if 'id="table-controls"' in reply:
            return True
        assert _is_reply(reply), reply[:200]
    return False


def _is_reply(text: str) -> bool:
    return text.startswith('<div id="table-error"') or 'id="table-controls"' in text


# --------------------------------------------------------------------------- strategies

json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
)
json_value = st.recursive(
    json_leaf,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
field_value = st.one_of(
    json_value,
    st.sampled_from(["", "0", "-1", "3", "99999999999999999999", "true", "3s 3h", "SJ BJ", "Ah"]),
)


@st.composite
def act_frames(draw):
    """Frames shaped like the real ones, with wrong or hostile values."""
    frame = {"intent": draw(st.sampled_from(["act", "act", "resync", "autoplay", "ACT", ""]))}
    for key in ("version", "act", "cards", "value", "table", "hand", "kind", "seat", "HEADERS"):
        if draw(st.booleans()):
            frame[key] = draw(
                st.sampled_from(
                    [
                        "play",
                        "pass",
                        "bid",
                        "grab",
                        "reveal",
                        "double",
                        "partner",
                        "call",
                        "timeout",
                        "autoplay",
                    ]
                )
                if key == "act"
                else field_value
            )
    if frame["intent"] == "autoplay":
        # a valid autoplay switch is a legitimate change of the sender's own seat, not fuzz
        frame["value"] = draw(st.sampled_from(["maybe", "", None, 2, [], {}]))
    return json.dumps(frame, allow_nan=True)


frames = st.one_of(
    st.text(max_size=200),
    json_value.map(lambda v: json.dumps(v, allow_nan=True)),
    act_frames(),
    st.integers(min_value=MAX_FRAME_CHARS - 10, max_value=60_000).map(
        lambda n: json.dumps({"intent": "act", "act": "play", "version": "1", "cards": "3" * n})
    ),
    st.binary(max_size=200),
    st.just("REPLAY"),
    st.just("OTHER_TABLE"),
    st.just("NOT_MY_TURN"),
)


# --------------------------------------------------------------------------- the scenario


async def _scenario(ctx: dict, batch: list) -> None:
    table_id = ctx["table"]
    sender = await _connect(table_id, ctx["sender"])
    others = [
        await _connect(table_id, ctx["awaited"]),
        await _connect(table_id, ctx["spectator"]),
    ]
    for comm in [sender, *others]:
        await _drain(comm)
    before = await database_sync_to_async(_snapshot)(table_id)
    hand_version = before[1][0]
    for item in batch:
        if isinstance(item, bytes):
            await sender.send_input({"type": "websocket.receive", "bytes": item})
            continue
        if item == "REPLAY":
            item = json.dumps(ctx["replay"])
        elif item == "OTHER_TABLE":
            item = json.dumps(
                {
                    "intent": "act",
                    "table": ctx["other_table"],
                    "version": hand_version,
                    "act": "pass",
                }
            )
        elif item == "NOT_MY_TURN":
            item = json.dumps({"intent": "act", "version": str(hand_version), "act": "pass"})
        await sender.send_input({"type": "websocket.receive", "text": item})
    replies = await _drain(sender, wait=0.15)
    assert all(_is_reply(r) for r in replies), replies[:3]
    for comm in others:
        assert await comm.receive_nothing(timeout=0.05), "a frame reached another socket"
    after = await database_sync_to_async(_snapshot)(table_id)
    assert after == before
    # the sender's socket is still served: a resync answers
    await sender.send_to(text_data=json.dumps({"intent": "resync"}))
    assert await _served_state(sender)
    for comm in [sender, *others]:
        await comm.disconnect()


@pytest.fixture
def fuzz_table(transactional_db, settings):
    settings.DDZ_WS_RATE_BURST = 10_000  # the flood test below checks the limit itself
    return _table_in_play()


@pytest.fixture
def loop():
    """One event loop for every example (the Redis layer's connections belong to a loop),
    and a channel layer of its own."""
    from channels.layers import channel_layers

    channel_layers.backends = {}
    loop = asyncio.new_event_loop()
    yield loop
    channel_layers.backends = {}
    loop.run_until_complete(loop.shutdown_asyncgens())
    loop.close()


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(batch=st.lists(frames, min_size=1, max_size=8))
def test_fuzzed_frames_change_nothing_and_reach_only_the_sender(fuzz_table, loop, caplog, batch):
    caplog.set_level(logging.WARNING)
    loop.run_until_complete(_scenario(fuzz_table, batch))
    bad = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not bad, [r.getMessage() for r in bad]


def test_flood_from_one_socket_is_rate_limited(transactional_db, settings, loop, caplog):
    settings.DDZ_WS_RATE_BURST = 30
    settings.DDZ_WS_RATE_PER_SECOND = 10
    ctx = _table_in_play()

    async def flood():
        sender = await _connect(ctx["table"], ctx["sender"])
        other = await _connect(ctx["table"], ctx["awaited"])
        await _drain(sender)
        await _drain(other)
        before = await database_sync_to_async(_snapshot)(ctx["table"])
        for _ in range(300):
            await sender.send_to(text_data=json.dumps({"intent": "resync"}))
        replies = await _drain(sender, wait=0.3)
        states = [r for r in replies if 'id="table-controls"' in r]
        errors = [r for r in replies if r.startswith('<div id="table-error"')]
        # the burst is read, the rest dropped with one clear error (at most one a second); the
        # burst's resyncs are answered by a few renderings, not one each (issue #17)
        assert 1 <= len(states) <= 3, len(states)
        assert 1 <= len(errors) <= 3
        assert "Too many messages" in errors[0] or "慢" in errors[0] or "太" in errors[0]
        assert await other.receive_nothing(timeout=0.1)
        assert await database_sync_to_async(_snapshot)(ctx["table"]) == before
        await asyncio.sleep(1.1)  # refilled: served again
        await sender.send_to(text_data=json.dumps({"intent": "resync"}))
        assert await _served_state(sender)
        await sender.disconnect()
        await other.disconnect()

    caplog.set_level(logging.WARNING)
    loop.run_until_complete(flood())
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
