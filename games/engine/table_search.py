"""A search over the table's beliefs (issue #36, steps 2-3 together): the candidates scored by
cheap rollouts on deals drawn from one seat's view, each deal weighted by how likely the plays
seen were with it; the caller's own move is kept unless another scores clearly better.

Not the served bot's yet: ``bench/bot_strength.py --only belief`` measures it against the
earlier bot first (issue #36: the bot's levels come once a bench shows a gain). It reads the
view alone (``beliefs.belief_of``), so it cannot see another seat's cards.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any

from games.engine.beliefs import Belief, belief_of, draw
from games.engine.rollouts import Evaluation, QuickWorld, Scores, quick_scores, written_chance
from games.engine.state import Action

__all__ = ["belief_scores", "belief_search"]


def _worlds(belief: Belief, samples: int, rng: random.Random) -> Iterator[tuple[QuickWorld, float]]:
    assert belief.turn is not None
    for _ in range(samples):
        sample = draw(belief, rng)
        if sample is None:
            continue  # the drawn holder of the marked copies had no room: draw again
        world = QuickWorld.of_hands(
            belief.variant,
            sample.hands,
            sample.landlord_side,
            turn=belief.turn,
            top=belief.top,
            top_seat=belief.top_seat,
        )
        yield world, sample.weight


def belief_scores(
    view: dict[str, Any],
    candidates: Sequence[Action],
    *,
    seconds: float,
    samples: int,
    cut: int,
    rng: random.Random,
    evaluate: Evaluation = written_chance,
) -> Scores | None:
    """The candidates (the view's seat to play) scored on at most ``samples`` drawn deals
    within ``seconds``; None when the view's facts do not add up."""
    belief = belief_of(view)
    if belief is None or belief.turn != belief.seat:
        return None
    worlds = _worlds(belief, samples, rng)
    return quick_scores(
        worlds, belief.seat, candidates, seconds=seconds, cut=cut, evaluate=evaluate
    )


def belief_search(
    view: dict[str, Any],
    candidates: Sequence[Action],
    *,
    seconds: float,
    samples: int,
    cut: int,
    margin: float,
    rng: random.Random,
    evaluate: Evaluation = written_chance,
) -> Action:
    """The first candidate (the caller's own move) unless another's mean chance beats it by
    more than ``margin``."""
    scores = belief_scores(
        view, candidates, seconds=seconds, samples=samples, cut=cut, rng=rng, evaluate=evaluate
    )
    return candidates[0] if scores is None else scores.best(margin)
