"""Prepared reads (games/table/prepared.py) give what their querysets give, compiling them
once; prepared writes store what the ORM's ``update`` and ``bulk_create`` store."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.db.models import Q
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import services
from games.models import Hand, HandAction, HandPlayer, Seat, Table
from games.table.prepared import PreparedInsert, PreparedRead, PreparedUpdate
from tests.support.tables import make_player, make_room, seated_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def table():
    room = make_room("qq5")
    table = seated_table(room, [make_player() for _ in range(5)])
    services.hand_start(table_id=table.pk)
    return table


def _fields(instance):
    return {f.attname: getattr(instance, f.attname) for f in instance._meta.concrete_fields}


def test_model_rows_and_their_related_objects_match_the_queryset(table):
    def seats(table_id):
        return Seat.objects.filter(table_id=table_id).select_related("user").order_by("index")

    prepared = PreparedRead(seats, "table_id")
    expected = list(seats(table.pk))
    got = prepared.rows(table_id=table.pk)
    assert [_fields(s) for s in got] == [_fields(s) for s in expected]
    assert [_fields(s.user) for s in got] == [_fields(s.user) for s in expected]
    with CaptureQueriesContext(connection) as ctx:
        assert [s.user.username for s in got]  # the users came with the seats
    assert not ctx.captured_queries
    assert all(not s._state.adding and s._state.db == "default" for s in got)


def test_values_list_rows_and_a_parameter_used_twice(table):
    hand_id = table.hands.get().pk

    def players(hand_id):
        return (
            HandPlayer.objects.filter(Q(hand_id=hand_id) | Q(hand__pk=hand_id))
            .order_by("seat")
            .values_list("seat", "user_id")
        )

    got = PreparedRead(players, "hand_id").rows(hand_id=hand_id)
    assert got == list(players(hand_id))
    assert [seat for seat, _ in got] == [0, 1, 2, 3, 4]


def test_values_that_need_converting_come_as_the_queryset_gives_them(table):
    """JSON, times and flags: the backend's converters, worked out once, applied every read."""
    hand = table.hands.get()

    def hand_values(hand_id):
        return Hand.objects.filter(pk=hand_id).values_list("options", "created_at", "settled")

    prepared = PreparedRead(hand_values, "hand_id")
    for _ in range(2):
        got = prepared.rows(hand_id=hand.pk)
        assert got == list(hand_values(hand.pk))
        options, created_at, settled = got[0]
        assert isinstance(options, dict) and created_at == hand.created_at
        assert settled is False


def test_a_shape_its_stand_in_values_would_change_is_refused(table):
    hand_id = table.hands.get().pk
    changed = PreparedRead(
        lambda hand_id: HandPlayer.objects.filter(hand_id=hand_id + 1), "hand_id"
    )
    # compared with a small positive column, a stand-in key compiles to no SQL at all
    emptied = PreparedRead(lambda hand_id: HandPlayer.objects.filter(seat=hand_id), "hand_id")
    for prepared in (changed, emptied):
        with pytest.raises(TypeError):
            prepared.rows(hand_id=hand_id)


def test_compiled_once_then_run_with_each_callers_values(table):
    builds = []

    def get(table_id):
        builds.append(table_id)
        return Table.objects.select_related("room").filter(pk=table_id).order_by()[:1]

    prepared = PreparedRead(get, "table_id")
    other = seated_table(make_room("classic3"), [make_player() for _ in range(3)])
    assert prepared.first(table_id=table.pk).room.variant == "qq5"
    assert prepared.first(table_id=other.pk).room.variant == "classic3"
    assert prepared.first(table_id=other.pk + 1000) is None
    assert prepared.first(table_id=2**80) is None  # out of any key's range: no row, no error
    assert len(builds) == 1


def test_a_locking_read_keeps_the_backends_lock():
    locked = PreparedRead(
        lambda table_id: (
            Table.objects.select_for_update(no_key=True, of=("self",))
            .filter(pk=table_id)
            .order_by()
        ),
        "table_id",
    )
    with transaction.atomic(), CaptureQueriesContext(connection) as ctx:
        locked.rows(table_id=1)
    (sql,) = [q["sql"] for q in ctx.captured_queries if q["sql"].startswith("SELECT")]
    if connection.features.has_select_for_update:
        assert "FOR NO KEY UPDATE" in sql
    else:
        assert "FOR" not in sql.split("WHERE")[-1]


def test_only_model_and_tuple_rows_can_be_prepared():
    with pytest.raises(TypeError):
        PreparedRead(
            lambda table_id: Table.objects.filter(pk=table_id).values("id"), "table_id"
        ).rows(table_id=1)


def test_an_update_writes_its_fields_where_its_keys_match_and_counts_the_rows(table):
    hand = Hand.objects.get(table=table)
    update = PreparedUpdate(Hand, fields=("record", "deadline_at"), where=("id", "version"))
    record = {"variant": "qq5", "nested": ["一", 2, None]}
    deadline = timezone.now().replace(microsecond=123456)
    stale = update.run(
        where={"id": hand.pk, "version": hand.version + 1}, record={}, deadline_at=None
    )
    moved = update.run(
        where={"id": hand.pk, "version": hand.version}, record=record, deadline_at=deadline
    )
    assert (stale, moved) == (0, 1)
    hand.refresh_from_db()
    assert (hand.record, hand.deadline_at) == (record, deadline)


def test_an_insert_stores_every_instance_as_bulk_create_would(table):
    hand = Hand.objects.get(table=table)
    fields = ("hand", "seq", "seat", "phase", "payload", "source", "created_at")
    insert = PreparedInsert(HandAction, fields=fields)
    now = timezone.now()
    rows = [
        HandAction(
            hand=hand,
            seq=90 + i,
            seat=i,
            phase="play",
            payload={"act": "pass"},
            source="bot",
            created_at=now,
        )
        for i in range(3)
    ]
    with CaptureQueriesContext(connection) as ctx:
        insert.run(rows)
        insert.run([])
    assert len(ctx.captured_queries) == 1
    stored = HandAction.objects.filter(hand=hand, seq__gte=90).order_by("seq")
    assert [(a.seq, a.seat, a.payload, a.source, a.created_at) for a in stored] == [
        (90 + i, i, {"act": "pass"}, "bot", now) for i in range(3)
    ]
