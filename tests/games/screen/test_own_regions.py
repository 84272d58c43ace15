"""A seat's own regions (hand, controls, result) read only what that seat may know and what
it must act on: a move that neither concerns him nor is his to answer leaves them the same
rendering, so his socket is sent no own frame and the memo renders nothing new."""

from __future__ import annotations

import re

import pytest

from games import services
from games.engine.hand import waiting_seats
from games.engine.state import PHASE_PLAY
from games.reads.selectors import hand_state
from games.reads.snapshot import table_snapshot
from games.screen import context, regions
from tests.support.tables import (
    active_hand,
    client_action,
    make_player,
    make_room,
    seated_table,
    users_by_seat,
)

pytestmark = pytest.mark.django_db


def _move(table, users) -> int:
    hand = active_hand(table)
    state = hand_state(hand)
    seat = min(waiting_seats(state))
    services.hand_submit_action(
        table_id=table.pk,
        user=users[seat],
        action=client_action(state, seat),
        expected_version=hand.version,
    )
    return seat


def _own(table, seat: int, user) -> dict:
    hand = active_hand(table)
    read = table_snapshot(table=table, hand=hand)
    return context.table_context(snapshot=read, seat_index=seat, user=user, hints=False)


@pytest.mark.parametrize("counter", [True, False])
def test_a_seat_the_move_leaves_alone_keeps_the_same_own_regions(counter):
    """...but his 记牌器, when the room has one and the move played cards he had not seen."""
    room = make_room("classic3", options={"card_counter": counter})
    table = seated_table(room, [make_player() for _ in range(3)])
    users = users_by_seat(table)
    services.hand_start(table_id=table.pk)
    while hand_state(active_hand(table)).phase != PHASE_PLAY:
        _move(table, users)
    _move(table, users)  # a play on the table: the next moves are answers
    state = hand_state(active_hand(table))
    mover = min(waiting_seats(state))
    onlooker = (mover + 2) % 3  # neither moves nor is asked next
    before = _own(table, onlooker, users[onlooker])
    assert _move(table, users) == mover
    after = _own(table, onlooker, users[onlooker])
    assert before["version"] != after["version"]
    played = len(hand_state(active_hand(table)).plays) > len(state.plays)
    changed = ("counter",) if counter and played else ()
    assert regions.own_regions_changed(before, after) == changed
    # the controls of the seat asked next name the version his move must send
    nxt = (mover + 1) % 3
    asked = regions.render_regions(_own(table, nxt, users[nxt]))
    version = re.search(r'id="table-controls"[^>]*data-version="(\d+)"', asked)[1]
    assert int(version) == hand_state(active_hand(table)).public_version


def test_own_regions_read_nothing_their_context_leaves_out():
    """A seat's own regions are rendered from a context without ``SHARED_ONLY`` (the seat
    panels, the trick): a template of theirs that came to read one would show it empty."""
    from django.template.loader import get_template

    from games.screen import render_cache

    for name in regions.OWN_REGIONS:
        names = render_cache.template_names(get_template(f"games/table/{name}.html").template)
        assert names is not None
        read = {path.split(".", 1)[0] for path in names}
        assert not read & set(context.SHARED_ONLY), name
    shared = set()
    for name in regions.SHARED_REGIONS:
        names = render_cache.template_names(get_template(f"games/table/{name}.html").template)
        shared |= {path.split(".", 1)[0] for path in names}
    assert set(context.SHARED_ONLY) <= shared
