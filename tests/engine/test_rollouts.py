"""The cheap rollouts (games/engine/rollouts.py): packed hands round-trip, the light policy only
plays what the engine accepts, the evaluation reads a finished or lopsided position the right
way, and the quick search prefers the candidate that wins."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.bot import bot_action, play_candidates
from games.engine.cards import cards_for_ranks, parse_cards, ranks_of
from games.engine.dealing import deal
from games.engine.hand import apply, start_hand, waiting_seats
from games.engine.planning import counts_of, planner_for
from games.engine.rollouts import (
    RANK_BITS,
    QuickWorld,
    Scores,
    features,
    hand_plan,
    landlord_chance,
    pack,
    pack_ranks,
    quick_best,
    quick_move,
    quick_rollout,
    quick_scores,
    rank_list,
    remove_ranks,
    unpack,
)
from games.engine.state import PASS, PHASE_PLAY, PLAY, Action, HandState
from games.engine.variants import find_variant

RANKS = st.lists(st.integers(3, 17), max_size=60)
COUNTS = st.lists(st.integers(0, (1 << RANK_BITS) - 1), min_size=18, max_size=18)


# --------------------------------------------------------------------------- packed hands
class PackedHandTests:
    @given(counts=COUNTS)
    def test_counts_round_trip(self, counts):
        assert unpack(pack(counts)) == tuple(counts)

    @given(ranks=RANKS)
    def test_ranks_round_trip_and_agree_with_the_planners_counts(self, ranks):
        hand = pack_ranks(ranks)
        assert rank_list(hand) == tuple(sorted(ranks))
        assert unpack(hand) == counts_of(ranks)

    @given(ranks=RANKS, data=st.data())
    def test_removing_a_sub_multiset_is_packing_what_is_left(self, ranks, data):
        picked = data.draw(st.sets(st.integers(0, max(0, len(ranks) - 1))))
        played = [r for i, r in enumerate(ranks) if i in picked]
        rest = [r for i, r in enumerate(ranks) if i not in picked]
        assert remove_ranks(pack_ranks(ranks), played) == pack_ranks(rest)

    @pytest.mark.parametrize(
        ("ranks", "packed"),
        [
            ((), 0),
            ((3,), 1 << 12),
            ((3, 3, 4), (2 << 12) | (1 << 16)),
            ((17,), 1 << 68),
            ((16, 17, 17), (1 << 64) | (2 << 68)),
        ],
    )
    def test_vectors(self, ranks, packed):
        assert pack_ranks(ranks) == packed

    def test_a_rank_not_held_cannot_be_removed(self):
        with pytest.raises(ValueError, match="rank 5"):
            remove_ranks(pack_ranks((3, 4)), (5,))

    def test_more_copies_than_the_bits_hold_are_refused(self):
        with pytest.raises(ValueError, match="16 copies"):
            pack([0, 0, 0, 16] + [0] * 14)


# --------------------------------------------------------------------------- the light policy
def _at_play(variant_key: str, seed: str) -> HandState:
    v = find_variant(variant_key)
    state = start_hand(v, deal(v, seed))
    while not state.finished and state.phase != PHASE_PLAY:
        state = apply(state, bot_action(state, waiting_seats(state)[0]))
    return state


class QuickPolicyTests:
    @pytest.mark.parametrize("variant_key", ["classic3", "qq5", "new5", "fenzhou5"])
    @settings(max_examples=4, deadline=None)
    @given(seed=st.integers(0, 10**6))
    def test_every_play_of_the_light_policy_is_one_the_engine_accepts(self, variant_key, seed):
        """The packed world and the engine's state walk the same hand side by side until a
        seat goes out: every play is legal there, and the hands agree all along."""
        state = _at_play(variant_key, f"quick-legal-{seed}")
        if state.finished:
            return
        world = QuickWorld.of(state)
        plays = 0
        while True:
            seat = world.turn
            assert seat == state.turn
            combo = quick_move(world, seat)
            if combo is None:
                action = Action(seat, PASS)
            else:
                cards = cards_for_ranks(state.hands[seat], combo.ranks)
                action = Action(seat, PLAY, combo.kind, cards)
                plays += 1
            state = apply(state, action)  # raises if the engine refuses it
            done = world.step(combo)
            if done is not None:
                assert not state.hands[seat]
                assert done == (seat in world.landlord_side)
                break
            assert [pack_ranks(ranks_of(h)) for h in state.hands] == world.hands
        assert plays > 0

    def test_a_rollout_with_every_trick_played_ends_in_a_win_or_a_loss(self):
        state = _at_play("qq5", "quick-whole")
        seat = state.turn
        first = play_candidates(state, seat)[0]
        assert quick_rollout(QuickWorld.of(state), first, seat, cut=10**6) in (0.0, 1.0)

    def test_a_cut_rollout_is_scored_between_the_two(self):
        state = _at_play("new5", "quick-cut")
        seat = state.turn
        first = play_candidates(state, seat)[0]
        chance = quick_rollout(QuickWorld.of(state), first, seat, cut=1)
        assert 0.0 < chance < 1.0

    def test_the_quick_search_plays_the_candidate_that_goes_out(self):
        """The caller's choice comes first; the second empties the hand and wins."""
        state = _at_play("fenzhou5", "quick-out")
        seat = state.turn
        hands = list(state.hands)
        hands[seat] = tuple(sorted(parse_cards("3d 3h")))
        state = replace(state, hands=tuple(hands))
        single = Action(seat, PLAY, "single", parse_cards("3d"))
        pair = Action(seat, PLAY, "pair", tuple(sorted(parse_cards("3d 3h"))))
        best, deals = quick_best([state], seat, [single, pair], seconds=math.inf, cut=2)
        assert (best, deals) == (pair, 1)

    def test_a_gain_is_paired_deal_by_deal(self):
        """The same gain on every deal has no error; from one deal nothing is sure."""
        state = _at_play("fenzhou5", "quick-out")
        seat = state.turn
        hands = list(state.hands)
        hands[seat] = tuple(sorted(parse_cards("3d 3h")))
        world = QuickWorld.of(replace(state, hands=tuple(hands)))
        single = Action(seat, PLAY, "single", parse_cards("3d"))
        pair = Action(seat, PLAY, "pair", tuple(sorted(parse_cards("3d 3h"))))
        for deals, errors, sure_best in ((1, (math.inf, math.inf), single), (3, (0.0, 0.0), pair)):
            worlds = [(world, 0.5)] * deals
            scores = quick_scores(worlds, seat, [single, pair], seconds=math.inf, cut=2)
            assert scores.deals == deals
            assert scores.gain_errors == pytest.approx(errors)
            assert scores.best() == pair
            assert scores.best(sure=2.0) == sure_best

    def test_a_gain_within_its_noise_keeps_the_first_candidate(self):
        first, other = Action(0, PASS), Action(0, PLAY, "single", parse_cards("3d"))
        for error, margin, sure, best in (
            (0.15, 0.05, 2.0, first),  # 0.2 gained, 0.3 needed
            (0.05, 0.05, 2.0, other),
            (0.15, 0.05, 0.0, other),
            (0.0, 0.25, 0.0, first),  # below the margin
        ):
            scores = Scores((first, other), (0.4, 0.6), 30, (0.0, error))
            assert scores.best(margin, sure=sure) == best


# --------------------------------------------------------------------------- the evaluation
class EvaluationTests:
    def _planner(self):
        return planner_for(find_variant("qq5"))

    def test_a_side_with_a_seat_out_has_won(self):
        hands = [pack_ranks(()), *(pack_ranks((3, 5, 7, 9)) for _ in range(4))]
        planner = self._planner()
        assert landlord_chance(planner, hands, frozenset({0}), None) == 1.0
        assert landlord_chance(planner, hands, frozenset({1, 2}), None) == 0.0

    def test_one_good_play_left_beats_many_weak_ones(self):
        weak = pack_ranks((3, 4, 6, 8, 9, 11, 12, 14, 3, 6, 8))
        hands = [pack_ranks((15, 15)), weak, weak, weak, weak]
        assert landlord_chance(self._planner(), hands, frozenset({0}), 1) > 0.7

    def test_the_lead_counts_for_the_side_that_has_it(self):
        hand = pack_ranks((3, 5, 7, 9, 11))
        hands = [hand] * 5
        planner = self._planner()
        lord_leads = landlord_chance(planner, hands, frozenset({0}), 0)
        farmer_leads = landlord_chance(planner, hands, frozenset({0}), 1)
        assert lord_leads > farmer_leads

    def test_features_read_the_plan(self):
        planner = self._planner()
        hand = pack_ranks((15, 15, 16, 17, 9, 9, 9, 9, 3))
        f = features(planner, hand)
        assert (f.cards, f.controls, f.bombs) == (9, 4, 1)
        assert f.plays == hand_plan(planner, hand).plays


# --------------------------------------------------------------------------- information
class SamplerRandomnessTests:
    def test_the_quick_search_is_seeded_not_global(self):
        """Two runs over worlds drawn from the same seed give the same choice."""
        from games.engine.search import determinise
        from games.engine.views import view_for

        state = _at_play("new5", "quick-seeded")
        seat = state.turn
        view = view_for(state, seat)
        cands = play_candidates(state, seat)
        picks = set()
        for _ in range(2):
            rng = random.Random(7)
            worlds = [determinise(state, seat, view, rng) for _ in range(3)]
            picks.add(quick_best(worlds, seat, cands, seconds=math.inf, cut=2))
        assert len(picks) == 1
