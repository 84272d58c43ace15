"""The table consumer keeps its socket's lease: recorded with the socket's channel name on
connect and held by this process (the renewer's register), released and deleted on close. The
leases also cap one user's sockets across the cluster (issue #17)."""

from __future__ import annotations

import asyncio
import datetime

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from games.live.consumers import CLOSE_TOO_BIG, CLOSE_TOO_MANY_SOCKETS
from games.models import Seat, SocketLease
from games.services import presence
from tests.support.tables import (
    Socket,
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


# No single user can starve a process (issue #17): a cap on one user's table sockets across
# the cluster (counted by their leases), resync requests coalesced per socket, and a frame over
# the size limit closed with a code of its own rather than dropped.


def _other_table():
    """A second table (a public one, anyone may watch), with someone else seated."""
    return seated_table(make_room("classic3"), [make_player()]).pk


def _lease_elsewhere(user, *, process: str, renewed_ago: int = 0) -> None:
    """A socket of ``user`` held by another process, at a table of its own."""
    table_id = seated_table(make_room("classic3"), [make_player()]).pk
    SocketLease.objects.create(
        table_id=table_id,
        user=user,
        process=process,
        channel_name=f"{process}!{SocketLease.objects.count()}",
        renewed_at=timezone.now() - datetime.timedelta(seconds=renewed_ago),
    )


async def _refused(sock: Socket) -> tuple[int, str]:
    """(close code, the error frame before it) of a socket the server refused after accepting."""
    connected, _ = await sock.comm.connect(timeout=10)
    assert connected  # accepted before the database work, then closed
    error = await sock.comm.receive_from(timeout=10)
    closed = await sock.comm.receive_output(timeout=10)
    assert closed["type"] == "websocket.close"
    return closed["code"], error


async def test_the_socket_over_the_cap_is_closed_with_its_own_code(settings):
    settings.DDZ_WS_MAX_SOCKETS_PER_USER = 3
    table_id, user = await db(_table)()
    other = await db(_other_table)()
    tabs = [await Socket(user, table_id, "a").open(), await Socket(user, other, "b").open()]
    # a third socket on another process counts: the cap is the cluster's
    await db(_lease_elsewhere)(user, process="elsewhere")
    code, error = await _refused(Socket(user, table_id, "over"))
    assert code == CLOSE_TOO_MANY_SOCKETS
    assert 'id="table-error"' in error
    assert await db(SocketLease.objects.filter(user=user).count)() == 3

    # a dead lease (its process stopped renewing) no longer counts; a closed tab neither
    await db(SocketLease.objects.filter(process="elsewhere").update)(
        renewed_at=timezone.now()
        - datetime.timedelta(seconds=settings.DDZ_SOCKET_LEASE_SECONDS + 5)
    )
    tabs.append(await Socket(user, table_id, "again").open())
    await tabs[0].close()
    tabs.append(await Socket(user, other, "after close").open())
    # another user is not affected by this one's sockets
    stranger = await db(make_player)()
    tabs.append(await Socket(stranger, table_id, "stranger").open())
    for tab in tabs[1:]:
        await tab.close()


async def _states_after_quiet(sock: Socket) -> list[str]:
    """Every frame until the socket has been quiet for several seconds (far longer than the
    pause between two coalesced renderings)."""
    got = []
    while not await sock.comm.receive_nothing(timeout=5):
        got.append(await sock.comm.receive_from(timeout=10))
    return got


@pytest.mark.slow
async def test_a_flood_of_resyncs_gets_a_few_renderings(settings):
    settings.DDZ_WS_RESYNC_PER_SECOND = 1
    table_id, user = await db(_table)()
    tab = await Socket(user, table_id, "tab").open()
    for _ in range(25):
        await tab.send({"intent": "resync"})
    states = await _states_after_quiet(tab)
    # one rendering at once, one more for the requests that came while it was in flight; a
    # loaded machine may spread the requests over one more second, never over 25
    assert 1 <= len(states) <= 3
    assert all('id="table-status"' in frame for frame in states)
    assert states[-1] == tab.frames[0]  # nothing changed: the same full screen
    # the socket still serves: a later resync is answered
    await tab.send({"intent": "resync"})
    assert await tab.comm.receive_from(timeout=10) == tab.frames[0]
    await tab.close()


async def test_a_frame_over_the_size_limit_closes_with_its_own_code(settings):
    settings.DDZ_WS_MAX_FRAME_BYTES = 1000
    table_id, user = await db(_table)()
    tab = await Socket(user, table_id, "tab").open()
    await tab.send({"intent": "chat", "text": "x" * 999})
    closed = await tab.comm.receive_output(timeout=10)
    # 1009 would kill the application under daphne, whose library refuses it (issue #31)
    assert closed["type"] == "websocket.close" and closed["code"] == CLOSE_TOO_BIG == 4009


async def test_a_frame_too_big_to_send_closes_with_its_own_code(settings):
    settings.DDZ_WS_MAX_SEND_BYTES = 200  # any screen is larger
    table_id, user = await db(_table)()
    sock = Socket(user, table_id, "tab")
    connected, _ = await sock.comm.connect(timeout=10)
    assert connected
    closed = await sock.comm.receive_output(timeout=10)
    assert closed["type"] == "websocket.close" and closed["code"] == CLOSE_TOO_BIG


async def test_an_exception_in_a_handler_releases_the_lease(monkeypatch):
    """Issue #31: channels runs disconnect() only for the peer's close; an application that
    died of an exception left its lease (renewed for as long as the process lived)."""
    from games.push import frames

    def broken(*args, **kwargs):
        raise RuntimeError("a rendering bug")

    monkeypatch.setattr(frames, "full_frame", broken)  # a spectator's first screen
    table_id, _ = await db(_table)()
    watcher = await db(make_player)()
    sock = Socket(watcher, table_id, "watcher")
    connected, _ = await sock.comm.connect(timeout=10)
    assert connected
    with pytest.raises(RuntimeError, match="a rendering bug"):
        await sock.comm.receive_output(timeout=10)
    assert await db(_leases)(table_id) == []
    assert not [n for n, (t, _) in presence.sockets_held().items() if t == table_id]


async def _kept(sock: Socket) -> bool:
    """Whether the server kept the socket: a screen came (True), or a close (False)."""
    while True:
        output = await sock.comm.receive_output(timeout=30)
        if output["type"] == "websocket.close":
            assert output["code"] == CLOSE_TOO_MANY_SOCKETS
            return False
        if 'id="table-frame"' in output.get("text", ""):
            return True


async def test_sockets_opened_at_once_keep_to_the_cap(settings):
    settings.DDZ_WS_MAX_SOCKETS_PER_USER = 3
    table_id, user = await db(_table)()
    socks = [Socket(user, table_id, f"tab{i}") for i in range(8)]
    await asyncio.gather(*(sock.comm.connect(timeout=30) for sock in socks))
    kept = [await _kept(sock) for sock in socks]
    assert kept.count(True) == 3
    assert await db(SocketLease.objects.filter(user=user).count)() == 3
    for sock, open_ in zip(socks, kept, strict=True):
        if open_:
            await sock.close()


async def test_a_burst_past_the_cap_is_refused_before_any_database_work(settings, monkeypatch):
    """One user opening many sockets at once on one process: those past the cap are refused
    before their admission, which would each take the database thread that every table of the
    process waits on; those let through are admitted and capped as before."""
    from games.live import consumers

    settings.DDZ_WS_MAX_SOCKETS_PER_USER = 3
    admitted = []
    admit = consumers._admit

    def counted(scope, table_id):
        admitted.append(table_id)
        return admit(scope, table_id)

    monkeypatch.setattr(consumers, "_admit", counted)
    table_id, user = await db(_table)()
    socks = [Socket(user, table_id, f"tab{i}") for i in range(12)]
    await asyncio.gather(*(sock.comm.connect(timeout=30) for sock in socks))
    kept = [await _kept(sock) for sock in socks]
    assert kept.count(True) == 3
    assert len(admitted) == 3
    # a closed socket frees its place on this process: the next one is admitted
    opened = [sock for sock, open_ in zip(socks, kept, strict=True) if open_]
    await opened[0].close()
    again = await Socket(user, table_id, "again").open()
    assert len(admitted) == 4
    for sock in [*opened[1:], again]:
        await sock.close()
