"""Refusals at the door and what each audience may see.

Sockets without a session or from another origin are refused (against a real daphne process, as
a browser meets them); the admin refuses non-staff. ``assert_private`` (used by the whole-hand
test of test_multiprocess.py): a spectator never receives a seat's cards, the hints or the seed
before the result, and a seat never receives cards it does not hold.
"""

from __future__ import annotations

import re

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from games import services
from tests.reliability.harness import TableClient, session_cookie
from tests.support.tables import ensure_triggers, make_player, make_room

db = database_sync_to_async
CARD = re.compile(r'data-card="([^"]+)"')


def _table(humans: int = 5):
    ensure_triggers()
    room = make_room("qq5")
    table = services.table_create(room=room)
    users = [make_player() for _ in range(humans)]
    for user in users:
        services.table_join(table_id=table.pk, user=user)
    return table.pk, users


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_sockets_without_session_or_from_another_origin_are_refused(servers):
    from websockets.exceptions import InvalidStatus

    table_id, users = await db(_table)(1)
    cookie = await db(session_cookie)(users[0])
    server = servers("A")

    anonymous = await TableClient("anon", server.url, table_id, None).connect(first_frame=False)
    await anonymous.wait_for(lambda: not anonymous.open, timeout=5)
    assert anonymous.closed_code == 4401
    assert not anonymous.frames  # not even the public view

    forged = TableClient("forged", server.url, table_id, "not-a-session")
    await forged.connect(first_frame=False)
    await forged.wait_for(lambda: not forged.open, timeout=5)
    assert forged.closed_code == 4401

    for origin in ("http://evil.example", "null", "https://localhost.evil.example"):
        foreign = TableClient("foreign", server.url, table_id, cookie, origin=origin)
        with pytest.raises(InvalidStatus) as refused:
            await foreign.connect()
        assert refused.value.response.status_code == 403

    welcome = await TableClient("seat0", server.url, table_id, cookie).connect()
    assert welcome.last_state() is not None
    await welcome.close()
    assert not server.errors(), server.tail()


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_a_frame_past_daphnes_own_limit_closes_with_1009(servers):
    """Past daphne's limit (1 MiB) the frame never reaches the consumer, whose own smaller
    limit answers 1009: daphne closes with 1009 too, instead of dropping the connection."""
    from games.live.consumers import CLOSE_TOO_BIG

    table_id, users = await db(_table)(1)
    cookie = await db(session_cookie)(users[0])
    server = servers("A")
    tab = await TableClient("seat0", server.url, table_id, cookie).connect(timeout=30)
    await tab.send("x" * (3 << 19))  # 1.5 MiB
    await tab.wait_for(lambda: not tab.open, timeout=30)
    assert tab.closed_code == CLOSE_TOO_BIG
    again = await TableClient("seat0 again", server.url, table_id, cookie).connect(timeout=30)
    assert again.last_state() is not None  # the process serves on
    await again.close()


def test_admin_refuses_non_staff(transactional_db):
    ensure_triggers()
    player = make_player()
    client = Client()
    client.force_login(player)
    for path in ("/admin/", "/admin/accounts/beanentry/", "/admin/accounts/user/"):
        response = client.get(path)
        assert response.status_code == 302 and "/admin/login/" in response["Location"], path
    anonymous = Client().get("/admin/accounts/beanentry/")
    assert anonymous.status_code == 302
    staff = make_player()
    staff.is_staff = staff.is_superuser = True
    staff.save()
    client.force_login(staff)
    assert client.get("/admin/accounts/beanentry/").status_code == 200
