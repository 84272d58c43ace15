"""A private table's websocket: only its players, host and (when allowed) code holders; a
notice rides in the same frame as the regions (issue #8)."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from games import services
from games.services import private
from tests.support.tables import (
    FRAME_RE,
    Socket,
    make_player,
    make_room,
)

pytestmark = [pytest.mark.asyncio, pytest.mark.usefixtures("live_db", "fresh_layer")]

db = database_sync_to_async


def _setup():
    room = make_room("qq5")
    host, friend, stranger = make_player(), make_player(), make_player()
    table = private.table_create_private(room=room, user=host)
    return table, host, friend, stranger


async def test_a_stranger_cannot_watch_a_private_table():
    table, _host, _friend, stranger = await db(_setup)()
    sock = Socket(stranger, table.pk, "stranger")
    connected, _ = await sock.comm.connect()
    assert connected
    assert (await sock.comm.receive_output(timeout=5))["code"] == 4404


async def test_the_host_sees_a_join_notice_in_the_same_frame():
    table, host, friend, _stranger = await db(_setup)()
    sock = await Socket(host, table.pk, "host").open()
    await db(services.table_join)(table_id=table.pk, user=friend, invite_code=table.invite_code)
    notice = f"{friend.username} sat down."
    for _ in range(5):  # the host's own presence push may come first
        (frame,) = await sock.expect(1)
        if notice in frame:
            break
    else:
        raise AssertionError("no join notice")
    # one push: the shared regions and the notice in the public frame, and just before it
    # the host's own regions with his club region, of the same version
    assert 'id="table-seats"' in frame and 'data-part="public"' in frame
    own = sock.frames[-2]
    assert 'id="table-session"' in own and 'data-part="seat"' in own
    assert FRAME_RE.search(own)[1] == FRAME_RE.search(frame)[1]
    assert await sock.quiet()
    await sock.close()


async def test_spectators_are_closed_when_the_host_stops_them():
    table, host, friend, _stranger = await db(_setup)()
    watcher = Socket(friend, table.pk, "watcher")
    watcher.comm.scope["session"] = {"ddz_invites": [table.invite_code]}
    await watcher.open()
    player = await Socket(host, table.pk, "host").open()
    await db(private.table_update_settings)(table_id=table.pk, user=host, allow_spectators=False)
    for _ in range(5):
        output = await watcher.comm.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            break
    else:
        raise AssertionError("the spectator was not closed")
    assert output["code"] == 4404
    await player.close()
