"""The cost of one table push stays pinned (issue #6: 200 tables on one process), and the
shared rendering of a push gives every audience exactly what rendering it alone gives."""

from __future__ import annotations

import pytest

from games import broadcast, render_cache, services
from games.deadlines import hand_apply_due_deadlines
from games.engine.hand import waiting_seats
from games.models import Seat, Table
from games.rendering import render_table_regions, table_snapshot
from games.selectors import hand_state, table_current_hand, table_get
from tests.games.table_helpers import (
    active_hand,
    awaits_bot,
    client_action,
    make_player,
    make_room,
    seated_table,
)

pytestmark = pytest.mark.django_db

# table, hand, seats (+users), hand players, the players' and spectators' languages (one
# query): the title ladder is in memory once read
MAX_QUERIES_PER_PUSH = 5
# after a move, the service hands its push what it just wrote: only the languages are read
MAX_QUERIES_KNOWN = 1


def _alone(table_id: int, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every audience rendered on its own (the page's and a resync's path), nothing reused
    from earlier renderings."""
    with monkeypatch.context() as patch:
        patch.setattr(render_cache, "cached", lambda key, render: render())
        return _rendered_alone(table_id)


def _rendered_alone(table_id: int) -> dict[str, str]:
    """Each audience's rendering by the group its frames go to."""
    table = table_get(table_id=table_id)
    hand = table_current_hand(table=table)
    seats = Seat.objects.filter(table=table, user__isnull=False).select_related("user")
    out = {
        broadcast.user_group(table_id, s.user_id): render_table_regions(
            table=table, hand=hand, seat_index=s.index, user=s.user
        )
        for s in seats.order_by("index")
    }
    out[broadcast.public_group(table_id)] = render_table_regions(
        table=table, hand=hand, seat_index=None, user=None
    )
    return out


def _pushed(table_id: int) -> dict[str, str]:
    return {group: event["html"] for group, event in broadcast.audience_frames(table_id)}


def _same_but_clock(a: dict[str, str], b: dict[str, str]) -> None:
    """Every frame of ``a`` is its group's of ``b``, but for the clock and the frame's header
    (a push's, a fresh load's, or none)."""
    import re

    now = re.compile(r' data-now="[^"]*"|<div id="table-frame"[^>]*></div>')
    assert {g: now.sub("", x) for g, x in a.items()} == {g: now.sub("", b[g]) for g in a}


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
    assert len(frames) == 5  # one per seat; nobody watches, so no public frame
    # the push of a service that just wrote the table reads only the languages
    locked = Table.objects.select_related("room").get(pk=table.pk)  # as the services lock it
    hand = table_current_hand(table=locked)
    known = table_snapshot(
        table=locked,
        hand=hand,
        seats=list(Seat.objects.filter(table=table).select_related("user")),
        holders={seat: user.pk for seat, user in enumerate(humans)},
        state=hand_state(hand),
    )
    with django_assert_max_num_queries(MAX_QUERIES_KNOWN):
        assert len(broadcast.audience_frames(table.pk, known=known)) == 5


def test_a_push_renders_each_audience_as_alone(monkeypatch, django_capture_on_commit_callbacks):
    """Pushes reuse renderings of earlier pushes and other audiences, and a service's push
    what the service just wrote: over a whole hand, each audience's frame, as sent after a
    move and as read back from the database, is what rendering it alone from scratch gives."""
    sent: list[list] = []
    monkeypatch.setattr(broadcast, "send_frames", sent.append)
    room = make_room("qq5")
    humans = [make_player() for _ in range(4)]  # and one bot
    table = seated_table(room, humans)
    users = dict(enumerate(humans))
    from club.models import SpectatorPresence

    SpectatorPresence.objects.create(table=table, user=make_player(), channel_name="watcher")
    services.hand_start(table_id=table.pk)
    for _ in range(400):
        alone = _alone(table.pk, monkeypatch)
        pushed = _pushed(table.pk)
        assert pushed.keys() == alone.keys()
        _same_but_clock(pushed, alone)
        if sent:  # the last push: to every audience, or a sealed step's decider alone
            _same_but_clock({group: event["html"] for group, event in sent[-1]}, alone)
        hand = active_hand(table)
        if hand is None:
            break
        state = hand_state(hand)
        with django_capture_on_commit_callbacks(execute=True):
            if awaits_bot(hand):  # the bot's reply, pushed from the deadline runner
                hand_apply_due_deadlines(now=hand.deadline_at)
                continue
            seat = next(s for s in waiting_seats(state) if s in users)
            services.hand_submit_action(
                hand_id=hand.pk,
                user=users[seat],
                action=client_action(state, seat),
                expected_version=hand.version,
            )
    else:
        raise AssertionError("the hand did not end")
