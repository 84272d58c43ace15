"""beans_settle_hand: zero-sum with the house, nobody below zero, exactly once."""

from __future__ import annotations

import threading
from fractions import Fraction

import pytest
from django.conf import settings
from django.db import close_old_connections
from django.db.models import Sum
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from accounts import selectors, services
from accounts.models import BeanEntry, HandSettlement, User
from games.engine.beans import RoomStakes

A1 = RoomStakes(coefficient=50, house_take=10)
A1_UNITS = [12, -8, -8, 12, -8]


def _ledger_matches_balances() -> None:
    for user in User.objects.all():
        total = BeanEntry.objects.filter(user=user).aggregate(t=Sum("delta"))["t"] or 0
        assert total == user.beans
        last = BeanEntry.objects.filter(user=user).order_by("-created_at", "-id").first()
        if last is not None:
            assert last.balance_after == user.beans


@pytest.mark.django_db
class TestSettleHand:
    def test_a1_writes_entries_and_balances(self, make_user):
        players = [make_user(beans=1000) for _ in range(5)]
        settlement = services.beans_settle_hand(
            hand_ref="hand-1", units=A1_UNITS, stakes=A1, seats=players, tie_order=range(5)
        )
        beans = [User.objects.get(pk=p.pk).beans for p in players]
        assert beans == [1590, 590, 590, 1590, 590]
        assert settlement.house == 50
        assert selectors.house_balance() == 50
        winner_entries = BeanEntry.objects.filter(user=players[0], hand_ref="hand-1")
        assert sorted(winner_entries.values_list("reason", "delta")) == [
            ("hand_settlement", 600),
            ("house_take", -10),
        ]
        scores = [User.objects.get(pk=p.pk).score for p in players]
        assert scores == [12, -8, -8, 12, -8]
        _ledger_matches_balances()

    def test_second_call_settles_nothing(self, make_user):
        players = [make_user(beans=1000) for _ in range(5)]
        for _ in range(2):
            services.beans_settle_hand(
                hand_ref=7, units=A1_UNITS, stakes=A1, seats=players, tie_order=range(5)
            )
        assert HandSettlement.objects.count() == 1
        assert User.objects.get(pk=players[0].pk).beans == 1590
        assert selectors.house_balance() == 50

    def test_bots_settle_against_the_house(self, make_user):
        humans = [make_user(beans=1000) for _ in range(3)]
        seats = [humans[0], None, humans[1], humans[2], None]
        services.beans_settle_hand(
            hand_ref="bots", units=A1_UNITS, stakes=A1, seats=seats, tie_order=range(5)
        )
        assert [User.objects.get(pk=h.pk).beans for h in humans] == [1590, 590, 1590]
        assert selectors.house_balance() == -(590 - 410 + 590)
        _ledger_matches_balances()

    def test_a_player_cannot_hold_two_seats(self, make_user):
        player = make_user(beans=1000)
        with pytest.raises(services.BeansError):
            services.beans_settle_hand(
                hand_ref="x",
                units=[1, -1],
                stakes=RoomStakes(),
                seats=[player, player],
                tie_order=[0, 1],
            )


@st.composite
def random_hands(draw):
    seats = draw(st.sampled_from([3, 5]))
    winners = draw(st.integers(1, seats - 1))
    halves = draw(st.lists(st.integers(1, 64), min_size=seats, max_size=seats))
    losers = [Fraction(h, 2) for h in halves[winners:]]
    weights = halves[:winners]
    units = [sum(losers) * w / sum(weights) for w in weights] + [-u for u in losers]
    stakes = RoomStakes(
        coefficient=draw(st.sampled_from([1, 10, 50])),
        house_take=draw(st.sampled_from([0, 5])),
        rake_percent=draw(st.sampled_from([0, 10])),
    )
    balances = draw(st.lists(st.integers(0, 3000), min_size=seats, max_size=seats))
    bots = draw(st.lists(st.booleans(), min_size=seats, max_size=seats))
    calls = draw(st.integers(1, 3))
    return units, stakes, balances, bots, calls


@pytest.mark.django_db
class TestSettlementProperties:
    @hsettings(
        max_examples=40,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(hand=random_hands())
    def test_zero_sum_non_negative_exactly_once(self, make_user, hand):
        units, stakes, balances, bots, calls = hand
        seats = [None if bot else make_user(beans=b) for b, bot in zip(balances, bots, strict=True)]
        humans = [s for s in seats if s is not None]
        before = {u.pk: u.beans for u in humans}
        house_before = selectors.house_balance()
        ref = f"prop-{len(HandSettlement.objects.all())}"
        for _ in range(calls):
            services.beans_settle_hand(
                hand_ref=ref, units=units, stakes=stakes, seats=seats, tie_order=range(len(seats))
            )
        after = {u.pk: User.objects.get(pk=u.pk).beans for u in humans}
        house_gain = selectors.house_balance() - house_before
        assert sum(after[k] - before[k] for k in after) + house_gain == 0
        assert all(v >= 0 for v in after.values())
        assert HandSettlement.objects.filter(hand_ref=ref).count() == 1
        assert HandSettlement.objects.get(hand_ref=ref).house == house_gain


def _is_postgres() -> bool:
    return settings.DATABASES["default"]["ENGINE"].endswith("postgresql")


@pytest.mark.skipif(not _is_postgres(), reason="row locks need PostgreSQL (DATABASE_URL)")
@pytest.mark.django_db(transaction=True)
def test_two_threads_settle_the_same_hand_once(make_user):
    players = [make_user(beans=1000) for _ in range(5)]
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def settle() -> None:
        try:
            barrier.wait(timeout=10)
            services.beans_settle_hand(
                hand_ref="race", units=A1_UNITS, stakes=A1, seats=players, tie_order=range(5)
            )
        except BaseException as error:  # reported below
            errors.append(error)
        finally:
            close_old_connections()

    threads = [threading.Thread(target=settle) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors
    assert HandSettlement.objects.filter(hand_ref="race").count() == 1
    assert [User.objects.get(pk=p.pk).beans for p in players] == [1590, 590, 590, 1590, 590]
    assert BeanEntry.objects.filter(hand_ref="race", user__isnull=True).count() == 1
    assert selectors.house_balance() == 50
