"""The table consumer keeps its socket's lease: recorded with the socket's channel name on
connect and held by this process (the renewer's register), released and deleted on close."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from games import presence
from games.models import Seat, SocketLease
from tests.games.table_helpers import (
    Socket,
    fresh_layer,  # noqa: F401
    live_db,  # noqa: F401
    make_player,
    make_room,
    seated_table,
)

pytestmark = [pytest.mark.asyncio, pytest.mark.usefixtures("live_db", "fresh_layer")]

db = database_sync_to_async


def _table():
    user = make_player()
    table = seated_table(make_room("classic3"), [user])
    return table.pk, user


def _leases(table_id: int) -> list[tuple[str, str]]:
    return list(
        SocketLease.objects.filter(table_id=table_id).values_list("channel_name", "process")
    )


async def test_a_socket_holds_its_lease_until_it_closes():
    table_id, user = await db(_table)()
    tab = await Socket(user, table_id, "tab").open()
    await tab.quiet()
    ((name, process),) = await db(_leases)(table_id)
    assert process == presence.PROCESS_ID
    assert presence.sockets_held()[name] == (table_id, user)
    assert (await db(Seat.objects.get)(table_id=table_id, user=user)).connections == 1

    await tab.close()
    assert await db(_leases)(table_id) == []
    assert name not in presence.sockets_held()
    seat = await db(Seat.objects.get)(table_id=table_id, user=user)
    assert seat.connections == 0 and seat.disconnected_at is not None
