"""How well the sampler's beliefs name the hidden partner (issue #36, step 3).

A script that prints figures (never a test).

    .venv/bin/python bench/partner_belief.py [--hands 20] [--variants qq5,new5,fenzhou5]
        [--samples 40] [--every 3] [--seed 20261205]

Bot-only seeded hands (the house bot in every seat). At every ``--every``-th play decision of a
farmer who does not know the teams yet, ``--samples`` deals are drawn from his view
(``games.engine.beliefs``) and the partner they weigh most is compared with the true one
(``None``: the landlord plays alone). Printed per variant: how often that guess is right,
the mean weight on the true partner, the same for the samples unweighted (the public counts,
cards and the marked card's structure only), and the uniform guess, 1/(seats - 1) (any
other seat, the landlord's own hand for a solo included).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games.engine.beliefs import Sample, belief_of, draw, partner_odds  # noqa: E402
from games.engine.bot import bot_action  # noqa: E402
from games.engine.dealing import deal  # noqa: E402
from games.engine.hand import apply, start_hand, waiting_seats  # noqa: E402
from games.engine.state import PHASE_PLAY, HandState  # noqa: E402
from games.engine.variants import find_variant  # noqa: E402
from games.engine.views import view_for  # noqa: E402


def _guess(samples: list[Sample], landlord: int) -> tuple[int | None, dict[int | None, float]]:
    odds = partner_odds(samples, landlord)
    return max(odds, key=lambda p: (odds[p], -1 if p is None else p)), odds


def _asked(state: HandState, seat: int) -> bool:
    view = view_for(state, seat)
    return view["role"] == "farmer" and not view["teams"]["complete"]


def measure(key: str, hands: int, samples: int, every: int, seed: int) -> dict[str, float]:
    v = find_variant(key)
    right = right_flat = 0
    weight_true = weight_flat = 0.0
    asked = 0
    for i in range(hands):
        state = start_hand(v, deal(v, f"{seed}-belief-{key}-{i}"))
        decisions = 0
        while not state.finished:
            seat = waiting_seats(state)[0]
            if state.phase == PHASE_PLAY and _asked(state, seat):
                decisions += 1
                if decisions % every == 0:
                    belief = belief_of(view_for(state, seat))
                    assert belief is not None and state.landlord is not None
                    rng = random.Random(f"{seed}-{key}-{i}-{decisions}")
                    drawn = [s for s in (draw(belief, rng) for _ in range(samples)) if s]
                    flat = [Sample(s.hands, s.landlord_side, 1.0) for s in drawn]
                    truth = None if state.solo else state.partner
                    guess, odds = _guess(drawn, state.landlord)
                    guess_flat, odds_flat = _guess(flat, state.landlord)
                    right += guess == truth
                    right_flat += guess_flat == truth
                    weight_true += odds.get(truth, 0.0)
                    weight_flat += odds_flat.get(truth, 0.0)
                    asked += 1
            state = apply(state, bot_action(state, seat, think=0))
    n = max(1, asked)
    return {
        "asked": asked,
        "right": right / n,
        "right_flat": right_flat / n,
        "weight": weight_true / n,
        "weight_flat": weight_flat / n,
        "uniform": 1 / (v.seats - 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--variants", default="qq5,new5,fenzhou5")
    parser.add_argument("--samples", type=int, default=40)
    parser.add_argument("--every", type=int, default=3)
    parser.add_argument("--seed", type=int, default=20261205)
    args = parser.parse_args()
    print(f"partner named by the beliefs, {args.hands} bot-only hands, {args.samples} samples")
    for key in [k for k in args.variants.split(",") if k]:
        r = measure(key, args.hands, args.samples, args.every, args.seed)
        print(
            f"{key:<9} decisions {r['asked']:4.0f}  right {r['right'] * 100:5.1f}%"
            f" (weight on the truth {r['weight'] * 100:5.1f}%)"
            f"  unweighted {r['right_flat'] * 100:5.1f}% ({r['weight_flat'] * 100:5.1f}%)"
            f"  uniform {r['uniform'] * 100:5.1f}%",
            flush=True,
        )


if __name__ == "__main__":
    main()
