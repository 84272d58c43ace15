"""The table's life (issue #16): the model of games/table/life.py, and the services that go
through it, tried as a club tries them: players who sit between hands, vanish, come back,
quick-join twice at once, and tables that nobody plays any more."""

from __future__ import annotations

import datetime
import threading
import time
from types import SimpleNamespace

import pytest
from django.db import close_old_connections
from django.urls import reverse
from django.utils import timezone, translation
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from games import services
from games.models import Hand, HandPlayer, Seat, SocketLease
from games.reads import selectors
from games.reads.snapshot import table_snapshot
from games.runner import deadlines
from games.screen.context import table_context
from games.screen.regions import render_regions
from games.services import presence
from games.services.base import bump, lock_table, write
from games.table import life
from games.table.errors import ActionRejected, ErrorCode
from games.table.life import Event, Refused, SeatState, TableState
from games.table.stakes import disconnect_grace
from tests.support.tables import (
    active_hand,
    bots_reply,
    make_player,
    make_room,
    screen_html,
    seated_table,
)

NOW = datetime.datetime(2026, 12, 1, 12, 0, tzinfo=datetime.UTC)
GRACE = datetime.timedelta(seconds=20)


def row(index=0, *, user=None, bot=False, leaving=False, sockets=0, away_since=None):
    return SimpleNamespace(
        index=index,
        user_id=user,
        is_bot=bot,
        sit_out_after_hand=leaving,
        connections=sockets,
        disconnected_at=away_since,
    )


class TestModel:
    def test_seat_states(self):
        assert life.seat_state(row()) is SeatState.EMPTY
        assert life.seat_state(row(bot=True)) is SeatState.BOT
        assert life.seat_state(row(user=1, sockets=2)) is SeatState.PRESENT
        assert life.seat_state(row(user=1)) is SeatState.PRESENT  # no socket yet
        assert life.seat_state(row(user=1, away_since=NOW)) is SeatState.AWAY
        assert life.seat_state(row(user=1, leaving=True, sockets=1)) is SeatState.LEAVING

    def test_refused_transitions(self):
        with pytest.raises(Refused):
            life.seat_next(SeatState.PRESENT, Event.SIT)  # a taken seat
        with pytest.raises(Refused):
            life.seat_next(SeatState.EMPTY, Event.LEAVE)
        with pytest.raises(Refused):
            life.seat_next(SeatState.PRESENT, Event.REMOVE_BOT)
        assert life.seat_next(SeatState.LEAVING, Event.FINISH) is SeatState.EMPTY

    def test_every_state_has_a_way_out(self):
        # a seated player can always leave, a bot be removed, a leaving seat be freed
        for state in SeatState:
            if state is SeatState.EMPTY:
                continue
            exits = {nxt for (s, _e), nxt in life.SEAT_TRANSITIONS.items() if s is state}
            assert SeatState.EMPTY in exits, state

    def test_absent_past_grace_stood_up_and_nobody_here_deals_nothing(self):
        gone = row(0, user=1, away_since=NOW - GRACE)
        here = row(1, user=2, sockets=1)
        bot = row(2, bot=True)
        plan = life.deal_plan([gone, here, bot], now=NOW, grace=GRACE, bots_take_absent_seats=False)
        assert plan.stand_up == (0,) and not plan.deal and plan.why == "empty"
        plan = life.deal_plan([gone, here, bot], now=NOW, grace=GRACE, bots_take_absent_seats=True)
        assert plan.stand_up == (0,) and plan.bots == (0,) and plan.deal
        within = row(0, user=1, away_since=NOW - GRACE + datetime.timedelta(seconds=1))
        plan = life.deal_plan(
            [within, here, bot], now=NOW, grace=GRACE, bots_take_absent_seats=False
        )
        assert plan.deal and plan.stand_up == ()
        plan = life.deal_plan(
            [gone, row(1, bot=True), bot], now=NOW, grace=GRACE, bots_take_absent_seats=True
        )
        assert not plan.deal and plan.why == "nobody_here"

    def test_table_states(self):
        here = row(0, user=1, sockets=1)
        gone = row(1, user=2, away_since=NOW - GRACE)
        state = life.table_state
        kw = {"now": NOW, "grace": GRACE}
        assert state([here, row(1)], in_hand=False, shows_result=False, **kw) is TableState.WAITING
        assert state([here, gone], in_hand=False, shows_result=False, **kw) is TableState.READY
        assert state([here, gone], in_hand=False, shows_result=True, **kw) is TableState.RESULT
        assert state([gone, row(0, bot=True)], in_hand=False, shows_result=True, **kw) is (
            TableState.IDLE
        )
        assert state([gone, row(1)], in_hand=True, shows_result=False, **kw) is TableState.IN_HAND

    def test_redeal_needs_a_player_who_plays_himself(self):
        seats = [row(0, user=1, sockets=1), row(1, bot=True), row(2, user=3, sockets=1)]
        assert life.may_redeal(seats, [False, False, True], now=NOW, grace=GRACE)
        assert not life.may_redeal(seats, [True, False, True], now=NOW, grace=GRACE)


def _away(seat: Seat, seconds: float) -> None:
    """The seat's player closed his last tab ``seconds`` ago."""
    Seat.objects.filter(pk=seat.pk).update(
        connections=0, disconnected_at=timezone.now() - datetime.timedelta(seconds=seconds)
    )


def _three_seated(**room_fields):
    """A classic3 table with three new players seated."""
    table = services.table_create(room=make_room("classic3", **room_fields))
    players = [make_player() for _ in range(3)]
    for user in players:
        services.table_join(table_id=table.pk, user=user)
    return table, players


def _play_out(table_id: int) -> None:
    """Every player hands his seat to 托管 and the bots reply: the hand plays to its end
    (redeals stop)."""
    hand = active_hand(table_id)
    while hand is not None:
        for player in HandPlayer.objects.filter(hand=hand, user__isnull=False).select_related(
            "user"
        ):
            try:
                services.seat_set_autoplay(table_id=table_id, user=player.user, enabled=True)
            except ActionRejected as error:
                assert error.code in (ErrorCode.HAND_OVER, ErrorCode.HAND_NOT_FOUND)
        bots_reply(table_id)
        hand = active_hand(table_id)


@pytest.mark.django_db
class TestJoiningBetweenHands:
    def test_a_player_who_sits_after_a_hand_is_a_player_of_the_table(self):
        room = make_room("classic3")
        alice, bob, carol, dave = (make_player() for _ in range(4))
        table = services.table_create(room=room)
        for user in (alice, bob, carol):
            services.table_join(table_id=table.pk, user=user)
        services.hand_start(table_id=table.pk, user=alice)
        _play_out(table.pk)
        services.table_leave(table_id=table.pk, user=carol)
        services.table_join(table_id=table.pk, user=dave)
        seat = selectors.seat_of_user(table=table, user=dave)
        html = screen_html(table, seat_index=seat.index, user=dave)
        assert "You are watching this table" not in html
        assert reverse("table_leave", args=[table.pk]) in html  # he can leave
        assert reverse("table_next_hand", args=[table.pk]) in html  # and deal
        hand = services.hand_start(table_id=table.pk, user=dave)
        assert HandPlayer.objects.filter(hand=hand, user=dave).exists()


@pytest.mark.django_db
class TestAbsentPlayers:
    def test_absent_past_grace_is_stood_up_before_the_deal_with_a_notice(self):
        table, (alice, _bob, carol) = _three_seated()
        _away(selectors.seat_of_user(table=table, user=carol), 3600)
        with pytest.raises(ActionRejected) as refused:
            services.hand_start(table_id=table.pk, user=alice)
        assert refused.value.code is ErrorCode.STOOD_UP_ABSENT
        assert carol.username in refused.value.message
        assert selectors.seat_of_user(table=table, user=carol) is None
        assert not Hand.objects.filter(table=table).exists()
        before = type(carol).objects.get(pk=carol.pk).beans
        services.table_fill_with_bots(table_id=table.pk)
        services.hand_start(table_id=table.pk, user=alice)
        _play_out(table.pk)
        assert type(carol).objects.get(pk=carol.pk).beans == before

    def test_the_room_may_give_an_absent_players_seat_to_a_bot(self):
        table, (alice, _bob, carol) = _three_seated(bots_take_absent_seats=True)
        _away(selectors.seat_of_user(table=table, user=carol), 3600)
        hand = services.hand_start(table_id=table.pk, user=alice)
        players = {p.seat: (p.user_id, p.is_bot) for p in HandPlayer.objects.filter(hand=hand)}
        assert carol.pk not in {user for user, _bot in players.values()}
        assert sum(bot for _user, bot in players.values()) == 1

    def test_within_the_grace_he_is_dealt_in(self):
        table, (alice, _bob, carol) = _three_seated()
        _away(selectors.seat_of_user(table=table, user=carol), 1)
        hand = services.hand_start(table_id=table.pk, user=alice)
        assert HandPlayer.objects.filter(hand=hand, user=carol).exists()

    def test_a_table_with_nobody_here_deals_nothing(self):
        alice = make_player()
        table = seated_table(make_room("classic3"), [alice])
        _away(selectors.seat_of_user(table=table, user=alice), 3600)
        with pytest.raises(ActionRejected) as refused:
            services.hand_start(table_id=table.pk)  # no player asking: the table on its own
        assert refused.value.code in (ErrorCode.STOOD_UP_ABSENT, ErrorCode.NOBODY_HERE)
        assert not Hand.objects.filter(table=table).exists()


@pytest.mark.django_db
class TestAbandonedClassic3:
    def test_all_pass_redeals_are_one_hand_and_stop_without_a_player(self):
        alice = make_player()
        table = seated_table(make_room("classic3"), [alice])
        services.hand_start(table_id=table.pk, user=alice)
        _play_out(table.pk)
        numbers = set(Hand.objects.filter(table=table).values_list("number", flat=True))
        assert numbers == {1}  # re-deals, if any, are deals of hand 1
        # whoever passed, 托管 and bots alone never re-deal more than once without him
        deals = Hand.objects.filter(table=table).count()
        assert deals <= 2
        rows = list(selectors.user_hand_rows(user=alice))
        assert len(rows) == 1 and rows[0].hand.redeal == deals - 1
        assert active_hand(table) is None

    def test_the_history_shows_one_row_per_hand_with_its_redeals_inside(self, client):
        alice = make_player()
        table = seated_table(make_room("classic3"), [alice])
        first = services.hand_start(table_id=table.pk, user=alice)
        _play_out(table.pk)
        last = Hand.objects.filter(table=table).order_by("-id").first()
        # an all-pass deal dealt again is stored as the same hand number, deal 1
        again = Hand.objects.create(
            table=table,
            number=first.number,
            redeal=last.redeal + 1,
            variant_key=first.variant_key,
            stakes=first.stakes,
            seed="s",
            commitment="c",
            record=first.record,
            status=Hand.Status.FINISHED,
        )
        HandPlayer.objects.create(hand=again, seat=0, user=alice)
        rows = list(selectors.user_hand_rows(user=alice))
        assert [r.hand_id for r in rows] == [again.pk]
        client.force_login(alice)
        page = client.get("/hands/").content.decode()
        assert page.count(f"/hands/{again.pk}/") >= 1
        assert f"/hands/{first.pk}/" not in page


@pytest.mark.django_db
class TestSeatingIsAtomic:
    def test_one_seat_per_user_and_room(self):
        room = make_room("classic3")
        alice = make_player()
        one = services.table_create(room=room)
        two = services.table_create(room=room)
        services.table_join(table_id=one.pk, user=alice)
        with pytest.raises(ActionRejected) as refused:
            services.table_join(table_id=two.pk, user=alice)
        assert refused.value.code is ErrorCode.SEATED_ELSEWHERE
        assert services.table_quick_join(room=room, user=alice) == one
        assert Seat.objects.filter(room=room, user=alice).count() == 1

    def test_the_database_refuses_a_second_seat_in_the_room(self):
        from django.db import IntegrityError, transaction

        room = make_room("classic3")
        alice = make_player()
        one = services.table_create(room=room)
        two = services.table_create(room=room)
        Seat.objects.filter(table=one, index=0).update(user=alice)
        with pytest.raises(IntegrityError), transaction.atomic():
            Seat.objects.filter(table=two, index=0).update(user=alice)

    def test_seat_moves_and_swaps_only_between_hands(self):
        from games.services.private import seat_move, seat_request_swap

        room = make_room("qq5")
        players = [make_player() for _ in range(5)]
        table = services.table_create(room=room)
        for user in players[:4]:
            services.table_join(table_id=table.pk, user=user)
        services.table_fill_with_bots(table_id=table.pk)
        services.hand_start(table_id=table.pk, user=players[0])
        for call in (
            lambda: seat_request_swap(table_id=table.pk, user=players[0], seat_index=1),
            lambda: seat_move(table_id=table.pk, user=players[0], seat_index=4),
        ):
            with translation.override("en"), pytest.raises(ActionRejected) as refused:
                call()
            assert refused.value.code is ErrorCode.HAND_IN_PROGRESS
            assert "wait until it is over" in refused.value.message


@pytest.mark.django_db(transaction=True)
def test_concurrent_quick_joins_seat_a_user_once(live_db):
    room = make_room("classic3")
    alice = make_player()
    for _ in range(3):
        services.table_create(room=room)
    tables, errors = [], []
    start = threading.Barrier(8)

    def quick_join():
        try:
            start.wait()
            tables.append(services.table_quick_join(room=room, user=alice).pk)
        except Exception as error:
            errors.append(repr(error))
        finally:
            close_old_connections()

    threads = [threading.Thread(target=quick_join) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, errors
    assert Seat.objects.filter(room=room, user=alice).count() == 1
    assert tables == [Seat.objects.get(room=room, user=alice).table_id] * 8


@pytest.mark.django_db(transaction=True)
def test_a_write_that_read_first_waits_for_another_writer(live_db):
    """Two writes of one table, the second begun while the first holds what it read: both land,
    one after the other. On SQLite a deferred transaction was refused at once instead
    ("database is locked"), and a quick-join so refused went on to open a new table."""
    table = services.table_create(room=make_room("classic3"))
    first_read, second_begins = threading.Event(), threading.Event()
    errors: list[str] = []

    def first() -> None:
        try:
            with write():
                locked = lock_table(table.pk)
                first_read.set()
                second_begins.wait(60)
                time.sleep(0.3)  # the second writer is at its door
                bump(locked)
        except Exception as error:
            errors.append(repr(error))
        finally:
            close_old_connections()

    def second() -> None:
        try:
            first_read.wait(60)
            second_begins.set()
            with write():
                bump(lock_table(table.pk))
        except Exception as error:
            errors.append(repr(error))
        finally:
            close_old_connections()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, errors
    table.refresh_from_db()
    assert table.version == 2


class TableLifeMachine(RuleBasedStateMachine):
    """Players of one classic3 room join, quick-join, leave, open and close tabs, vanish past
    the grace, deal and finish hands; processes restart (nothing happens to the seats) or crash
    (their sockets die: their users are away from then on)."""

    def __init__(self) -> None:
        super().__init__()
        self.room = make_room("classic3")
        self.users = [make_player() for _ in range(4)]
        self.tables = [services.table_create(room=self.room) for _ in range(2)]
        self.grace = disconnect_grace()

    def _seat(self, user):
        return Seat.objects.filter(room=self.room, user=user).first()

    @rule(u=st.integers(0, 3), t=st.integers(0, 1), index=st.none() | st.integers(0, 2))
    def join(self, u, t, index):
        try:
            services.table_join(table_id=self.tables[t].pk, user=self.users[u], seat_index=index)
        except ActionRejected as error:
            assert error.code in (
                ErrorCode.SEATED_ELSEWHERE,
                ErrorCode.SEAT_TAKEN,
                ErrorCode.TABLE_FULL,
            ), error.code

    @rule(u=st.integers(0, 3))
    def quick_join(self, u):
        try:
            table = services.table_quick_join(room=self.room, user=self.users[u])
        except ActionRejected as error:
            assert error.code is ErrorCode.SEATED_ELSEWHERE, error.code
            return
        if table.pk not in {t.pk for t in self.tables}:
            self.tables.append(table)
        assert self._seat(self.users[u]).table_id == table.pk

    @rule(u=st.integers(0, 3))
    def leave(self, u):
        seat = self._seat(self.users[u])
        if seat is None:
            return
        services.table_leave(table_id=seat.table_id, user=self.users[u])

    @rule(u=st.integers(0, 3))
    def connect(self, u):
        seat = self._seat(self.users[u])
        if seat is not None:
            services.seat_connect(table_id=seat.table_id, user=self.users[u])

    @rule(u=st.integers(0, 3))
    def disconnect(self, u):
        seat = self._seat(self.users[u])
        if seat is not None and seat.connections > 0:
            services.seat_disconnect(table_id=seat.table_id, user=self.users[u])

    @rule(u=st.integers(0, 3))
    def grace_expires(self, u):
        seat = self._seat(self.users[u])
        if seat is not None and seat.disconnected_at is not None and seat.connections == 0:
            _away(seat, self.grace.total_seconds() + 1)

    @rule(u=st.integers(0, 3), t=st.integers(0, 1))
    def deal(self, u, t):
        table = self.tables[t]
        seat = Seat.objects.filter(table=table, user=self.users[u]).first()
        user = self.users[u] if seat is not None else None
        seats = list(Seat.objects.filter(table=table))
        now = timezone.now()
        nobody = not any(life.here(s, now=now, grace=self.grace) for s in seats)
        gone = {s.user_id for s in seats if s.user_id and life.gone(s, now=now, grace=self.grace)}
        hands = Hand.objects.filter(table=table).count()
        try:
            hand = services.hand_start(table_id=table.pk, user=user)
        except ActionRejected:
            assert Hand.objects.filter(table=table).count() == hands
            return
        assert user is not None or not nobody, "a table with nobody here dealt"
        dealt_in = set(HandPlayer.objects.filter(hand=hand).values_list("user_id", flat=True))
        assert not (dealt_in & gone), "a player away past the grace was dealt in"

    @rule(t=st.integers(0, 1))
    def fill_with_bots(self, t):
        try:
            services.table_fill_with_bots(table_id=self.tables[t].pk)
        except ActionRejected as error:
            assert error.code is ErrorCode.HAND_IN_PROGRESS, error.code

    @rule(t=st.integers(0, 1), index=st.integers(0, 2))
    def remove_bot(self, t, index):
        try:
            services.table_remove_bot(table_id=self.tables[t].pk, seat_index=index)
        except ActionRejected as error:
            assert error.code in (ErrorCode.HAND_IN_PROGRESS, ErrorCode.BAD_SEAT), error.code

    @rule(t=st.integers(0, 1))
    def finish(self, t):
        _play_out(self.tables[t].pk)

    @rule()
    def process_restart(self):
        # another process restarts: it resets nobody's sockets, and this one's leases live on
        before = list(Seat.objects.filter(room=self.room).values_list("connections", flat=True))
        selectors.hand_state_clear_cache()
        deadlines.presence_sweep(now=timezone.now())
        after = list(Seat.objects.filter(room=self.room).values_list("connections", flat=True))
        assert before == after

    @rule()
    def process_crash(self):
        # this process dies: its leases are no longer renewed, the sweep expires them and the
        # grace of their users starts
        lease = datetime.timedelta(seconds=presence.lease_seconds() + 1)
        SocketLease.objects.filter(process=presence.PROCESS_ID).update(
            renewed_at=timezone.now() - lease
        )
        deadlines.presence_sweep(now=timezone.now())
        assert not Seat.objects.filter(room=self.room, connections__gt=0).exists()

    @invariant()
    def no_user_holds_two_seats_in_the_room(self):
        users = list(
            Seat.objects.filter(room=self.room, user__isnull=False).values_list(
                "user_id", flat=True
            )
        )
        assert len(users) == len(set(users))

    @invariant()
    def no_seat_has_two_occupants(self):
        assert not Seat.objects.filter(room=self.room, user__isnull=False, is_bot=True).exists()

    @invariant()
    def a_seated_player_can_act_or_leave(self):
        for seat in Seat.objects.filter(room=self.room, user__isnull=False).select_related(
            "table__room", "user"
        ):
            table = seat.table
            hand = selectors.table_current_hand(table=table)
            ctx = table_context(
                snapshot=table_snapshot(table=table, hand=hand),
                seat_index=seat.index,
                user=seat.user,
            )
            assert ctx["seated"], "a seated player is shown as a spectator"
            html = render_regions(ctx)
            assert reverse("table_leave", args=[table.pk]) in html, "no way to leave"
            in_hand = hand is not None and hand.status == Hand.Status.ACTIVE
            if in_hand:
                assert HandPlayer.objects.filter(hand=hand, user=seat.user).exists() or (
                    seat.sit_out_after_hand
                )


@pytest.mark.slow
@pytest.mark.django_db
def test_table_life_machine():
    from hypothesis.stateful import run_state_machine_as_test

    run_state_machine_as_test(
        TableLifeMachine,
        settings=settings(
            max_examples=40,
            stateful_step_count=30,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        ),
    )


@pytest.mark.django_db(transaction=True)
def test_the_deal_takes_the_seat_swap_offers_off_every_screen(live_db, monkeypatch):
    from games.push import frames as table_frames
    from games.push import send

    room = make_room("qq5")
    players = [make_player() for _ in range(5)]
    table = services.table_create(room=room)
    for user in players:
        services.table_join(table_id=table.pk, user=user)
    swap = reverse("seat_swap", args=[table.pk])
    sent = []
    monkeypatch.setattr(send, "send_frames", sent.extend)
    services.hand_start(table_id=table.pk, user=players[0])  # commits: the push follows
    mine = [
        frame.html
        for frame in sent
        if frame.group == table_frames.user_group(table.pk, players[0].pk)
    ]
    assert mine and all('id="table-session"' in html for html in mine)
    assert not any(swap in html for html in mine)
