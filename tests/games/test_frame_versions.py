"""Versioned frames that heal (issue #17): a push lost on its way (a full channel queue drops
a message) shows as a version gap at the next push; the page asks for a resync and ends with
exactly the screen a fresh load renders."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from games import broadcast, services
from tests.games.table_helpers import (
    Socket,
    drain,
    frame_for_action,
    fresh_layer,  # noqa: F401
    fresh_screen,
    live_db,  # noqa: F401
    make_player,
    make_room,
    next_move,
    regions_differing,
    seated_table,
    table_version,
)

pytestmark = [pytest.mark.asyncio, pytest.mark.usefixtures("live_db", "fresh_layer")]

db = database_sync_to_async


def _setup():
    users = [make_player() for _ in range(3)]
    table = seated_table(make_room("classic3"), users)
    return table.pk, users, make_player()


class _Dropping:
    """Wraps the layer's sending: the next push loses its frames for ``groups``."""

    def __init__(self, layer) -> None:
        self.layer = layer
        self.send = layer.group_send_many
        self.groups: set[str] = set()
        self.dropped: list[str] = []
        layer.group_send_many = self.group_send_many

    async def group_send_many(self, frames):
        if self.groups:
            self.dropped = [group for group, _event in frames if group in self.groups]
            frames = [(group, event) for group, event in frames if group not in self.groups]
            self.groups = set()
        await self.send(frames)


async def _move(table_id: int, seats: dict[int, Socket]) -> Socket:
    seat, action = await db(next_move)(table_id, set(seats))
    sock = seats[seat]
    await sock.send(frame_for_action(action, sock.version()))
    return sock


async def test_a_lost_push_heals_by_a_resync_to_the_exact_screen():
    table_id, users, watcher = await db(_setup)()
    seats = {i: await Socket(u, table_id, f"seat{i}").open() for i, u in enumerate(users)}
    spectator = await Socket(watcher, table_id, "watcher").open()
    everyone = [*seats.values(), spectator]
    await drain(everyone)
    await db(services.hand_start)(table_id=table_id)
    dealt = await db(table_version)(table_id)
    for s in everyone:
        await s.reach(dealt)

    # the next push is lost for the spectators and for a player who acts after the next one
    mover, _action = await db(next_move)(table_id, set(seats))
    victim = seats[(mover + 2) % 3]  # not the next to act: his screen is stale
    dropping = _Dropping(get_channel_layer())
    lose = {broadcast.public_group(table_id), broadcast.user_group(table_id, victim.user.pk)}
    dropping.groups = set(lose)
    sock = await _move(table_id, seats)
    await sock.expect(1)
    assert set(dropping.dropped) == lose
    lost = await db(table_version)(table_id)
    assert lost == dealt + 1
    for s in everyone:
        if s not in (victim, spectator):
            await s.reach(lost)
    assert victim.shown == spectator.shown == dealt  # they still show the deal

    # the push after the lost one skips a version: both pages ask for the full screen
    sock = await _move(table_id, seats)
    await sock.expect(1)
    after = await db(table_version)(table_id)
    for s in everyone:
        await s.reach(after)
    await drain(everyone)
    assert victim.resyncs >= 1 and spectator.resyncs >= 1
    for s in everyone:
        fresh = await db(fresh_screen)(table_id, s.user)
        assert regions_differing(s.screen, fresh) == [], s.label
    for s in everyone:
        await s.close()
