"""Arena events end to end through the services and the runner (clock injected): pairing from
the pool, one hand per table, points and streaks, pause after 托管, the end (late hands do not
count), the podium and the prizes through the ledger."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.models import BeanEntry
from competitions import selectors, services
from competitions.errors import EventRefused
from competitions.models import Entry, Event, Game, Settlement
from games import services as game_services
from games.models import Seat
from games.table.errors import ActionRejected
from tests.competitions.helpers import (
    START,
    assert_audit_clean,
    assert_standings_are_the_recount,
    entrants,
    event_rows_sum,
    live_tables,
    make_event,
    play_all,
    step,
)
from tests.support.tables import make_player, make_room, play_to_end

pytestmark = pytest.mark.django_db
MINUTE = datetime.timedelta(minutes=1)


def _seated_users(event):
    return [p for g in Game.objects.filter(event=event) for p in g.players if p is not None]


class ArenaTests:
    def test_a_whole_arena(self, append_only_triggers):
        room = make_room("classic3", rake_percent=10, bot_delay_ms=0)
        event = make_event(room)
        players = entrants(event, 7)
        assert all(p.beans == 10_000 - 100 for p in players)
        event = step(event, START)
        assert event.status == Event.Status.RUNNING
        # seven in the pool: two tables of three, the seventh waits (he registered last)
        assert len(live_tables(event)) == 2
        seated = _seated_users(event)
        assert len(seated) == len(set(seated)) == 6
        for minute in range(1, 4):
            assert play_all(event) >= 1
            event = step(event, START + minute * MINUTE)
        assert_standings_are_the_recount(event)
        # a table dealt before the end and finished after it does not count
        late = live_tables(event)
        event = step(event, event.ends_at)
        assert event.status == Event.Status.FINISHED
        assert all(g.void for g in Game.objects.filter(table__in=late))
        for table in late:
            play_to_end(table)
        event = step(event, event.ends_at + MINUTE)
        settlement = Settlement.objects.get(event=event)
        assert settlement.fees == 700 and settlement.house == 70
        ranked = selectors.final_order(event=event)
        assert [e.rank for e in ranked] == list(range(1, len(ranked) + 1))
        prizes = [e.prize for e in Entry.objects.filter(event=event).order_by("rank")[:2]]
        assert prizes == [378, 252]  # 60 % and 40 % of 630
        assert event_rows_sum(event) == 0
        house = BeanEntry.objects.filter(event_ref=event.ledger_ref, user__isnull=True)
        assert sum(e.delta for e in house) == settlement.house
        assert_audit_clean()
        # settled once: finishing again moves nothing
        before = BeanEntry.objects.count()
        services.event_finish(event_id=event.pk)
        assert BeanEntry.objects.count() == before

    def test_event_hands_move_no_beans_and_nobody_joins_their_tables(self, append_only_triggers):
        room = make_room("classic3", bot_delay_ms=0)
        event = make_event(room, entry_fee=0)
        players = entrants(event, 3)
        step(event, START)
        (table,) = live_tables(event)
        stranger = make_player()
        with pytest.raises(ActionRejected):
            game_services.table_join(table_id=table.pk, user=stranger)
        play_to_end(table)
        for player in players:
            player.refresh_from_db()
            assert player.beans == 1_000_000 or player.beans == 10_000
        assert not Seat.objects.filter(table=table, user__isnull=False).exists()
        assert not BeanEntry.objects.filter(hand_ref__isnull=False, user__isnull=False).exists()
        assert_audit_clean()

    def test_bots_fill_only_where_allowed_and_never_score(self, append_only_triggers):
        room = make_room("qq5", bot_delay_ms=0)
        event = make_event(room, allow_bots=True, min_entrants=2, bot_wait_seconds=30)
        entrants(event, 2)
        event = step(event, START)
        assert not live_tables(event)  # not yet waited 30 s
        event = step(event, START + datetime.timedelta(seconds=31))
        (game,) = Game.objects.filter(event=event)
        assert game.players.count(None) == 3
        play_all(event)
        step(event, START + 2 * MINUTE)
        assert Entry.objects.filter(event=event).count() == 2
        assert sum(e.played for e in Entry.objects.filter(event=event)) == 2

    def test_pause_and_托管_take_a_player_out_of_the_pool(self, append_only_triggers):
        room = make_room("classic3", bot_delay_ms=0)
        event = make_event(room)
        a, _b, c, d = entrants(event, 4)
        services.entry_pause(event_id=event.pk, user=d, paused=True)
        event = step(event, START)
        assert d.pk not in _seated_users(event)
        (table,) = live_tables(event)
        # c leaves his table mid-hand: 托管 plays it out, and he is paused after it
        game_services.table_leave(table_id=table.pk, user=c)
        play_to_end(table)
        step(event, START + MINUTE)
        assert Entry.objects.get(event=event, user=c).paused
        assert Entry.objects.get(event=event, user=a).waiting_since is not None

    def test_a_latecomer_joins_the_running_arena_until_pairing_stops(self, append_only_triggers):
        room = make_room("classic3", bot_delay_ms=0)
        event = make_event(room)
        entrants(event, 3)
        event = step(event, START)
        assert len(live_tables(event)) == 1
        late = entrants(event, 3)  # during the event: the fee taken, straight into the pool
        for player in late:
            player.refresh_from_db()
            assert player.beans == 10_000 - 100
        event = step(event, START + MINUTE)
        assert len(live_tables(event)) == 2
        assert {p.pk for p in late} <= set(_seated_users(event))
        # no table is formed in the last minutes: nobody may join any more
        Event.objects.filter(pk=event.pk).update(
            starts_at=timezone.now() - datetime.timedelta(seconds=event.minutes * 60 - 60)
        )
        with pytest.raises(EventRefused):
            services.event_register(event_id=event.pk, user=make_player())
        assert_audit_clean()

    def test_registration_rules_and_refunds(self, append_only_triggers):
        room = make_room("classic3")
        event = make_event(room, max_entrants=3, entry_fee=500)
        poor = make_player(beans=100)
        with pytest.raises(EventRefused):
            services.event_register(event_id=event.pk, user=poor)
        players = entrants(event, 3)
        with pytest.raises(EventRefused):
            services.event_register(event_id=event.pk, user=make_player())
        services.event_withdraw(event_id=event.pk, user=players[0])
        players[0].refresh_from_db()
        assert players[0].beans == 10_000
        # two left, three needed: cancelled at the start, every fee refunded
        event = step(event, START)
        assert event.status == Event.Status.CANCELLED
        for player in players:
            player.refresh_from_db()
            assert player.beans == 10_000
        assert event_rows_sum(event) == 0
        assert Settlement.objects.get(event=event).refunded == 1000
        assert_audit_clean()


@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(players=st.integers(3, 7), passes=st.integers(1, 2))
@pytest.mark.django_db
def test_arena_properties(append_only_triggers, players, passes):
    """Over any pool: nobody at two tables at once, no bot scored, standings = recount."""
    room = make_room("classic3", bot_delay_ms=0)
    event = make_event(room, entry_fee=0, allow_bots=True, min_entrants=2)
    entrants(event, players)
    event = step(event, START)
    for n in range(1, passes + 1):
        busy = [
            u for t in live_tables(event) for u in t.seats.values_list("user_id", flat=True) if u
        ]
        assert len(busy) == len(set(busy))
        play_all(event)
        event = step(event, START + n * MINUTE)
    assert_standings_are_the_recount(event)
    assert not Entry.objects.filter(event=event, user__is_bot=True).exists()


@pytest.mark.django_db
def test_a_player_who_vanishes_plays_on_under_托管_and_is_paused(append_only_triggers):
    from games.engine.hand import waiting_seats
    from games.reads.selectors import hand_state
    from games.runner.deadlines import hand_apply_due_deadlines
    from tests.support.tables import active_hand, client_action, users_by_seat

    room = make_room("classic3", bot_delay_ms=0)
    event = make_event(room)
    players = entrants(event, 3)
    gone = players[1]
    event = step(event, START)
    (table,) = live_tables(event)
    by_seat = users_by_seat(table)
    game_services.seat_connect(table_id=table.pk, user=gone, channel_name="tab")
    game_services.seat_disconnect(table_id=table.pk, user=gone, channel_name="tab")
    later = timezone.now() + datetime.timedelta(minutes=5)
    for _ in range(500):
        hand = active_hand(table)
        if hand is None:
            break
        state = hand_state(hand)
        seat = waiting_seats(state)[0]
        if by_seat[seat] == gone:
            assert hand_apply_due_deadlines(now=later) == 1
            continue
        game_services.hand_submit_action(
            hand_id=hand.pk,
            user=by_seat[seat],
            action=client_action(state, seat),
            expected_version=hand.version,
        )
    assert active_hand(table) is None
    step(event, START + MINUTE)
    assert Entry.objects.get(event=event, user=gone).paused
    assert Entry.objects.get(event=event, user=gone).played == 1
    assert not Entry.objects.filter(event=event, paused=True).exclude(user=gone).exists()
