"""The cost of one table push stays pinned (issue #6: 200 tables on one process), and the
shared rendering of a push gives every audience exactly what rendering it alone gives."""

from __future__ import annotations

import pytest

from games import broadcast, services
from games.engine.hand import waiting_seats
from games.models import Seat
from games.rendering import render_table_regions
from games.selectors import hand_state, table_current_hand, table_get
from tests.games.table_helpers import (
    active_hand,
    client_action,
    make_player,
    make_room,
    seated_table,
)

pytestmark = pytest.mark.django_db

# table, hand, seats (+users), hand players: the title ladder is in memory once read
MAX_QUERIES_PER_PUSH = 5


def _alone(table_id: int) -> list[str]:
    """Every audience rendered on its own (the page's and a resync's path)."""
    table = table_get(table_id=table_id)
    hand = table_current_hand(table=table)
    seats = Seat.objects.filter(table=table, user__isnull=False).select_related("user")
    out = [
        render_table_regions(table=table, hand=hand, seat_index=s.index, user=s.user)
        for s in seats.order_by("index")
    ]
    out.append(render_table_regions(table=table, hand=hand, seat_index=None, user=None))
    return out


def _pushed(table_id: int) -> list[str]:
    return [event["html"] for _, event in broadcast.audience_frames(table_id)]


def _same_but_clock(a: list[str], b: list[str]) -> None:
    import re

    now = re.compile(r' data-now="[^"]*"')
    assert [now.sub("", x) for x in a] == [now.sub("", x) for x in b]


def test_queries_per_push_are_pinned(django_assert_max_num_queries):
    room = make_room("qq5")
    humans = [make_player() for _ in range(5)]
    table = seated_table(room, humans)
    broadcast.audience_frames(table.pk)  # the ladder read once
    with django_assert_max_num_queries(MAX_QUERIES_PER_PUSH - 1):  # no hand yet
        broadcast.audience_frames(table.pk)
    services.hand_start(table_id=table.pk)
    with django_assert_max_num_queries(MAX_QUERIES_PER_PUSH):
        frames = broadcast.audience_frames(table.pk)
    assert len(frames) == 6


def test_a_push_renders_each_audience_as_alone():
    room = make_room("qq5")
    humans = [make_player() for _ in range(4)]  # and one bot
    table = seated_table(room, humans)
    users = dict(enumerate(humans))
    services.hand_start(table_id=table.pk)
    for _ in range(400):
        _same_but_clock(_pushed(table.pk), _alone(table.pk))
        hand = active_hand(table)
        if hand is None:
            break
        state = hand_state(hand)
        seat = next(s for s in waiting_seats(state) if s in users)
        services.hand_submit_action(
            hand_id=hand.pk,
            user=users[seat],
            action=client_action(state, seat),
            expected_version=hand.version,
        )
    else:
        raise AssertionError("the hand did not end")
