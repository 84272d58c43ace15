"""The sampler of games/engine/beliefs.py: every deal it draws agrees with what the seat's view
shows (counts, its own hand, cards played, cards the rules showed, the marked card's copies in
one hand, the teams once known), the true deal is among those it may draw, and the plays weigh
the samples toward the true partner."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.beliefs import BEAT_OWN_SIDE, belief_of, draw, partner_odds
from games.engine.bot import bot_action, play_candidates
from games.engine.cards import SJ_CODE, parse_cards
from games.engine.dealing import deal
from games.engine.flows import flow_for
from games.engine.hand import apply, start_hand, waiting_seats
from games.engine.state import PHASE_PLAY, HandState
from games.engine.table_search import belief_scores, belief_search
from games.engine.variants import find_variant
from games.engine.views import known_holdings, view_for

FIVE = ["qq5", "new5", "fenzhou5"]


def _play_states(variant_key: str, seed: str, every: int = 4) -> list[HandState]:
    """Every ``every``-th play state of a bot-only hand."""
    v = find_variant(variant_key)
    state = start_hand(v, deal(v, seed))
    out = []
    step = 0
    while not state.finished:
        if state.phase == PHASE_PLAY:
            step += 1
            if (step - 1) % every == 0:
                out.append(state)
        state = apply(state, bot_action(state, waiting_seats(state)[0], think=0))
    return out


def _check_sample(state: HandState, seat: int, hands, side) -> None:
    view = view_for(state, seat)
    v = state.variant
    assert hands[seat] == state.hands[seat]
    assert [len(h) for h in hands] == [len(h) for h in state.hands]
    deck = Counter({code: v.decks for code in range(SJ_CODE + 2)})
    played = Counter(c for p in state.plays for c in p.cards)
    assert Counter(c for h in hands for c in h) + played == deck
    for other, cards in known_holdings(view).items():
        assert not cards - Counter(hands[other]), "a card the view shows moved"
    if view["teams"]["complete"]:
        assert side == frozenset(state.landlord_side())
    mark = state.marked_card
    if mark is not None and not view["teams"]["complete"] and state.landlord != seat:
        lord = state.landlord
        spent = sum(p.cards.count(mark) for p in state.plays if p.seat == lord)
        rule = flow_for(v).landlord_marked_copies
        assert hands[lord].count(mark) >= rule - spent
        elsewhere = [s for s in range(v.seats) if s != lord and mark in hands[s]]
        assert len(elsewhere) <= 1, "the free copies of the marked card are in one hand"
        assert side == frozenset({lord, *elsewhere})


class SampleConsistencyTests:
    @pytest.mark.parametrize("variant_key", FIVE)
    @settings(max_examples=3, deadline=None)
    @given(seed=st.integers(0, 10**6))
    def test_every_draw_agrees_with_the_public_facts(self, variant_key, seed):
        rng = random.Random(seed)
        checked = 0
        for state in _play_states(variant_key, f"beliefs-{seed}"):
            for seat in range(state.seats):
                belief = belief_of(view_for(state, seat))
                assert belief is not None
                for _ in range(3):
                    sample = draw(belief, rng)
                    if sample is None:
                        continue
                    _check_sample(state, seat, sample.hands, sample.landlord_side)
                    assert 0 < sample.weight <= 1
                    checked += 1
        assert checked

    @pytest.mark.parametrize("variant_key", FIVE)
    def test_the_true_partner_is_among_the_hands_that_may_hold_the_marked_card(self, variant_key):
        seen = 0
        # qq5's bots often reveal the 暗地主 before the first play: several hands
        states = [
            state
            for n in range(8)
            for state in _play_states(variant_key, f"beliefs-truth-{variant_key}-{n}", every=8)
        ]
        for state in states:
            for seat in range(state.seats):
                view = view_for(state, seat)
                belief = belief_of(view)
                assert belief is not None
                if belief.holders and not view["teams"]["complete"]:
                    truth = state.landlord if state.solo else state.partner
                    assert truth in belief.holders
                    seen += 1
        assert seen


class PartnerReadingTests:
    def test_the_partner_who_beat_the_landlord_is_weighed_down(self):
        """fenzhou5, a farmer's view: a seat that beat the landlord's play is unlikely his
        partner, so the samples that make him the partner weigh BEAT_OWN_SIDE or less."""
        for state in _play_states("fenzhou5", "beliefs-beat", every=1):
            seat = next(
                (s for s in range(state.seats) if view_for(state, s)["role"] == "farmer"), None
            )
            if seat is None or view_for(state, seat)["teams"]["complete"]:
                continue
            belief = belief_of(view_for(state, seat))
            assert belief is not None
            beaters = {e.seat for e in belief.events if e.beat and e.owner == state.landlord}
            beaters -= {seat, state.landlord}
            if not beaters:
                continue
            rng = random.Random(3)
            for _ in range(20):
                sample = draw(belief, rng)
                if sample is not None and beaters & sample.landlord_side:
                    assert sample.weight <= BEAT_OWN_SIDE
                    return
        pytest.fail("no farmer's view with a seat that beat the landlord")

    def test_the_odds_split_the_whole_weight(self):
        state = _play_states("qq5", "beliefs-odds")[2]
        seat = next(s for s in range(state.seats) if s != state.landlord)
        belief = belief_of(view_for(state, seat))
        assert belief is not None
        rng = random.Random(5)
        samples = [s for s in (draw(belief, rng) for _ in range(30)) if s]
        odds = partner_odds(samples, state.landlord)
        assert abs(sum(odds.values()) - 1) < 1e-9
        assert set(odds) <= {None, *range(state.seats)}


def test_a_view_whose_facts_do_not_add_up_has_no_belief():
    state = _play_states("fenzhou5", "beliefs-bad")[0]
    view = view_for(state, 0)
    view["hand_counts"] = [c + 1 for c in view["hand_counts"]]
    view["hand"] = view["hand"] + " " + " ".join(["2s"] * 3)
    assert parse_cards(view["hand"])
    belief = belief_of(view)
    assert belief is None or draw(belief, random.Random(1)) is None


# --------------------------------------------------------------------------- the search on them
class BeliefSearchTests:
    def _lead(self) -> tuple[HandState, int]:
        state = _play_states("new5", "belief-search")[1]
        return state, state.turn

    def test_without_a_clear_gain_it_keeps_the_callers_move(self):
        state, seat = self._lead()
        candidates = play_candidates(state, seat)
        assert len(candidates) > 1
        chosen = belief_search(
            view_for(state, seat),
            candidates,
            seconds=math.inf,
            samples=4,
            cut=2,
            margin=math.inf,
            rng=random.Random(1),
        )
        assert chosen == candidates[0]

    def test_every_candidate_is_scored_on_every_deal_drawn(self):
        state, seat = self._lead()
        candidates = play_candidates(state, seat)
        scores = belief_scores(
            view_for(state, seat),
            candidates,
            seconds=math.inf,
            samples=5,
            cut=2,
            rng=random.Random(2),
        )
        assert scores is not None
        assert scores.deals == 5
        assert len(scores.means) == len(candidates)
        assert all(0.0 <= m <= 1.0 for m in scores.means)

    def test_a_seat_not_to_play_is_not_searched(self):
        state, seat = self._lead()
        other = (seat + 1) % state.seats
        scores = belief_scores(
            view_for(state, other),
            play_candidates(state, seat),
            seconds=math.inf,
            samples=2,
            cut=2,
            rng=random.Random(3),
        )
        assert scores is None
