"""How many sampled deals the bot's search scores per 100 ms of CPU (issue #36, step 2).

A script that prints figures (never a test).

    .venv/bin/python bench/rollout_rate.py [--positions 20] [--variant new5] [--seed 20261205]
        [--budget 0.1] [--cut 2] [--evaluation written|learned] [--after 0]

Each position is a seeded deal played by the bot up to the first lead (in new5 the landlord
then holds 38 cards), and ``--after`` play actions further (mid-hand, with plays to read).
On it, the bot's candidates (``play_candidates``) are scored on sampled deals until
``--budget`` seconds of this process's CPU time are spent, and the deals scored for every
candidate are counted (``full`` and ``quick`` deal the unseen cards uniformly, with
``determinise``):

* ``full``: the search the bot has today: every candidate played to the end of the hand
  with the whole bot in every seat (``best_of_worlds`` with ``rollout_policy``);
* ``quick``: the cheap rollouts of ``games.engine.rollouts``: packed hands, the planner's
  cached plans, cut after ``--cut`` tricks and scored by ``--evaluation`` (the hand-written
  ``written_chance`` or the learned ``learned_chance``, issue #36 step 4);
* ``beliefs``: the same rollouts on deals drawn from the seat's view and weighted by the
  plays seen (``games.engine.table_search``), the view read again for every deal (an upper
  bound of the sampler's cost: a decision reads it once).

"cold" empties every plan cache before the position (the first decision on new hands);
"warm" scores the same position again right after. CPU time, not wall time: the figure is
one core's, whatever else the machine runs (a busy machine still slows it through caches).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games.engine import planning, rollouts  # noqa: E402
from games.engine.bot import bot_action, play_candidates, rollout_policy  # noqa: E402
from games.engine.dealing import deal  # noqa: E402
from games.engine.evaluation import EVALUATIONS  # noqa: E402
from games.engine.hand import apply, start_hand, waiting_seats  # noqa: E402
from games.engine.search import best_of_worlds, determinise  # noqa: E402
from games.engine.state import PHASE_PLAY, Action, HandState  # noqa: E402
from games.engine.table_search import belief_scores  # noqa: E402
from games.engine.variants import find_variant  # noqa: E402
from games.engine.views import view_for  # noqa: E402

# one sampled deal scored for every candidate: (position, seat, its view, candidates, rng)
Scorer = Callable[[HandState, int, dict[str, Any], list[Action], random.Random], None]


def _full(
    state: HandState, seat: int, view: dict[str, Any], cands: list[Action], rng: random.Random
) -> None:
    world = determinise(state, seat, view, rng)
    best_of_worlds([world], seat, cands, rollout_policy, seconds=math.inf)


def _quick(cut: int, evaluate: rollouts.Evaluation) -> Scorer:
    def score(
        state: HandState, seat: int, view: dict[str, Any], cands: list[Action], rng: random.Random
    ) -> None:
        world = determinise(state, seat, view, rng)
        rollouts.quick_best([world], seat, cands, seconds=math.inf, cut=cut, evaluate=evaluate)

    return score


def _beliefs(cut: int, evaluate: rollouts.Evaluation) -> Scorer:
    """Deals drawn from the view and weighted by the plays (``table_search``): the belief is
    read from the view for every deal, as a decision's first deal pays for it."""

    def score(
        state: HandState, seat: int, view: dict[str, Any], cands: list[Action], rng: random.Random
    ) -> None:
        belief_scores(view, cands, seconds=math.inf, samples=1, cut=cut, rng=rng, evaluate=evaluate)

    return score


def deals_within(state: HandState, scorer: Scorer, budget: float, seed: str) -> int:
    """Sampled deals fully scored within ``budget`` seconds of CPU on ``state``."""
    seat = state.turn
    assert seat is not None
    view = view_for(state, seat)
    candidates = play_candidates(state, seat)
    rng = random.Random(seed)
    spent = 0.0
    deals = 0
    while True:
        t0 = time.process_time()
        scorer(state, seat, view, candidates, rng)
        spent += time.process_time() - t0
        if spent > budget:
            return deals
        deals += 1


def positions(key: str, count: int, seed: int, after: int) -> list[HandState]:
    """Seeded deals played by the bot to the first lead, then ``after`` play actions more."""
    v = find_variant(key)
    out = []
    for i in range(count):
        state = start_hand(v, deal(v, f"{seed}-rate-{key}-{i}"))
        while not state.finished and state.phase != PHASE_PLAY:
            state = apply(state, bot_action(state, waiting_seats(state)[0]))
        for _ in range(after):
            if state.finished:
                break
            state = apply(state, bot_action(state, waiting_seats(state)[0], think=0))
        if not state.finished:
            out.append(state)
    return out


def _summary(name: str, counts: list[int]) -> str:
    q = statistics.quantiles(counts, n=10) if len(counts) > 1 else [counts[0]] * 9
    return (
        f"{name:<12} median {statistics.median(counts):5.1f}  p10 {q[0]:5.1f}  p90 {q[-1]:5.1f}"
        f"  min {min(counts)}  max {max(counts)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--variant", default="new5")
    parser.add_argument("--seed", type=int, default=20261205)
    parser.add_argument("--budget", type=float, default=0.1, help="CPU seconds per position")
    parser.add_argument("--cut", type=int, default=2, help="tricks a quick rollout plays")
    parser.add_argument(
        "--evaluation", choices=tuple(EVALUATIONS), default="written", help="of a cut rollout"
    )
    parser.add_argument("--after", type=int, default=0, help="play actions before measuring")
    args = parser.parse_args()
    states = positions(args.variant, args.positions, args.seed, args.after)
    sizes = sorted({len(s.hands[s.turn]) for s in states if s.turn is not None})
    print(
        f"{args.variant}: {len(states)} positions {args.after} actions after the first lead"
        f" (the seat to play holds {sizes} cards), sampled deals"
        f" scored for every candidate per {args.budget * 1000:.0f} ms of CPU"
    )
    evaluate = EVALUATIONS[args.evaluation]
    scored = f"cut {args.cut} {args.evaluation}"
    scorers = (
        ("full", _full),
        (f"quick {scored}", _quick(args.cut, evaluate)),
        (f"beliefs {scored}", _beliefs(args.cut, evaluate)),
    )
    for name, scorer in scorers:
        cold, warm = [], []
        for i, state in enumerate(states):
            planning.clear_caches()
            rollouts.clear_caches()
            cold.append(deals_within(state, scorer, args.budget, f"{args.seed}-{i}"))
            warm.append(deals_within(state, scorer, args.budget, f"{args.seed}-{i}"))
        print(_summary(f"{name} cold", cold), flush=True)
        print(_summary(f"{name} warm", warm), flush=True)


if __name__ == "__main__":
    main()
