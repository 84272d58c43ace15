"""A socket's connection record: told whether the user is seated, it does not read it."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from club.models import ConnectionRecord
from club.services.connections import connection_record
from tests.support.tables import make_player, make_room, seated_table

pytestmark = pytest.mark.django_db


def test_a_connection_record_told_the_seat_does_not_read_it():
    room = make_room("classic3")
    players = [make_player() for _ in range(3)]
    table = seated_table(room, players)
    with CaptureQueriesContext(connection) as told:
        connection_record(table_id=table.pk, user=players[0], ip="10.0.0.1", seated=True)
    with CaptureQueriesContext(connection) as read:
        connection_record(table_id=table.pk, user=players[1], ip="10.0.0.2")
    assert len(told.captured_queries) == len(read.captured_queries) - 1
    assert ConnectionRecord.objects.filter(table=table, seated=True).count() == 2
