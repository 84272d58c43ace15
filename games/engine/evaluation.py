"""A learned evaluation of a position for the cut rollouts (issue #36, step 4).

``games.engine.rollouts`` cuts a rollout after a trick or two and asks an evaluation how likely
the landlord side is to win from there. The hand-written one (``rollouts.written_chance``)
misleads the search when cut early (bench/README.md, "Five-seat round 5"); this one is a tiny
network (one hidden layer of tanh units, a logistic output) trained on positions of hands the
planner played against itself, labelled with the side that won (``bench/train_eval.py``, which
rebuilds ``eval_model.json`` exactly from its seeds).

``position_features`` reads a ``QuickWorld`` alone: a sampled deal, or (in the bench's
cheating bot) the true one; never a state. Seats are taken in turn order from the seat to
move, so one model serves three and five seats; the variant enters as its constants (seats,
decks, hand size), never by its key (docs/conventions.md §2). Standard library only: the
weights are a small JSON file read once per process.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from games.engine.rollouts import Evaluation, QuickWorld, features, written_chance

__all__ = [
    "EVALUATIONS",
    "FEATURE_NAMES",
    "MODEL_PATH",
    "LearnedEvaluation",
    "learned_chance",
    "load_evaluation",
    "position_features",
]

MODEL_PATH = Path(__file__).with_name("eval_model.json")
MAX_SEATS = 5  # three-seat positions leave the last two seats' features at zero
SEAT_FEATURES = ("present", "landlord", "cards", "plays", "price", "controls", "bombs")
SIDE_FEATURES = ("min_cards", "min_plays", "controls", "bombs")
# The hand-written chance enters as its logit, clipped: it is one good summary among others.
WRITTEN_CLIP = 1e-4

FEATURE_NAMES: tuple[str, ...] = (
    "seats",
    "decks",
    "hand_size",
    "mover_landlord",
    "trick_open",
    "written_logit",
    *(f"{side}_{name}" for side in ("landlord", "farmers") for name in SIDE_FEATURES),
    *(f"seat{k}_{name}" for k in range(MAX_SEATS) for name in SEAT_FEATURES),
)


def position_features(world: QuickWorld) -> tuple[float, ...]:
    """The features of ``world`` with its seat to move (``world.turn``) as seat 0, in the
    order of ``FEATURE_NAMES``."""
    n = world.variant.seats
    seats: list[float] = []
    sides: dict[bool, list[float]] = {True: [math.inf, math.inf, 0.0, 0.0]}
    sides[False] = list(sides[True])
    for k in range(MAX_SEATS):
        if k >= n:
            seats.extend(0.0 for _ in SEAT_FEATURES)
            continue
        seat = (world.turn + k) % n
        f = features(world.planner, world.hands[seat])
        lord = seat in world.landlord_side
        seats.extend((1.0, float(lord), f.cards, f.plays, f.price, f.controls, f.bombs))
        side = sides[lord]
        side[0] = min(side[0], f.cards)
        side[1] = min(side[1], f.plays)
        side[2] += f.controls
        side[3] += f.bombs
    p = min(1.0 - WRITTEN_CLIP, max(WRITTEN_CLIP, written_chance(world)))
    return (
        float(n),
        float(world.variant.decks),
        float(world.variant.hand_size),
        float(world.turn in world.landlord_side),
        float(world.top is not None),
        math.log(p / (1.0 - p)),
        *sides[True],
        *sides[False],
        *seats,
    )


@dataclass(frozen=True, slots=True)
class LearnedEvaluation:
    """A one-hidden-layer network: features standardised by ``mean`` and ``scale``, then
    ``tanh(hidden · x + hidden_bias)``, then a logistic of ``output · h + output_bias``.
    No hidden units: a logistic regression on the standardised features."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    hidden: tuple[tuple[float, ...], ...]
    hidden_bias: tuple[float, ...]
    output: tuple[float, ...]
    output_bias: float

    def probability(self, x: Sequence[float]) -> float:
        """The landlord side's chance of winning a position with features ``x``."""
        z = [(v - m) / s for v, m, s in zip(x, self.mean, self.scale, strict=True)]
        if self.hidden:
            z = [
                math.tanh(b + sum(w * v for w, v in zip(row, z, strict=True)))
                for row, b in zip(self.hidden, self.hidden_bias, strict=True)
            ]
        logit = self.output_bias + sum(w * v for w, v in zip(self.output, z, strict=True))
        if logit < 0:  # the two forms keep exp() from overflowing
            e = math.exp(logit)
            return e / (1.0 + e)
        return 1.0 / (1.0 + math.exp(-logit))

    def chance(self, world: QuickWorld) -> float:
        """The landlord side's chance of winning ``world`` (an ``Evaluation``)."""
        return self.probability(position_features(world))

    def to_json(self) -> dict[str, object]:
        return {
            "features": list(FEATURE_NAMES),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "hidden": [list(row) for row in self.hidden],
            "hidden_bias": list(self.hidden_bias),
            "output": list(self.output),
            "output_bias": self.output_bias,
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> LearnedEvaluation:
        """The model of ``to_json``; ValueError when it was trained on other features or its
        shapes do not fit together."""
        if data.get("features") != list(FEATURE_NAMES):
            raise ValueError("the model was trained on other features: rebuild it")

        hidden = data["hidden"]
        if not isinstance(hidden, list):
            raise ValueError("hidden is not a list of rows")
        model = cls(
            mean=floats(data["mean"]),
            scale=floats(data["scale"]),
            hidden=tuple(floats(row) for row in hidden),
            hidden_bias=floats(data["hidden_bias"]),
            output=floats(data["output"]),
            output_bias=number(data["output_bias"]),
        )
        width = len(FEATURE_NAMES)
        inner = len(model.hidden) if model.hidden else width
        if (
            len(model.mean) != width
            or len(model.scale) != width
            or any(len(row) != width for row in model.hidden)
            or len(model.hidden_bias) != len(model.hidden)
            or len(model.output) != inner
            or not all(s > 0 for s in model.scale)
        ):
            raise ValueError("the model's shapes do not fit its features")
        return model


def number(value: object) -> float:
    """A JSON number as a float; ValueError for anything else."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{value!r} is not a number")
    return float(value)


def floats(value: object) -> tuple[float, ...]:
    """A JSON list of numbers as floats; ValueError for anything else."""
    if not isinstance(value, list):
        raise ValueError(f"{value!r} is not a list of numbers")
    return tuple(number(v) for v in value)


@lru_cache(maxsize=4)
def load_evaluation(path: Path = MODEL_PATH) -> LearnedEvaluation:
    """The model stored at ``path``, read once per process."""
    return LearnedEvaluation.from_json(json.loads(path.read_text(encoding="utf-8")))


def learned_chance(world: QuickWorld) -> float:
    """The landlord side's chance of winning ``world`` by the repository's model (an
    ``Evaluation`` for ``rollouts.quick_rollout``)."""
    return load_evaluation().chance(world)


# The evaluations a cut rollout may use, by the name the benches' ``--evaluation`` takes.
EVALUATIONS: dict[str, Evaluation] = {"written": written_chance, "learned": learned_chance}
