"""Table and hand services: seats, balances, versions, engine refusals, bots, settlement."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from django.db import connection

from accounts.models import BeanEntry, HandSettlement, User
from games import services
from games.engine.hand import waiting_seats
from games.engine.record import replay
from games.models import Hand, HandAction, HandActionIsAppendOnly, Seat, Table
from games.reads.selectors import hand_state, table_list_joinable, table_list_open
from games.table.errors import ActionRejected, ErrorCode
from tests.support.tables import (
    active_hand,
    client_action,
    make_player,
    make_room,
    play_to_end,
    play_until_play_phase,
    seated_table,
)

pytestmark = pytest.mark.django_db

VARIANTS = ("qq5", "new5", "classic3", "fenzhou5")


def rejected(code: ErrorCode, func, **kwargs):
    with pytest.raises(ActionRejected) as raised:
        func(**kwargs)
    assert raised.value.code is code, raised.value
    assert raised.value.message
    return raised.value


class TestSeats:
    def test_join_takes_the_lowest_free_seat_and_bumps_the_version(self):
        table = services.table_create(room=make_room())
        a, b = make_player(), make_player()
        assert services.table_join(table_id=table.pk, user=a).index == 0
        assert services.table_join(table_id=table.pk, user=b, seat_index=2).index == 2
        assert Table.objects.get(pk=table.pk).version == 2
        # joining again is harmless
        assert services.table_join(table_id=table.pk, user=a).index == 0

    def test_taken_seat_full_table_and_bad_seat(self):
        table = services.table_create(room=make_room())
        users = [make_player() for _ in range(4)]
        services.table_join(table_id=table.pk, user=users[0], seat_index=1)
        rejected(
            ErrorCode.SEAT_TAKEN,
            services.table_join,
            table_id=table.pk,
            user=users[1],
            seat_index=1,
        )
        rejected(
            ErrorCode.BAD_SEAT, services.table_join, table_id=table.pk, user=users[1], seat_index=9
        )
        services.table_join(table_id=table.pk, user=users[1])
        services.table_join(table_id=table.pk, user=users[2])
        rejected(ErrorCode.TABLE_FULL, services.table_join, table_id=table.pk, user=users[3])

    def test_below_the_minimum_balance_is_refused_with_the_amount(self):
        room = make_room("classic3", coefficient=10)
        poor = make_player(beans=100)
        table = services.table_create(room=room)
        error = rejected(
            ErrorCode.INSUFFICIENT_BALANCE, services.table_join, table_id=table.pk, user=poor
        )
        assert "960" in error.message
        rejected(ErrorCode.INSUFFICIENT_BALANCE, services.table_quick_join, room=room, user=poor)
        assert not Seat.objects.filter(user=poor).exists()

    def test_unknown_table(self):
        rejected(
            ErrorCode.TABLE_NOT_FOUND, services.table_join, table_id=999999, user=make_player()
        )

    def test_leave_between_hands_frees_the_seat(self):
        table = services.table_create(room=make_room())
        a = make_player()
        services.table_join(table_id=table.pk, user=a)
        services.table_leave(table_id=table.pk, user=a)
        assert not Seat.objects.filter(user=a).exists()
        rejected(ErrorCode.NOT_SEATED, services.table_leave, table_id=table.pk, user=a)

    def test_bots_only_between_hands_and_only_by_seated_players(self):
        table = services.table_create(room=make_room())
        a, stranger = make_player(), make_player()
        services.table_join(table_id=table.pk, user=a)
        rejected(ErrorCode.NOT_SEATED, services.table_add_bot, table_id=table.pk, user=stranger)
        services.table_add_bot(table_id=table.pk, user=a)
        services.table_remove_bot(table_id=table.pk, seat_index=1, user=a)
        assert services.table_fill_with_bots(table_id=table.pk, user=a) == 2
        services.hand_start(table_id=table.pk, user=a)
        rejected(
            ErrorCode.HAND_IN_PROGRESS, services.table_remove_bot, table_id=table.pk, seat_index=1
        )

    def test_start_needs_every_seat(self):
        table = services.table_create(room=make_room())
        a = make_player()
        services.table_join(table_id=table.pk, user=a)
        rejected(ErrorCode.SEATS_NOT_FILLED, services.hand_start, table_id=table.pk)


class TestLobby:
    def test_quick_join_fills_the_fullest_table_then_opens_one(self):
        room = make_room("classic3")
        users = [make_player() for _ in range(4)]
        t1 = services.table_quick_join(room=room, user=users[0])
        assert services.table_quick_join(room=room, user=users[1]) == t1
        assert services.table_quick_join(room=room, user=users[1]) == t1  # idempotent
        assert services.table_quick_join(room=room, user=users[2]) == t1
        t2 = services.table_quick_join(room=room, user=users[3])
        assert t2 != t1
        listed = {t.pk: t.free_seats for t in table_list_open(room=room)}
        assert listed == {t1.pk: 0, t2.pk: 2}
        assert [t.pk for t in table_list_joinable(room=room)] == [t2.pk]
        services.table_fill_with_bots(table_id=t2.pk)
        services.hand_start(table_id=t2.pk)
        assert services.table_quick_join(room=room, user=users[3]) == t2  # back to his hand

    def test_regroup_room_unseats_everyone_and_keeps_tablemates_apart(self):
        room = make_room("classic3", regroup_between_hands=True)
        a, b, c = make_player(), make_player(), make_player()
        table = seated_table(room, [a, b, c])
        services.hand_start(table_id=table.pk)
        play_to_end(table)
        assert not Seat.objects.filter(table=table).exclude(user=None).exists()
        t_a = services.table_quick_join(room=room, user=a)
        t_b = services.table_quick_join(room=room, user=b)
        assert t_a != t_b
        newcomer = make_player()
        assert services.table_quick_join(room=room, user=newcomer) == t_a


class TestHands:
    @pytest.mark.parametrize("variant", VARIANTS)
    def test_one_human_and_bots_play_a_whole_hand_and_settle(self, variant):
        room = make_room(variant, coefficient=2, house_take=1)
        human = make_player()
        table = seated_table(room, [human])
        services.hand_start(table_id=table.pk, user=human)
        hand = play_to_end(table)
        assert hand.status == Hand.Status.FINISHED and hand.settled
        # the stored record replays to the finished state; the log is the record's actions
        state = replay(hand.record)
        assert state.finished
        logged = list(HandAction.objects.filter(hand=hand).order_by("seq"))
        assert [a.seq for a in logged] == list(range(1, hand.version + 1))
        assert [a.payload for a in logged] == hand.record["actions"]
        assert {a.source for a in logged} <= {"human", "bot", "autoplay", "server"}
        if hand.result.get("redeal"):
            return
        settlement = HandSettlement.objects.get(hand_ref=str(hand.pk))
        entries = BeanEntry.objects.filter(hand_ref=str(hand.pk))
        assert sum(e.delta for e in entries) == 0  # players + house (bots settle vs the house)
        human.refresh_from_db()
        seat = hand.players.get(user=human).seat
        assert human.beans == 1_000_000 + settlement.detail["deltas"][seat]
        assert hand.result["seed"] == hand.seed
        table.refresh_from_db()
        assert table.status == Table.Status.WAITING

    def test_three_humans_classic3(self):
        room = make_room("classic3")
        users = [make_player() for _ in range(3)]
        table = seated_table(room, users)
        services.hand_start(table_id=table.pk)
        hand = play_to_end(table)
        assert hand.status == Hand.Status.FINISHED
        assert set(
            HandAction.objects.filter(hand__table=table).values_list("source", flat=True)
        ) == {"human"}

    def test_refusals_change_nothing(self):
        room = make_room("classic3")
        users = [make_player() for _ in range(3)]
        table = seated_table(room, users)
        hand = services.hand_start(table_id=table.pk)
        state = hand_state(hand)
        turn = waiting_seats(state)[0]
        other = (turn + 1) % 3
        before = (hand.version, hand.record)

        def check(code, user, action, version=None):
            rejected(
                code,
                services.hand_submit_action,
                hand_id=hand.pk,
                user=user,
                action=action,
                expected_version=hand.version if version is None else version,
            )
            fresh = Hand.objects.get(pk=hand.pk)
            assert (fresh.version, fresh.record) == before

        check(ErrorCode.NOT_YOUR_TURN, users[other], {"act": "bid", "value": 1})
        check(ErrorCode.WRONG_PHASE, users[turn], {"act": "play", "cards": "3s"})
        check(ErrorCode.INVALID_CHOICE, users[turn], {"act": "bid", "value": 7})
        check(ErrorCode.UNKNOWN_ACT, users[turn], {"act": "shout"})
        check(ErrorCode.UNKNOWN_ACT, users[turn], {"act": "timeout"})
        check(ErrorCode.STALE_VERSION, users[turn], {"act": "bid", "value": 1}, version=99)
        check(ErrorCode.STALE_VERSION, users[turn], {"act": "bid", "value": 1}, version="x")
        check(ErrorCode.NOT_SEATED, make_player(), {"act": "bid", "value": 1})
        check(ErrorCode.MALFORMED, users[turn], ["bid"])

    def test_cards_not_held_and_not_a_combination(self):
        room = make_room("classic3")
        users = [make_player() for _ in range(3)]
        table = seated_table(room, users)
        hand = services.hand_start(table_id=table.pk)
        # everyone bids until play starts
        while hand_state(hand).phase != "play":
            state = hand_state(hand)
            seat = waiting_seats(state)[0]
            action = client_action(state, seat)
            if action["act"] == "bid" and hand_state(hand).bids.count(None) == 3:
                action["value"] = 3
            hand = services.hand_submit_action(
                hand_id=hand.pk, user=users[seat], action=action, expected_version=hand.version
            )
            if hand.status != Hand.Status.ACTIVE:
                hand = active_hand(table)
        state = hand_state(hand)
        seat = state.turn
        from games.engine.cards import format_cards

        others = [c for s in range(3) if s != seat for c in state.hands[s]]
        missing = format_cards([c for c in others if c not in state.hands[seat]][:1])
        for code, cards in (
            (ErrorCode.CARDS_NOT_HELD, missing),
            (ErrorCode.INVALID_NOTATION, "zz"),
        ):
            rejected(
                code,
                services.hand_submit_action,
                hand_id=hand.pk,
                user=users[seat],
                action={"act": "play", "cards": cards},
                expected_version=hand.version,
            )
        mine = sorted(state.hands[seat])
        pair_breaker = format_cards([mine[0], mine[-1]]) if mine[0] // 4 != mine[-1] // 4 else None
        if pair_breaker:
            rejected(
                ErrorCode.NOT_A_COMBINATION,
                services.hand_submit_action,
                hand_id=hand.pk,
                user=users[seat],
                action={"act": "play", "cards": pair_breaker},
                expected_version=hand.version,
            )

    def test_autoplay_hands_over_and_takes_back(self):
        room = make_room("classic3")
        users = [make_player() for _ in range(3)]
        table = seated_table(room, users)
        hand = services.hand_start(table_id=table.pk)
        seat = waiting_seats(hand_state(hand))[0]
        hand = services.seat_set_autoplay(hand_id=hand.pk, user=users[seat], enabled=True)
        hand = Hand.objects.filter(table=table).order_by("-number").first()
        log = list(HandAction.objects.filter(hand=hand).order_by("seq"))
        if hand.status == Hand.Status.ACTIVE:
            assert log[0].payload == {"seat": seat, "act": "autoplay", "value": True}
            assert log[1].source == "autoplay" and log[1].seat == seat
            assert Seat.objects.get(table=table, index=seat).autoplay
            services.seat_set_autoplay(hand_id=hand.pk, user=users[seat], enabled=False)
            assert not hand_state(Hand.objects.get(pk=hand.pk)).autoplay[seat]

    def test_leaving_mid_hand_autoplays_and_frees_after(self):
        room = make_room("classic3")
        users = [make_player() for _ in range(3)]
        table = seated_table(room, users)
        services.hand_start(table_id=table.pk)
        hand = active_hand(table)
        services.table_leave(table_id=table.pk, user=users[0])
        if active_hand(table):
            assert hand_state(active_hand(table)).autoplay[0]
            assert Seat.objects.get(table=table, index=0).user == users[0]
            play_to_end(table)
        assert hand is not None
        assert Seat.objects.get(table=table, index=0).user is None

    def test_a_hand_finished_only_settles_once(self):
        room = make_room("qq5")
        human = make_player()
        table = seated_table(room, [human])
        services.hand_start(table_id=table.pk)
        hand = play_to_end(table)
        rejected(
            ErrorCode.HAND_OVER,
            services.hand_submit_action,
            hand_id=hand.pk,
            user=human,
            action={"act": "pass"},
            expected_version=hand.version,
        )
        assert HandSettlement.objects.filter(hand_ref=str(hand.pk)).count() == 1

    def test_seed_is_committed_and_kept_secret_until_the_end(self):
        import hashlib

        room = make_room("qq5")
        users = [make_player() for _ in range(5)]
        table = seated_table(room, users)
        hand = services.hand_start(table_id=table.pk)
        assert hand.commitment == hashlib.sha256(hand.seed.encode()).hexdigest()
        assert hand.revealed_seed is None
        hand = play_to_end(table)
        assert hand.revealed_seed == hand.seed


class TestByTable:
    """A socket knows its table: the services lock it and act on its active hand."""

    def test_a_move_and_autoplay_by_table(self):
        room = make_room("classic3")
        users = [make_player() for _ in range(3)]
        table = seated_table(room, users)
        hand = services.hand_start(table_id=table.pk)
        state = hand_state(hand)
        seat = waiting_seats(state)[0]
        moved = services.hand_submit_action(
            table_id=table.pk,
            hand_id=hand.pk,
            user=users[seat],
            action=client_action(state, seat),
            expected_version=hand.version,
        )
        assert moved.pk == hand.pk and moved.version > hand.version
        idle = (seat + 1) % 3
        services.seat_set_autoplay(table_id=table.pk, user=users[idle], enabled=True)
        assert Seat.objects.get(table=table, index=idle).autoplay

    def test_another_hand_is_stale_and_no_hand_is_not_found(self):
        room = make_room("classic3")
        users = [make_player() for _ in range(3)]
        table = seated_table(room, users)
        move = {"user": users[0], "action": {"act": "pass"}, "expected_version": 0}
        rejected(ErrorCode.HAND_NOT_FOUND, services.hand_submit_action, table_id=table.pk, **move)
        rejected(ErrorCode.HAND_NOT_FOUND, services.hand_submit_action, table_id=10**9, **move)
        rejected(
            ErrorCode.HAND_NOT_FOUND,
            services.seat_set_autoplay,
            table_id=table.pk,
            user=users[0],
            enabled=True,
        )
        hand = services.hand_start(table_id=table.pk)
        before = (hand.version, HandAction.objects.filter(hand=hand).count())
        error = rejected(
            ErrorCode.STALE_VERSION,
            services.hand_submit_action,
            table_id=table.pk,
            hand_id=hand.pk + 1,
            **{**move, "expected_version": hand.version},
        )
        assert "not the current hand" in error.detail
        rejected(
            ErrorCode.STALE_VERSION,
            services.seat_set_autoplay,
            table_id=table.pk,
            hand_id=hand.pk + 1,
            user=users[0],
            enabled=True,
        )
        hand.refresh_from_db()
        assert (hand.version, HandAction.objects.filter(hand=hand).count()) == before
        with pytest.raises(TypeError):
            services.hand_submit_action(**move)


class TestAppendOnly:
    def test_hand_actions_cannot_change(self, append_only_triggers):
        room = make_room("classic3")
        table = seated_table(room, [make_player()])
        services.hand_start(table_id=table.pk)
        play_to_end(table)
        action = HandAction.objects.first()
        with pytest.raises(HandActionIsAppendOnly):
            action.save()
        with pytest.raises(HandActionIsAppendOnly):
            HandAction.objects.all().delete()
        with pytest.raises(HandActionIsAppendOnly):
            HandAction.objects.update(seat=3)
        with pytest.raises(Exception, match="append-only"), connection.cursor() as cursor:
            from django.db import transaction

            with transaction.atomic():
                cursor.execute("UPDATE games_handaction SET seat = 3")


def test_user_model_has_no_table_state():
    assert not hasattr(User, "hand_state")


class TestSimultaneousSteps:
    def test_a_version_that_only_misses_the_same_secret_step_is_accepted(self):
        room = make_room("qq5")
        users = [make_player() for _ in range(5)]
        table = seated_table(room, users)
        hand = services.hand_start(table_id=table.pk)
        for _ in range(50):
            state = hand_state(hand)
            waiting = waiting_seats(state)
            if state.phase == "double" and len(waiting) >= 2:
                break
            seat = waiting[0]
            hand = services.hand_submit_action(
                hand_id=hand.pk,
                user=users[seat],
                action=client_action(state, seat),
                expected_version=hand.version,
            )
        else:
            pytest.skip("no doubling step with two deciders in this deal")
        seen = hand.version
        first, second = waiting[0], waiting[1]
        hand = services.hand_submit_action(
            hand_id=hand.pk,
            user=users[first],
            action={"act": "double", "value": False},
            expected_version=seen,
        )
        assert hand.version == seen + 1
        hand = services.hand_submit_action(
            hand_id=hand.pk,
            user=users[second],
            action={"act": "double", "value": True},
            expected_version=seen,
        )
        assert hand.version >= seen + 2
        assert Seat.objects.filter(table=table, autoplay=True).count() == 0


class TestOddValues:
    ODD = (None, True, -1, 10**30, 1.5, "", [1], {"a": 1}, "3s", "SJ BJ")
    ACTS = ("bid", "grab", "reveal", "double", "show", "partner", "call", "play", "pass")

    def _barrage(self, table, users):
        hand = active_hand(table)
        seat = waiting_seats(hand_state(hand))[0]  # out-of-turn seats are refused earlier
        for act in self.ACTS:
            for value in self.ODD:
                key = "cards" if act == "play" else "value"
                hand = active_hand(table)
                if hand is None:
                    return
                with contextlib.suppress(ActionRejected):
                    services.hand_submit_action(
                        hand_id=hand.pk,
                        user=users[seat],
                        action={"act": act, key: value},
                        expected_version=hand.version,
                    )

    @pytest.mark.parametrize("variant", VARIANTS)
    def test_nothing_but_refusals_for_any_value_of_any_act(self, variant):
        room = make_room(variant)
        users = [make_player() for _ in range(3 if variant == "classic3" else 5)]
        table = seated_table(room, users)
        services.hand_start(table_id=table.pk)
        self._barrage(table, users)
        if play_until_play_phase(table, users) is None:  # on to the play phase, then again
            return
        self._barrage(table, users)


class TestConsumerRetry:
    """The consumer retries a write that lost a database race, and nothing else."""

    @pytest.mark.asyncio
    async def test_a_conflict_is_retried_and_other_refusals_are_not(self):
        from games.live.consumers import _retrying
        from games.table.errors import ActionRejected, ErrorCode

        calls = []

        def flaky():
            calls.append("attempt")
            if len(calls) < 2:
                raise ActionRejected.of(ErrorCode.CONFLICT)

        await _retrying(flaky)
        assert calls == ["attempt", "attempt"]

        def stale():
            calls.append("attempt")
            raise ActionRejected.of(ErrorCode.STALE_VERSION)

        calls.clear()
        with pytest.raises(ActionRejected):
            await _retrying(stale)
        assert calls == ["attempt"]

    @pytest.mark.asyncio
    async def test_the_pause_before_a_retry_leaves_the_database_thread_to_other_tables(self):
        from channels.db import database_sync_to_async

        from games.live.consumers import _retrying
        from games.table.errors import ActionRejected, ErrorCode

        calls = []

        def flaky():
            calls.append("attempt")
            if calls.count("attempt") < 2:
                raise ActionRejected.of(ErrorCode.CONFLICT)

        async def other_table():
            await asyncio.sleep(0.01)  # queued while the first attempt runs or has failed
            await database_sync_to_async(lambda: calls.append("other table"))()

        await asyncio.gather(_retrying(flaky), other_table())
        assert calls == ["attempt", "other table", "attempt"]
