"""Two daphne processes on the Redis layer; five tabs split across them play a whole hand.

Every tab sees every update (the same sequence of versions, ending with the result) and a
deadline fires exactly once although both processes run the deadline runner (that an idle
socket stays open on the Redis layer is tests/games/live/test_rooms_channel_layer.py's).
Then restart survival: ``kill -9`` of a process mid-hand, and again while a deadline is
pending; its tabs reconnect and the hand goes on from the exact state.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from channels.db import database_sync_to_async

from accounts.audit import audit_beans
from accounts.models import HandSettlement
from games import services
from games.models import Hand, HandAction, Table
from games.reads.selectors import hand_state
from tests.reliability.harness import Server, TableClient, assert_private, session_cookie
from tests.support.tables import ensure_triggers, make_player, make_room

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]

db = database_sync_to_async
SEATS = 5
PATIENCE = 60.0  # seconds a condition may take on a loaded machine before the test fails


def _setup(**room_fields):
    ensure_triggers()
    room = make_room("qq5", **room_fields)
    table = services.table_create(room=room)
    users = [make_player() for _ in range(SEATS)]
    for user in users:
        services.table_join(table_id=table.pk, user=user)
    cookies = [session_cookie(u) for u in users]
    watcher = make_player()
    return table.pk, users, cookies, session_cookie(watcher)


def _hand(table_id: int) -> Hand | None:
    return Hand.objects.filter(table_id=table_id).order_by("-number").first()


def _shown(table_id: int) -> int:
    """The version the table's screens show (a sealed step's decisions do not move it)."""
    return hand_state(_hand(table_id)).public_version


def _set_deadlines(table_id: int, seconds: int) -> None:
    from games.models import Room

    Room.objects.filter(tables__pk=table_id).update(bid_seconds=seconds, turn_seconds=seconds)


def _actions(hand_id: int) -> list[tuple[int, int, str, str, dict]]:
    return list(
        HandAction.objects.filter(hand_id=hand_id)
        .order_by("seq")
        .values_list("seq", "seat", "phase", "source", "payload")
    )


async def _open(servers: list[Server], table_id: int, cookies: list[str], watcher: str):
    tabs = [
        await TableClient(f"seat{i}", servers[i % len(servers)].url, table_id, cookie).connect()
        for i, cookie in enumerate(cookies)
    ]
    spectator = await TableClient("watcher", servers[-1].url, table_id, watcher).connect()
    return tabs, spectator


async def _caught_up(tabs: list[TableClient], table_id: int) -> None:
    """Wait until every tab shows the table's current version whole (its public frame)."""
    version = await db(_table_version)(table_id)
    for tab in tabs:
        await tab.wait_for(lambda t=tab: t.caught_up(version))


def _table_version(table_id: int) -> int:
    return Table.objects.values_list("version", flat=True).get(pk=table_id)


async def _step(tabs: list[TableClient], *, pause_seat: int | None = None) -> bool:
    """One tab whose turn it is sends its move; wait until every tab saw the next version
    (a decision inside a sealed step: until its sender saw it, nobody else hears of it).
    Returns False when no tab has a move (hand over, or only ``pause_seat`` could move)."""
    for index, tab in enumerate(tabs):
        frame = tab.last_state()
        move = frame.decide() if frame is not None and tab.open else None
        if move is None or index == pause_seat:
            continue
        sent = int(move["version"])
        mark = len(tab.frames)
        await tab.send(move)
        await tab.wait_for(lambda t=tab, m=mark: any(f.is_state for f in t.frames[m:]))
        if (await db(_shown)(tab.table_id)) == sent:
            return True
        for other in tabs:
            await other.wait_for(lambda o=other, v=sent: _newer(o, v))
        return True
    return False


def _newer(tab: TableClient, version: int) -> bool:
    last = tab.last_state()
    return last is not None and (last.version is None or last.version > version)


async def _play(tabs: list[TableClient], *, limit: int = 600, **kwargs) -> int:
    steps = 0
    while steps < limit and await _step(tabs, **kwargs):
        steps += 1
    return steps


async def _close(tabs: list[TableClient]) -> None:
    for tab in tabs:
        await tab.close()


def _assert_seen_by_all(tabs: list[TableClient], spectator: TableClient) -> None:
    """Every tab received the same sequence of hand versions, the final state included."""
    seen = [[v for v in t.versions() if v is not None] for t in tabs]
    reference = sorted(set().union(*map(set, seen)))
    for tab, versions in zip(tabs, seen, strict=True):
        missing = sorted(set(reference) - set(versions))
        assert not missing, f"{tab.name} missed versions {missing}"
    for tab in [*tabs, spectator]:
        assert tab.last_state().version is None, f"{tab.name} did not see the end"
        assert 'id="table-result"' in tab.last_state().page


def _assert_clean(table_id: int) -> Hand:
    hand = _hand(table_id)
    assert hand is not None and hand.status == Hand.Status.FINISHED
    assert HandSettlement.objects.filter(hand_ref=str(hand.pk)).count() == 1
    rows = _actions(hand.pk)
    assert [r[0] for r in rows] == list(range(1, len(rows) + 1))  # no gap, no double
    assert hand.version == len(rows)
    report = audit_beans()
    assert report.clean, [str(f) for f in report.findings]
    return hand


async def test_two_processes_five_tabs_a_deadline_and_a_whole_hand(servers):
    table_id, _users, cookies, watcher = await db(_setup)(bid_seconds=1, turn_seconds=30)
    a, b = servers("A"), servers("B")
    tabs, spectator = await _open([a, b], table_id, cookies, watcher)
    everyone = [*tabs, spectator]
    await _caught_up(everyone, table_id)

    marks = [len(t.frames) for t in everyone]
    await db(services.hand_start)(table_id=table_id)
    for tab, mark in zip(everyone, marks, strict=True):
        await tab.wait_for(lambda t=tab, m=mark: len(t.frames) > m)
    hand = await db(_hand)(table_id)
    assert hand.version == 0

    # the first decision waits: its 1 s deadline fires once, through one of the two runners
    waiting = sorted(i for i, t in enumerate(tabs) if t.last_state().decide() is not None)
    assert waiting
    started = time.monotonic()
    while not [r for r in await db(_actions)(hand.pk) if r[3] == HandAction.Source.TIMEOUT]:
        assert time.monotonic() - started < PATIENCE, "the deadline never fired"
        await asyncio.sleep(0.05)
    # no further deadline in this hand: the runner re-checks the room's time when one is due
    await db(_set_deadlines)(table_id, 60)
    for tab in everyone:
        await tab.wait_for(lambda t=tab: _newer(t, 0) or t is spectator)
    rows = await db(_actions)(hand.pk)
    assert sorted(r[1] for r in rows if r[3] == HandAction.Source.TIMEOUT) == waiting, rows

    steps = await _play(tabs)
    assert steps > 10
    await _caught_up(everyone, table_id)
    hand = await db(_assert_clean)(table_id)
    rows = await db(_actions)(hand.pk)
    assert len([r for r in rows if r[3] == HandAction.Source.HUMAN]) == steps
    assert sorted(r[1] for r in rows if r[3] == HandAction.Source.TIMEOUT) == waiting
    _assert_seen_by_all(tabs, spectator)
    assert_private(tabs, spectator, hand)
    await _close(everyone)
    for server in (a, b):
        assert server.alive()
        assert not server.errors(), server.tail()


async def test_kill_9_mid_hand_and_with_a_deadline_pending(servers):
    table_id, _users, cookies, watcher = await db(_setup)(bid_seconds=60, turn_seconds=60)
    a, b = servers("A"), servers("B")
    tabs, spectator = await _open([a, b], table_id, cookies, watcher)
    everyone = [*tabs, spectator]
    on_a = [t for t in everyone if t.base_url == a.url]
    await db(services.hand_start)(table_id=table_id)
    for tab in everyone:
        await tab.wait_for(lambda t=tab: t.last_state().version is not None or t is spectator)
    await _caught_up(everyone, table_id)

    # play a little, then kill -9 process A between two moves
    assert await _play(tabs, limit=8) == 8
    before = await db(_hand)(table_id)
    a.kill()
    for tab in on_a:
        await tab.wait_for(lambda t=tab: not t.open)
    a.start()
    for tab in on_a:
        await tab.reconnect()
    await _caught_up(everyone, table_id)
    after = await db(_hand)(table_id)
    assert after.version == before.version and after.record == before.record
    for tab in tabs:
        assert tab.last_state().version == await db(_shown)(table_id)  # the exact state

    # a replayed move (the last one sent before the kill) is refused: never applied twice
    last_tab = max(tabs, key=lambda t: t.sent[-1][0] if t.sent else 0)
    mark = len(last_tab.frames)
    await last_tab.send(last_tab.sent[-1][1])
    await last_tab.wait_for(lambda: any(f.error for f in last_tab.frames[mark:]))
    assert (await db(_hand)(table_id)).version == after.version

    # now a 2 s deadline: one more move starts a decision with it, then the process of the
    # awaited seat is killed at once, the deadline pending
    await db(_set_deadlines)(table_id, 2)
    assert await _play(tabs, limit=1) == 1
    waiting = next((i for i, t in enumerate(tabs) if t.last_state().decide() is not None), None)
    assert waiting is not None
    pending = await db(_hand)(table_id)
    assert pending.deadline_at is not None
    victim = a if tabs[waiting].base_url == a.url else b
    victims = [t for t in everyone if t.base_url == victim.url]
    victim.kill()
    for tab in victims:
        await tab.wait_for(lambda t=tab: not t.open)
    # the surviving process's runner applies the deadline while the victim is down
    started = time.monotonic()
    while (await db(_hand)(table_id)).version == pending.version:
        assert time.monotonic() - started < PATIENCE, "the deadline never fired"
        await asyncio.sleep(0.1)
    await db(_set_deadlines)(table_id, 60)  # one deadline is the point; no cascade
    victim.start()
    for tab in victims:
        await tab.reconnect()
    await _caught_up(everyone, table_id)
    now = await db(_shown)(table_id)
    for tab in tabs:
        state = tab.last_state()
        assert state.version in (now, None), (
            tab.name,
            tab in victims,
            [t.version for t in tab.frames[-6:]],
            now,
            a.errors(),
            b.errors(),
        )

    # play on to the end
    await _play(tabs)
    await _caught_up(everyone, table_id)
    hand = await db(_assert_clean)(table_id)
    rows = await db(_actions)(hand.pk)
    timeouts = [r for r in rows if r[3] == HandAction.Source.TIMEOUT]
    assert timeouts and timeouts[0][1] == waiting
    human = sum(len([s for s in t.sent if s[1].get("intent") == "act"]) for t in tabs)
    refused = sum(len([f for f in t.frames if f.error]) for t in tabs)
    assert refused >= 1  # the replay
    # every human move was applied exactly once, or refused with an error to its sender
    assert len([r for r in rows if r[3] == HandAction.Source.HUMAN]) == human - refused
    await _close(everyone)
    for server in (a, b):
        assert not server.errors(), server.tail()
