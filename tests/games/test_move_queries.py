"""The database work of one move stays pinned (server CPU per move is what the load benchmark
measures): a socket's move locks the table, reads its active hand, the hand's players and the
seats, and writes the hand, the action rows and the table version. The push after the commit
is pinned in test_broadcast_cost.py."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services
from games.live import consumers
from games.live.intents import parse_frame
from games.reads.selectors import hand_holders, hand_state, hand_state_clear_cache
from tests.games.table_helpers import (
    active_hand,
    frame_for_action,
    make_player,
    make_room,
    next_move,
    seated_table,
)

pytestmark = pytest.mark.django_db

# lock the table, its active hand, the seats with their users; update the hand, insert the
# action, update the table's version
MOVE_QUERIES = 6
# and the seat's 托管 flag
AUTOPLAY_QUERIES = 7
# the first move of a hand in a process also reads the hand's players (then kept)
FIRST_MOVE_QUERIES = MOVE_QUERIES + 1


def _statements(ctx: CaptureQueriesContext) -> list[str]:
    """The statements sent, without transaction control (which differs between backends)."""
    control = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE SAVEPOINT")
    return [q["sql"] for q in ctx.captured_queries if not q["sql"].upper().startswith(control)]


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
        _assert_at_most(FIRST_MOVE_QUERIES if move == 0 else MOVE_QUERIES, _statements(ctx))


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
        _assert_at_most(MOVE_QUERIES, _statements(ctx))


def test_autoplay_over_a_socket_is_pinned(table_users):
    table, users = table_users
    hand, seat, _ = _next_move(table, users)
    intent = parse_frame(json.dumps({"intent": "autoplay", "value": "true", "hand": hand.pk}))
    with CaptureQueriesContext(connection) as ctx:
        consumers.autoplay(table.pk, users[seat], intent)
    assert hand_state(active_hand(table)).autoplay[seat]
    _assert_at_most(AUTOPLAY_QUERIES, _statements(ctx))
