"""docs/rules.md §7: units to whole beans. Worked examples of §7.4b plus hypothesis properties."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.beans import (
    RoomStakes,
    largest_remainder,
    round_half_up,
    settle_beans,
)

RICH = 10**9
HALF = Fraction(1, 2)


def settle(units, stakes, *, balances=None, tie_order=None):
    seats = len(units)
    return settle_beans(
        units=[Fraction(u) for u in units],
        stakes=stakes,
        balances=balances if balances is not None else [RICH] * seats,
        tie_order=tie_order if tie_order is not None else list(range(seats)),
    )


class TestRounding:
    def test_round_half_up(self):
        assert round_half_up(Fraction(5, 2)) == 3
        assert round_half_up(Fraction(-5, 2)) == -3
        assert round_half_up(Fraction(243, 100)) == 2
        assert round_half_up(Fraction(27, 10)) == 3

    def test_largest_remainder_ties_go_to_the_first_rank(self):
        assert largest_remainder(21, [HALF * 21, HALF * 21], [0, 1]) == [11, 10]
        assert largest_remainder(21, [HALF * 21, HALF * 21], [1, 0]) == [10, 11]


class TestWorkedExample:
    """docs/rules.md §7.4b, whole beans. Seat 0 is the (main) landlord; tie order from seat 0."""

    # classic3, room coefficient N, rake 10 %: units are bid × 2^d per farmer.
    C1 = RoomStakes(coefficient=3, rake_percent=10)
    C3 = RoomStakes(coefficient=10, rake_percent=10)

    def test_c1_landlord_wins(self):
        result = settle([9, -6, -3], self.C1)
        assert result.deltas == (24, -18, -9)
        assert result.house == 3

    def test_c1_landlord_loses(self):
        result = settle([-9, 6, 3], self.C1)
        assert result.deltas == (-27, 16, 8)
        assert result.house == 3

    def test_c2_landlord_wins(self):
        result = settle([12, -6, -6], self.C1)
        assert result.deltas == (32, -18, -18)
        assert result.house == 4

    def test_c2_landlord_loses(self):
        result = settle([-12, 6, 6], self.C1)
        assert result.deltas == (-36, 16, 16)
        assert result.house == 4

    def test_c3(self):
        result = settle([12, -6, -6], self.C3)  # bid 3 × 2^1 per farmer
        assert result.deltas == (108, -60, -60)
        assert result.house == 12

    def test_c4_cap(self):
        result = settle([96, -48, -48], self.C3)  # bid 3 × 2^4 per farmer
        assert result.deltas == (864, -480, -480)
        assert result.house == 96

    A = RoomStakes(base_score=1, coefficient=50, house_take=10)

    def test_a1_two_landlords_win(self):
        # Seats: P1 (明地主), P2, P3, P4 (暗地主), P5. X_landlord 12, X_farmer 8.
        result = settle([12, -8, -8, 12, -8], self.A)
        assert result.deltas == (590, -410, -410, 590, -410)
        assert result.house == 50

    def test_a2_single_landlord_loses(self):
        result = settle([-8, 2, 2, 2, 2], self.A)
        assert result.deltas == (-410, 90, 90, 90, 90)
        assert result.house == 50

    def test_d1_two_versus_three(self):
        # fenzhou5, u = 7: landlord and 狗腿子 +1.5u, farmers −u. The odd bean goes to the
        # landlord, who comes first in turn order.
        result = settle([Fraction(21, 2), -7, Fraction(21, 2), -7, -7], RoomStakes())
        assert result.deltas == (11, -7, 10, -7, -7)
        assert result.house == 0

    def test_d1_tie_goes_by_turn_order_from_the_landlord(self):
        # The landlord in seat 2: turn order 2, 3, 4, 0, 1 puts the 狗腿子 (seat 0) after him.
        result = settle(
            [Fraction(21, 2), -7, Fraction(21, 2), -7, -7],
            RoomStakes(),
            tie_order=[2, 3, 4, 0, 1],
        )
        assert result.deltas == (10, -7, 11, -7, -7)

    def test_d2_solo_landlord_loses(self):
        result = settle([-16, 4, 4, 4, 4], RoomStakes())
        assert result.deltas == (-16, 4, 4, 4, 4)
        assert result.house == 0

    def test_b1_scheme_a(self):
        # new5 scheme A, unit 6: seats 甲 乙 丙 丁 戊; 乙 正地主 +2 units, 丁 副地主 +1.
        result = settle([-6, 12, -6, 6, -6], RoomStakes(), tie_order=[1, 2, 3, 4, 0])
        assert result.deltas == (-6, 12, -6, 6, -6)
        assert result.house == 0

    def test_b1_scheme_b_and_solo(self):
        # Scheme B: unit 2^6 = 64. 明独打 in scheme A: D = 12, 乙 +4 units against four.
        result = settle([-64, 128, -64, 64, -64], RoomStakes(), tie_order=[1, 2, 3, 4, 0])
        assert result.deltas == (-64, 128, -64, 64, -64)
        result = settle([-12, 48, -12, -12, -12], RoomStakes(), tie_order=[1, 2, 3, 4, 0])
        assert result.deltas == (-12, 48, -12, -12, -12)


class TestFloor:
    def test_loser_pays_at_most_his_balance_and_winners_shrink(self):
        # D2 with a landlord who holds only 10 beans: the farmers share 10, not 16.
        result = settle([-16, 4, 4, 4, 4], RoomStakes(), balances=[10, RICH, RICH, RICH, RICH])
        assert result.deltas[0] == -10
        assert sorted(result.deltas[1:]) == [2, 2, 3, 3]
        assert result.deltas[1:] == (3, 3, 2, 2)  # odd beans to the first in turn order
        assert sum(result.deltas) + result.house == 0

    def test_house_take_is_taken_first(self):
        # A2 with a landlord who holds 100 beans: the house takes 10, the farmers share 90.
        result = settle(
            [-8, 2, 2, 2, 2],
            RoomStakes(coefficient=50, house_take=10),
            balances=[100, RICH, RICH, RICH, RICH],
        )
        assert result.deltas[0] == -100
        assert result.house_takes[0] == 10
        assert sum(result.gross[1:]) == 90
        assert sum(result.deltas) + result.house == 0

    def test_winner_never_goes_below_zero_through_the_house_take(self):
        result = settle([-1, 1], RoomStakes(house_take=10), balances=[0, 0])
        assert result.deltas == (0, 0)
        assert result.house == 0

    def test_a_winner_who_gains_less_than_the_take_pays_the_take(self):
        """docs/rules.md §7.2: a winner receives gross − A, as far as his balance goes. Wrong rule
        caught: capping the take at what the winner gained (so he pays nothing), which a balance
        of 0 cannot tell apart. Take 10, the loser owes 1: the winner gets 1 − 10 = −9; holding
        only 5 beans he pays his 5 + 1, the take capped there (−5)."""
        stakes = RoomStakes(house_take=10)
        rich = settle([-1, 1], stakes)
        assert rich.deltas == (-11, -9)
        assert rich.house_takes == (10, 10)
        assert rich.house == 20
        poor = settle([-1, 1], stakes, balances=[RICH, 5])
        assert poor.deltas == (-11, -5)
        assert poor.house_takes == (10, 6)
        assert poor.house == 16

    def test_what_short_losers_paid_is_shared_whoever_of_them_fell_short(self):
        """Two losers of 4 beans holding 1 each pay 1 each: the winner gets 2 (the shortfall is
        3 + 3). Wrong rule caught: counting only the last loser's shortfall (the winner would get
        5, the house paying 3)."""
        result = settle([-4, -4, 8], RoomStakes(), balances=[1, 1, RICH])
        assert result.deltas == (-1, -1, 2)
        assert result.house == 0

    def test_a_winner_whose_gross_is_0_is_left_out_of_the_second_sharing(self):
        """Units 9/10 and 1/10 share the loser's 1 bean as 1 and 0; the loser holds nothing, so
        nobody gets anything. The winner with 0 gross has no weight in the second sharing (a
        weight of 0 would be refused)."""
        result = settle([-1, Fraction(9, 10), Fraction(1, 10)], RoomStakes(), balances=[0, 5, 5])
        assert result.deltas == (0, 0, 0)

    def test_a_seat_with_no_units_pays_only_the_house_take(self):
        """docs/rules.md §7.2: the take is taken from every human seat, also one whose units are 0
        (he neither wins nor loses)."""
        result = settle([-2, 2, 0], RoomStakes(house_take=1))
        assert result.deltas == (-3, 1, -1)
        assert result.house == 3

    def test_the_rake_stops_where_the_winners_balance_would_go_below_zero(self):
        """A winner holding 0 beans wins 12: take 10, then a 50 % rake of 6 capped at the 2 left,
        so he ends on 0 beans. Wrong rule caught: a cap that adds the take instead of leaving it
        out (the rake would be 6, his balance -4)."""
        result = settle([-12, 12], RoomStakes(house_take=10, rake_percent=50), balances=[RICH, 0])
        assert (result.house_takes[1], result.rakes[1], result.deltas[1]) == (10, 2, 0)


class TestBot:
    def test_a_bot_winner_first_does_not_spare_the_human_winners_after_him(self):
        """Seats 1 (a bot) and 2 (a person) win: seat 2 still pays the take of 1."""
        result = settle([-2, 1, 1], RoomStakes(house_take=1), balances=[RICH, None, RICH])
        assert result.deltas == (-3, 0, 0)
        assert result.house == 3

    def test_bots_settle_against_the_house(self):
        # A1 with P2 and P5 bots: their losses are paid by the house, no take from bots.
        result = settle(
            [12, -8, -8, 12, -8],
            RoomStakes(coefficient=50, house_take=10),
            balances=[RICH, None, RICH, RICH, None],
        )
        assert result.deltas == (590, 0, -410, 590, 0)
        assert result.house == -sum(result.deltas) == -770

    def test_winning_bot_pays_the_house(self):
        result = settle([-16, 4, 4, 4, 4], RoomStakes(), balances=[RICH, None, None, None, None])
        assert result.deltas == (-16, 0, 0, 0, 0)
        assert result.house == 16


class TestValidation:
    @pytest.mark.parametrize(
        "bad",
        [
            {"base_score": 0},
            {"coefficient": 0},
            {"house_take": -1},
            {"rake_percent": -1},
            {"rake_percent": 101},
            {"max_multiplier": 0},
        ],
    )
    def test_stakes_refuse_what_no_room_may_set(self, bad):
        with pytest.raises(ValueError):
            RoomStakes(**bad)

    def test_stakes_accept_their_extremes(self):
        stakes = RoomStakes(house_take=0, rake_percent=100, max_multiplier=1)
        assert (stakes.rake_percent, stakes.max_multiplier) == (100, 1)

    def test_largest_remainder_refuses_a_weight_of_0(self):
        with pytest.raises(ValueError):
            largest_remainder(5, [0, 1], [0, 1])
        with pytest.raises(ValueError):
            largest_remainder(5, [0, 0], [0, 1])

    def test_largest_remainder_gives_the_odd_bean_to_the_largest_remainder(self):
        """10 beans in proportion 2 : 5 are quotas 2.857 and 7.143: the odd bean goes to the first
        (remainder .857), whose quota is the smaller. Wrong rules caught: the smallest remainder
        first, or ordering by the quota instead of the remainder (both give 2 and 8)."""
        assert largest_remainder(10, [2, 5], [0, 1]) == [3, 7]

    def test_units_must_sum_to_zero(self):
        with pytest.raises(ValueError):
            settle([1, 0, 0], RoomStakes())

    def test_tie_order_must_be_a_permutation(self):
        with pytest.raises(ValueError):
            settle([1, -1, 0], RoomStakes(), tie_order=[0, 0, 1])


@st.composite
def hands(draw):
    seats = draw(st.sampled_from([3, 5]))
    winners = draw(st.integers(min_value=1, max_value=seats - 1))
    halves = draw(st.lists(st.integers(min_value=1, max_value=400), min_size=seats, max_size=seats))
    # Losers' units are halves; winners split the losers' total in random proportions.
    losers_units = [Fraction(h, 2) for h in halves[winners:]]
    total = sum(losers_units)
    weights = halves[:winners]
    winners_units = [total * w / sum(weights) for w in weights]
    units = winners_units + [-u for u in losers_units]
    order = draw(st.permutations(range(seats)))
    units = [units[i] for i in order]
    stakes = RoomStakes(
        base_score=draw(st.integers(1, 3)),
        coefficient=draw(st.sampled_from([1, 5, 10, 50, 100])),
        house_take=draw(st.sampled_from([0, 0, 1, 10, 50])),
        rake_percent=draw(st.sampled_from([0, 0, 5, 10, 33])),
    )
    balances = draw(
        st.lists(
            st.one_of(st.none(), st.integers(0, 50), st.integers(0, 10**6)),
            min_size=seats,
            max_size=seats,
        )
    )
    tie_order = draw(st.permutations(range(seats)))
    return units, stakes, balances, list(tie_order)


class TestProperty:
    @settings(max_examples=400, deadline=None)
    @given(hands())
    def test_invariants(self, hand):
        units, stakes, balances, tie_order = hand
        result = settle_beans(units=units, stakes=stakes, balances=balances, tie_order=tie_order)
        scale = stakes.base_score * stakes.coefficient
        # Zero-sum with the house.
        assert sum(result.deltas) + result.house == 0
        for seat, delta in enumerate(result.deltas):
            balance = balances[seat]
            if balance is None:
                assert delta == 0  # bots settle against the house
                continue
            assert balance + delta >= 0  # nobody below zero
            assert result.deltas[seat] == (
                result.gross[seat] - result.house_takes[seat] - result.rakes[seat]
            )
            stake = round_half_up(abs(units[seat]) * scale)
            if units[seat] < 0:
                assert -(stake + stakes.house_take) <= delta <= 0
            else:
                # A winner's gross is within one bean per seat of his exact share.
                assert -stakes.house_take <= delta <= units[seat] * scale + len(units)

    @settings(max_examples=200, deadline=None)
    @given(hands())
    def test_without_floor_or_bots_losers_pay_in_full(self, hand):
        units, stakes, _, tie_order = hand
        result = settle_beans(
            units=units, stakes=stakes, balances=[RICH] * len(units), tie_order=tie_order
        )
        scale = stakes.base_score * stakes.coefficient
        losers = [i for i, u in enumerate(units) if u < 0]
        winners = [i for i, u in enumerate(units) if u > 0]
        pool = sum(round_half_up(-units[i] * scale) for i in losers)
        assert sum(result.gross[i] for i in winners) == pool
        for i in losers:
            assert result.gross[i] == -round_half_up(-units[i] * scale)
        for i in winners:
            exact = pool * units[i] / sum(units[w] for w in winners)
            assert abs(result.gross[i] - exact) < 1
        assert result.house == sum(result.house_takes) + sum(result.rakes)

    @settings(max_examples=200, deadline=None)
    @given(hands())
    def test_deterministic(self, hand):
        units, stakes, balances, tie_order = hand
        first = settle_beans(units=units, stakes=stakes, balances=balances, tie_order=tie_order)
        again = settle_beans(units=units, stakes=stakes, balances=balances, tie_order=tie_order)
        assert first == again


def test_beans_module_is_pure():
    import subprocess
    import sys

    code = "import sys, games.engine.beans; print('django' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
