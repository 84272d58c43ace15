"""Concurrent quick-joins of one user across two daphne processes (issue #16, item 5): he ends
with one seat in the room, whichever process answered which request."""

from __future__ import annotations

import http.client
import secrets
from concurrent.futures import ThreadPoolExecutor

import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse

from accounts.audit import audit_beans
from games.models import Seat, Table
from tests.reliability.harness import session_cookie
from tests.support.tables import make_player, make_room

pytestmark = [pytest.mark.asyncio, pytest.mark.services, pytest.mark.timeout(300)]


def _quick_join(port: int, path: str, cookie: str) -> tuple[int, str]:
    """POST the lobby's quick-join form as the browser does; (status, Location)."""
    token = secrets.token_hex(16)  # an unmasked token equal to the cookie's secret
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        connection.request(
            "POST",
            path,
            body=f"csrfmiddlewaretoken={token}",
            headers={
                "Cookie": f"sessionid={cookie}; csrftoken={token}",
                "Content-Type": "application/x-www-form-urlencoded",
                "Host": "localhost",
            },
        )
        response = connection.getresponse()
        response.read()
        return response.status, response.getheader("Location") or ""
    finally:
        connection.close()


async def test_eight_quick_joins_on_two_processes_seat_one_user_once(servers):
    room = await sync_to_async(make_room)("classic3")
    user = await sync_to_async(make_player)()
    cookie = await sync_to_async(session_cookie)(user)
    ports = [servers("a").port, servers("b").port]
    path = reverse("room_quick_join", args=[room.pk])
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda i: _quick_join(ports[i % 2], path, cookie), range(8)))
    assert all(status == 302 for status, _where in answers), answers

    def seats_and_tables():
        seats = list(Seat.objects.filter(room=room, user=user).values_list("table_id", flat=True))
        tables = set(Table.objects.filter(room=room).values_list("pk", flat=True))
        return seats, tables

    seats, tables = await sync_to_async(seats_and_tables)()
    assert len(seats) == 1, seats
    # every answer sends him to his one table (or back to the lobby with a message)
    table_url = reverse("table", args=[seats[0]])
    assert {where for _status, where in answers} <= {table_url, reverse("lobby")}, answers
    assert tables == {seats[0]}, "a quick-join left an empty table behind"
    report = await sync_to_async(audit_beans)()
    assert report.clean, [str(f) for f in report.findings]
