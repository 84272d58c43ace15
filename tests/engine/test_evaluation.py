"""The learned evaluation of the cut rollouts (games/engine/evaluation.py): its features read a
world by hand-checked vectors, from the seat to move, the same for any seat numbering; the
network computes what its weights say; the model in the repository loads and answers with a
probability; a rollout scored by it stays a chance."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.bot import bot_action, play_candidates
from games.engine.dealing import deal
from games.engine.evaluation import (
    FEATURE_NAMES,
    MODEL_PATH,
    LearnedEvaluation,
    learned_chance,
    load_evaluation,
    position_features,
)
from games.engine.hand import apply, start_hand, waiting_seats
from games.engine.planning import planner_for
from games.engine.rollouts import QuickWorld, pack_ranks, quick_rollout
from games.engine.state import PHASE_PLAY, HandState
from games.engine.variants import find_variant

VARIANT_KEYS = ("classic3", "qq5", "new5", "fenzhou5")


def _world(variant_key: str, hands: list[tuple[int, ...]], landlord_side: set[int], turn: int):
    v = find_variant(variant_key)
    return QuickWorld(
        variant=v,
        planner=planner_for(v),
        hands=[pack_ranks(h) for h in hands],
        sizes=[len(h) for h in hands],
        landlord_side=frozenset(landlord_side),
        turn=turn,
        top=None,
        top_seat=None,
        passes=0,
        tricks=0,
    )


def _named(world: QuickWorld) -> dict[str, float]:
    return dict(zip(FEATURE_NAMES, position_features(world), strict=True))


def _positions(variant_key: str, seed: str, every: int = 5) -> list[HandState]:
    """Every ``every``-th state of the play phase along the bots' play of one deal."""
    v = find_variant(variant_key)
    state = start_hand(v, deal(v, seed))
    out = []
    while not state.finished:
        if state.phase == PHASE_PLAY and len(state.history) % every == 0:
            out.append(state)
        state = apply(state, bot_action(state, waiting_seats(state)[0]))
    return out


# --------------------------------------------------------------------------- features
class PositionFeatureTests:
    # qq5, the landlord seat 0 alone, seat 2 to lead: 9999 | 3 | 22 | 34567 | BJ RJ.
    HANDS = [(9, 9, 9, 9), (3,), (15, 15), (3, 4, 5, 6, 7), (16, 17)]

    def test_a_five_seat_vector(self):
        f = _named(_world("qq5", self.HANDS, {0}, turn=2))
        expected = {
            "seats": 5,
            "decks": 2,
            "hand_size": 21,
            "mover_landlord": 0,
            "trick_open": 0,
            "landlord_min_cards": 4,
            "landlord_min_plays": 1,
            "landlord_controls": 0,
            "landlord_bombs": 1,
            "farmers_min_cards": 1,
            "farmers_min_plays": 1,
            "farmers_controls": 4,
            "farmers_bombs": 0,
            # seat 0 is the mover (seat 2: 22), then on round the table
            "seat0_present": 1,
            "seat0_landlord": 0,
            "seat0_cards": 2,
            "seat0_plays": 1,
            "seat0_controls": 2,
            "seat1_cards": 5,  # 34567: one straight
            "seat1_plays": 1,
            "seat2_cards": 2,  # the two jokers: no bomb in qq5
            "seat2_controls": 2,
            "seat2_bombs": 0,
            "seat3_landlord": 1,  # the landlord, 9999: one bomb
            "seat3_cards": 4,
            "seat3_plays": 1,
            "seat3_bombs": 1,
            "seat4_cards": 1,  # a single 3, priced 1 (the planner's weakest single)
            "seat4_plays": 1,
            "seat4_price": 1.0,
        }
        assert {k: f[k] for k in expected} == expected

    def test_three_seats_leave_the_last_two_at_zero(self):
        f = _named(_world("classic3", self.HANDS[:3], {1}, turn=1))
        assert (f["seats"], f["decks"], f["mover_landlord"]) == (3, 1, 1)
        assert (f["seat0_cards"], f["seat1_cards"], f["seat2_cards"]) == (1, 2, 4)
        tail = [f[f"seat{k}_{name}"] for k in (3, 4) for name in ("present", "cards", "plays")]
        assert tail == [0] * 6

    @pytest.mark.parametrize("variant_key", VARIANT_KEYS)
    @settings(max_examples=3, deadline=None)
    @given(seed=st.integers(0, 10**6), shift=st.integers(1, 4))
    def test_features_do_not_depend_on_how_the_seats_are_numbered(self, variant_key, seed, shift):
        """Seats read from the mover: the same table turned round gives the same features."""
        for state in _positions(variant_key, f"eval-turned-{seed}", every=9):
            world = QuickWorld.of(state)
            n = world.variant.seats
            turned = world.copy()
            turned.hands = [world.hands[(s + shift) % n] for s in range(n)]
            turned.sizes = [world.sizes[(s + shift) % n] for s in range(n)]
            turned.landlord_side = frozenset((s - shift) % n for s in world.landlord_side)
            turned.turn = (world.turn - shift) % n
            assert position_features(turned) == position_features(world)


# --------------------------------------------------------------------------- the network
def _logistic(output: tuple[float, ...], bias: float) -> LearnedEvaluation:
    width = len(FEATURE_NAMES)
    return LearnedEvaluation(
        mean=(1.0,) * width,
        scale=(2.0,) * width,
        hidden=(),
        hidden_bias=(),
        output=output,
        output_bias=bias,
    )


class NetworkTests:
    def test_a_logistic_regression_on_standardised_features(self):
        width = len(FEATURE_NAMES)
        model = _logistic((0.5,) + (0.0,) * (width - 1), -1.0)
        x = (5.0,) + (0.0,) * (width - 1)  # (5 - 1) / 2 = 2; logit 0.5 * 2 - 1 = 0
        assert model.probability(x) == 0.5
        x = (9.0,) + (0.0,) * (width - 1)  # logit 0.5 * 4 - 1 = 1
        assert model.probability(x) == pytest.approx(1 / (1 + math.exp(-1)))

    def test_one_hidden_unit(self):
        width = len(FEATURE_NAMES)
        model = LearnedEvaluation(
            mean=(0.0,) * width,
            scale=(1.0,) * width,
            hidden=((1.0,) + (0.0,) * (width - 1),),
            hidden_bias=(0.0,),
            output=(2.0,),
            output_bias=0.0,
        )
        x = (0.5,) + (7.0,) * (width - 1)
        assert model.probability(x) == pytest.approx(1 / (1 + math.exp(-2 * math.tanh(0.5))))

    def test_huge_logits_stay_probabilities(self):
        width = len(FEATURE_NAMES)
        model = _logistic((1.0,) * width, 0.0)
        assert model.probability((1e6,) * width) == 1.0
        assert model.probability((-1e6,) * width) == 0.0

    def test_json_round_trip(self):
        model = _logistic(tuple(float(i) for i in range(len(FEATURE_NAMES))), 0.25)
        assert LearnedEvaluation.from_json(json.loads(json.dumps(model.to_json()))) == model

    def test_a_model_of_other_features_is_refused(self):
        data = _logistic((0.0,) * len(FEATURE_NAMES), 0.0).to_json()
        data["features"] = list(FEATURE_NAMES[:-1])
        with pytest.raises(ValueError, match="other features"):
            LearnedEvaluation.from_json(data)

    def test_shapes_that_do_not_fit_are_refused(self):
        data = _logistic((0.0,) * len(FEATURE_NAMES), 0.0).to_json()
        data["output"] = [0.0]
        with pytest.raises(ValueError, match="shapes"):
            LearnedEvaluation.from_json(data)


# --------------------------------------------------------------------------- the model file
class ModelFileTests:
    def test_the_repositorys_model_loads(self):
        model = load_evaluation(MODEL_PATH)
        assert model.hidden, "the model in the repository is the network bench/train_eval.py fits"
        assert len(model.mean) == len(FEATURE_NAMES)

    @pytest.mark.parametrize("variant_key", VARIANT_KEYS)
    def test_it_gives_probabilities_along_real_hands(self, variant_key):
        chances = [
            learned_chance(QuickWorld.of(s)) for s in _positions(variant_key, "eval-chances")
        ]
        assert chances
        assert all(0.0 <= p <= 1.0 for p in chances)
        assert len(set(chances)) > 1  # it reads the position

    def test_a_landlord_one_play_from_out_with_the_lead_is_favoured(self):
        many = (3, 4, 6, 8, 9, 11, 12, 14, 3, 6, 8, 10, 13)
        hands = [(15, 15), many, many, many, many]
        assert learned_chance(_world("qq5", hands, {0}, turn=0)) > 0.7
        hands = [many, (15, 15), many, many, many]
        assert learned_chance(_world("qq5", hands, {0}, turn=1)) < 0.3

    def test_a_rollout_scored_by_it_is_a_chance(self):
        state = _positions("new5", "eval-rollout")[0]
        seat = state.turn
        first = play_candidates(state, seat)[0]
        chance = quick_rollout(QuickWorld.of(state), first, seat, cut=1, evaluate=learned_chance)
        assert 0.0 < chance < 1.0
