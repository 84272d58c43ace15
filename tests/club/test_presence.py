"""A socket's presence row is written in one statement, and a row a dead process left with the
same channel name is taken over rather than refused."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from club import services
from club.models import ConnectionRecord, SpectatorPresence
from tests.support.tables import make_player, make_room, seated_table

pytestmark = pytest.mark.django_db


def test_presence_is_one_statement_and_takes_over_a_stale_row():
    room = make_room("classic3")
    players = [make_player() for _ in range(3)]
    first = seated_table(room, players)
    second = seated_table(room, [make_player() for _ in range(3)])
    watcher = make_player()
    with CaptureQueriesContext(connection) as ctx:
        services.presence_open(table_id=first.pk, user=watcher, channel_name="specific.a!b")
    assert len(ctx.captured_queries) == 1
    services.presence_open(table_id=second.pk, user=players[0], channel_name="specific.a!b")
    (row,) = SpectatorPresence.objects.filter(channel_name="specific.a!b")
    assert (row.table_id, row.user_id) == (second.pk, players[0].pk)


def test_a_connection_record_told_the_seat_does_not_read_it():
    room = make_room("classic3")
    players = [make_player() for _ in range(3)]
    table = seated_table(room, players)
    with CaptureQueriesContext(connection) as told:
        services.connection_record(table_id=table.pk, user=players[0], ip="10.0.0.1", seated=True)
    with CaptureQueriesContext(connection) as read:
        services.connection_record(table_id=table.pk, user=players[1], ip="10.0.0.2")
    assert len(told.captured_queries) == len(read.captured_queries) - 1
    assert ConnectionRecord.objects.filter(table=table, seated=True).count() == 2
