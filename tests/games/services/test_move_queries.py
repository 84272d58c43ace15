"""The database work of one move stays pinned (server CPU per move is what the load benchmark
measures): a socket's move locks the table and reads its seats and active hand after the lock
(one round trip on PostgreSQL), then writes the hand, the action rows and the table version
(one statement on PostgreSQL, three on SQLite, which has no data-modifying WITH clauses). The
push after the commit is pinned in test_broadcast_cost.py."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services
from games.live import consumers
from games.live.intents import parse_frame
from games.reads.selectors import hand_holders, hand_state, hand_state_clear_cache
from tests.support.tables import (
    active_hand,
    frame_for_action,
    make_player,
    make_room,
    next_move,
    seated_table,
)

pytestmark = pytest.mark.django_db

# statements of a socket's move: lock the table; its seats with their users and its active
# hand; the writes (PostgreSQL: one statement; SQLite: update the hand, insert the action,
# update the table's version)
MOVE_STATEMENTS = {"postgresql": 3, "sqlite": 5}
# round trips of a socket's move on PostgreSQL: the lock and the reads, the writes
MOVE_ROUND_TRIPS = 2
# and the seat's 托管 flag
AUTOPLAY_EXTRA = 1
# the first move of a hand in a process also reads the hand's players (then kept)
FIRST_MOVE_EXTRA = 1
# a move by hand id (views, scripts) first finds the hand's table
BY_HAND_EXTRA = 1


def _move_statements(extra: int = 0) -> int:
    return MOVE_STATEMENTS[connection.vendor] + extra


def _statements(ctx: CaptureQueriesContext) -> list[str]:
    """The statements sent, without transaction control (which differs between backends),
    each statement of a round trip that sent several counted."""
    control = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE SAVEPOINT")
    return [
        statement
        for q in ctx.captured_queries
        if not q["sql"].upper().startswith(control)
        for statement in q["sql"].split(";\n")
    ]


def _round_trips(ctx: CaptureQueriesContext) -> int:
    control = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE SAVEPOINT")
    return sum(not q["sql"].upper().startswith(control) for q in ctx.captured_queries)


def _assert_at_most(limit: int, statements: list[str]) -> None:
    assert len(statements) <= limit, "\n".join(s[:200] for s in statements)


@pytest.fixture
def table_users():
    room = make_room("qq5")
    humans = [make_player() for _ in range(5)]
    table = seated_table(room, humans)
    services.hand_start(table_id=table.pk)
    hand_holders(hand=active_hand(table))  # a process that has served the hand before
    return table, dict(enumerate(humans))


def _next_move(table, users):
    """The active hand, and the seat and action of its next human decision."""
    hand = active_hand(table)
    seat, action = next_move(table.pk, set(users))
    return hand, seat, action


def test_a_move_over_a_socket_is_pinned(table_users):
    table, users = table_users
    hand_state_clear_cache()  # a fresh process
    for move in range(12):  # the deal's steps into the play, and plays
        hand, seat, action = _next_move(table, users)
        frame = {**frame_for_action(action, hand.version), "hand": str(hand.pk)}
        intent = parse_frame(json.dumps(frame))
        with CaptureQueriesContext(connection) as ctx:
            consumers.act(table.pk, users[seat], intent)
        assert active_hand(table).version > hand.version
        extra = FIRST_MOVE_EXTRA if move == 0 else 0
        _assert_at_most(_move_statements(extra), _statements(ctx))
        if connection.vendor == "postgresql":
            assert _round_trips(ctx) <= MOVE_ROUND_TRIPS + extra


def test_a_move_by_hand_id_is_pinned(table_users):
    """The services' other entry (views, scripts): the hand's table is locked by the hand."""
    table, users = table_users
    for _ in range(6):
        hand, seat, action = _next_move(table, users)
        with CaptureQueriesContext(connection) as ctx:
            services.hand_submit_action(
                hand_id=hand.pk, user=users[seat], action=action, expected_version=hand.version
            )
        assert active_hand(table).version > hand.version
        _assert_at_most(_move_statements(BY_HAND_EXTRA), _statements(ctx))


def test_autoplay_over_a_socket_is_pinned(table_users):
    table, users = table_users
    hand, seat, _ = _next_move(table, users)
    intent = parse_frame(json.dumps({"intent": "autoplay", "value": "true", "hand": hand.pk}))
    with CaptureQueriesContext(connection) as ctx:
        consumers.autoplay(table.pk, users[seat], intent)
    assert hand_state(active_hand(table)).autoplay[seat]
    _assert_at_most(_move_statements(AUTOPLAY_EXTRA), _statements(ctx))
