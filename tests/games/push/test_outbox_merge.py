"""A write's outbox becomes one push per table (games/push/deliver.py ``merge``): the last event
decides what the service handed over, a sealed step's deciders add up until anyone else's push
joins, and only a write that changed nothing but presence may wait for the table's others."""

from __future__ import annotations

import pytest

from games.push.deliver import merge
from games.push.outbox import Notice, SessionChanged, TableMoved, WatchersClosed, Written

STATE = object()
BEFORE = object()


def written() -> Written:
    return Written(table=None, hand=None, seats=[], holders={}, state=STATE, before=BEFORE)


def test_one_push_per_table_in_the_order_the_tables_were_touched():
    pushes = merge([TableMoved(2), TableMoved(1), Notice(2, "joined", {"name": "ann"})])
    assert [p.table_id for p in pushes] == [2, 1]
    assert [n.key for n in pushes[0].notices] == ["joined"]
    assert pushes[0].due and pushes[1].due


def test_what_the_service_handed_over_keeps_its_state_before_only_when_it_came_first():
    (alone,) = merge([TableMoved(1, written=written())])
    assert alone.written is not None and alone.written.before is BEFORE
    (later,) = merge([Notice(1, "left", {}), TableMoved(1, written=written())])
    assert later.written is not None and later.written.before is None
    (read,) = merge([TableMoved(1, written=written()), TableMoved(1)])
    assert read.written is None  # the table changed again after it: the push reads it whole


@pytest.mark.parametrize(
    ("events", "deciders"),
    [
        ([TableMoved(1, deciders=(2,))], (2,)),
        ([TableMoved(1, deciders=(3,)), TableMoved(1, deciders=(0, 3))], (0, 3)),
        ([TableMoved(1, deciders=(3,)), TableMoved(1)], None),
        ([TableMoved(1), TableMoved(1, deciders=(3,))], None),
        ([TableMoved(1, deciders=(3,)), SessionChanged(1)], None),
    ],
)
def test_a_sealed_steps_deciders_add_up_until_everyone_is_due(events, deciders):
    (push,) = merge(events)
    assert push.deciders == deciders


@pytest.mark.parametrize(
    ("events", "presence"),
    [
        ([TableMoved(1, presence=True)], True),
        ([TableMoved(1, presence=True), TableMoved(1, presence=True)], True),
        ([TableMoved(1, presence=True), TableMoved(1)], False),
        ([TableMoved(1, presence=True), Notice(1, "joined", {})], False),
    ],
)
def test_only_presence_may_wait_for_the_tables_other_pushes(events, presence):
    (push,) = merge(events)
    assert push.presence is presence


def test_closing_the_watchers_is_no_state_push_of_its_own():
    (push,) = merge([WatchersClosed(1, keep=(5, 6))])
    assert push.keep == (5, 6) and not push.due
    (push,) = merge([WatchersClosed(1, keep=(5,)), SessionChanged(1)])
    assert push.keep == (5,) and push.due and push.session
