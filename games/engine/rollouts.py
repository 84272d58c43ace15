"""Cheap rollouts for the bot's search (issue #36, step 2): compact hands, a light policy on
the planner's cached decompositions, rollouts cut after a trick or two and scored by an
evaluation of the position.

The search of ``games.engine.search`` plays every candidate to the end of the hand with the
whole bot in every seat: in the five-seat variants one rollout costs about as much as the
bot's own decision, so its 60 ms budget holds one to three sampled deals. Here:

* A hand is one integer: the count of each rank in ``RANK_BITS`` bits (``pack`` /
  ``unpack``). Playing is a subtraction, and the integer is the key of every cache.
* Every seat of a rollout plays the planner's decomposition of its hand (cached per hand,
  ``hand_plan``): it leads the planned play that is hardest to get rid of, answers an
  opponent with the weakest planned play that beats him (a control card or a bomb only
  when he is close to going out), and leaves a partner's trick alone.
* A rollout stops after ``cut`` tricks (or when a seat goes out) and the position is scored
  by an ``Evaluation``: by default ``written_chance`` (``landlord_chance``, hand-written over
  each hand's features, ``HandFeatures``: the plays its plan needs to empty it, the plan's
  price, control cards, bombs, cards left; the side's best-placed seat, and who leads), or
  the learned ``games.engine.evaluation.learned_chance`` (issue #36, step 4).

Cut early, the hand-written evaluation misleads the search (bench/README.md, "Five-seat round
5"); the learned one is measured against it there (step 4). Until one is shown to hold, a
search should play to the end (a large ``cut``), which costs about twice as much.

The rollout reads the sampled world it is given, and nothing else: the sampler decides what
the seat may know (``games.engine.search.determinise``, ``games.engine.beliefs``).
Pure and standard library only, like the rest of the engine.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from games.engine.cards import BJ, RANK_TWO, ranks_of
from games.engine.combos import Combo, reading_to_follow, reading_to_lead
from games.engine.memo import interned
from games.engine.planning import BOMB, CompactPlan, Plan, Planner, planner_for
from games.engine.state import Action, HandState
from games.engine.variants import Variant

__all__ = [
    "RANK_BITS",
    "Evaluation",
    "HandFeatures",
    "QuickWorld",
    "Scores",
    "clear_caches",
    "features",
    "hand_plan",
    "landlord_chance",
    "pack",
    "pack_ranks",
    "planned_answer",
    "quick_best",
    "quick_move",
    "quick_rollout",
    "quick_scores",
    "rank_list",
    "remove_ranks",
    "unpack",
    "written_chance",
]

RANKS = 18  # counts are indexed by rank value, 3..17, like planning's
RANK_BITS = 4  # up to 15 copies of a rank (three decks hold 12)
_MASK = (1 << RANK_BITS) - 1

# Leading: a planned play's price plus this much per card: the weakest and longest first.
LEAD_LENGTH_BONUS = 0.2
# An opponent holding this many cards or fewer is answered with control cards (2s, jokers).
CONTROL_DANGER = 8
# An opponent holding this many cards or fewer is bombed when no plain answer is planned.
BOMB_DANGER = 5
# The evaluation: a seat's distance to going out is its plan's price plus CARD_WEIGHT per card
# left, less CONTROL_WEIGHT per control card and LEAD_BONUS when it leads; each side counts
# its nearest seat, and the difference is read through a logistic of slope CHANCE_SLOPE.
CARD_WEIGHT = 0.05
CONTROL_WEIGHT = 0.1
LEAD_BONUS = 0.6
CHANCE_SLOPE = 1.5


# --------------------------------------------------------------------------- compact hands
def pack(counts: Sequence[int]) -> int:
    """A hand given as counts per rank (index = rank value) as one integer."""
    hand = 0
    for rank, n in enumerate(counts):
        if not 0 <= n <= _MASK:
            raise ValueError(f"{n} copies of rank {rank} do not fit in {RANK_BITS} bits")
        hand |= n << (RANK_BITS * rank)
    return hand


def pack_ranks(ranks: Iterable[int]) -> int:
    """A hand given as rank values (repeated for copies) as one integer."""
    counts = [0] * RANKS
    for r in ranks:
        counts[r] += 1
    return pack(counts)


def unpack(hand: int) -> tuple[int, ...]:
    """The counts per rank (length 18, index = rank value) of a packed hand."""
    return tuple((hand >> (RANK_BITS * r)) & _MASK for r in range(RANKS))


@lru_cache(maxsize=1 << 15)
def rank_list(hand: int) -> tuple[int, ...]:
    """The rank values of a packed hand, ascending, repeated for copies."""
    return tuple(r for r, n in enumerate(unpack(hand)) for _ in range(n))


def remove_ranks(hand: int, ranks: Iterable[int]) -> int:
    """The packed hand without ``ranks``; ValueError when it does not hold them."""
    for r in ranks:
        if not (hand >> (RANK_BITS * r)) & _MASK:
            raise ValueError(f"rank {r} is not in the hand")
        hand -= 1 << (RANK_BITS * r)
    return hand


# Plans per planner and packed hand (an int key: a (planner, hand) tuple would be tracked);
# all emptied once they hold PLAN_CACHE_SIZE together (a bound, not an eviction policy).
_PLANS: dict[Planner, dict[int, CompactPlan]] = {}
PLAN_CACHE_SIZE = 1 << 16
# The planner's budget (chain choices tried) for a rollout's hands: a twelfth of the bot's
# own; planning new hands is most of a cold rollout's time (bench/rollout_rate.py).
PLAN_BUDGET = 25


def _plans_of(planner: Planner) -> dict[int, CompactPlan]:
    plans = _PLANS.get(planner)
    if plans is None:
        plans = _PLANS[planner] = {}
    return plans


def _planned(planner: Planner, hand: int) -> CompactPlan:
    """``hand_plan`` as the rollouts keep it (a CompactPlan: the collector does not track it).
    The planner's search is called, not its cached ``plan``: this cache holds the hand
    already, and the planner's would keep a tracked copy."""
    plans = _plans_of(planner)
    plan = plans.get(hand)
    if plan is None:
        if sum(map(len, _PLANS.values())) >= PLAN_CACHE_SIZE:
            for cached in _PLANS.values():
                cached.clear()
        plan = plans[hand] = planner.compact_search(unpack(hand), PLAN_BUDGET)
    return plan


def hand_plan(planner: Planner, hand: int) -> Plan:
    """The planner's decomposition of a packed hand, cached per hand: the planner's own, or
    for a hand a rollout reached by playing a planned group, the rest of the plan it came
    from (``_plan_after``), whichever the process met first. So a score may depend on the
    hands the process has met before, the same for the same calls in the same order, never
    on cards the searching seat cannot see."""
    return Plan.of(_planned(planner, hand))


def _plan_after(planner: Planner, hand: int, ranks: tuple[int, ...], rest: int) -> None:
    """Once a hand plays one of its planned groups, the rest of its plan is a plan of what
    is left: cached for it (unless one is known), so a rollout rarely plans from scratch."""
    plans = _plans_of(planner)
    if rest in plans:
        return
    plan = plans.get(hand)
    if plan is None:
        return
    price, groups = plan
    for i, g in enumerate(groups):
        if g[2] == ranks:
            plans[rest] = (price - g[3], groups[:i] + groups[i + 1 :])
            return


def clear_caches() -> None:
    """Forget every cached plan, answer and feature (benchmarks measure a cold start)."""
    _PLANS.clear()
    for cached in (rank_list, features, _lead_choice, _answers):
        cached.cache_clear()


# --------------------------------------------------------------------------- evaluation
@dataclass(frozen=True, slots=True)
class HandFeatures:
    """What the evaluation reads of one hand (a learned evaluation would read the same)."""

    plays: int  # the plays its plan needs to empty it
    price: float  # the plan's price (fewer, stronger plays are cheaper; bombs below zero)
    controls: int  # 2s and jokers
    bombs: int  # planned bombs
    cards: int


@lru_cache(maxsize=1 << 15)
def features(planner: Planner, hand: int) -> HandFeatures:
    price, groups = _planned(planner, hand)
    counts = unpack(hand)
    return HandFeatures(
        plays=len(groups),
        price=price,
        controls=sum(counts[RANK_TWO : BJ + 1]),
        bombs=sum(1 for kind, *_ in groups if kind == BOMB),
        cards=sum(counts),
    )


def _distance(f: HandFeatures, leads: bool) -> float:
    if f.cards == 0:
        return -math.inf
    d = f.price + CARD_WEIGHT * f.cards - CONTROL_WEIGHT * f.controls
    return d - LEAD_BONUS if leads else d


def landlord_chance(
    planner: Planner, hands: Sequence[int], landlord_side: frozenset[int], leader: int | None
) -> float:
    """How likely the landlord side is to win from these packed hands, ``leader`` to lead
    (None: a trick is open): 1 or 0 once a seat is out, else a logistic of how much nearer
    to going out the landlord side's best seat is than the farmers' best."""
    near = {True: math.inf, False: math.inf}
    for seat, hand in enumerate(hands):
        side = seat in landlord_side
        near[side] = min(near[side], _distance(features(planner, hand), seat == leader))
    if near[True] == -math.inf:
        return 1.0
    if near[False] == -math.inf:
        return 0.0
    return 1.0 / (1.0 + math.exp(-CHANCE_SLOPE * (near[False] - near[True])))


def written_chance(world: QuickWorld) -> float:
    """``landlord_chance`` of a rollout's world: the hand-written ``Evaluation``."""
    leader = world.turn if world.top is None else None
    return landlord_chance(world.planner, world.hands, world.landlord_side, leader)


# --------------------------------------------------------------------------- rollouts
@dataclass(slots=True)
class QuickWorld:
    """A sampled hand's play phase on packed hands: the scratch state of one rollout (mutated
    in place, never seen outside it)."""

    variant: Variant
    planner: Planner
    hands: list[int]
    sizes: list[int]
    landlord_side: frozenset[int]
    turn: int
    top: Combo | None
    top_seat: int | None
    passes: int
    tricks: int  # tricks closed since the rollout began

    @classmethod
    def of(cls, state: HandState) -> QuickWorld:
        """A world of a whole (sampled) state."""
        assert state.turn is not None
        return cls.of_hands(
            state.variant,
            state.hands,
            frozenset(state.landlord_side()),
            turn=state.turn,
            top=state.top.combo if state.top is not None else None,
            top_seat=state.top.seat if state.top is not None else None,
        )

    @classmethod
    def of_hands(
        cls,
        variant: Variant,
        hands: Sequence[Sequence[int]],
        landlord_side: frozenset[int],
        *,
        turn: int,
        top: Combo | None,
        top_seat: int | None,
    ) -> QuickWorld:
        """A world of sampled hands (card codes per seat) at a public position: ``turn`` to
        act on ``top`` played by ``top_seat`` (None: leading), every seat in between passed."""
        n = variant.seats
        return cls(
            variant=variant,
            planner=planner_for(variant),
            hands=[pack_ranks(ranks_of(h)) for h in hands],
            sizes=[len(h) for h in hands],
            landlord_side=landlord_side,
            turn=turn,
            top=top,
            top_seat=top_seat,
            passes=0 if top_seat is None else (turn - top_seat - 1) % n,
            tricks=0,
        )

    def copy(self) -> QuickWorld:
        return QuickWorld(
            variant=self.variant,
            planner=self.planner,
            hands=list(self.hands),
            sizes=list(self.sizes),
            landlord_side=self.landlord_side,
            turn=self.turn,
            top=self.top,
            top_seat=self.top_seat,
            passes=self.passes,
            tricks=self.tricks,
        )

    def step(self, play: Combo | None) -> bool | None:
        """The seat to act plays ``play`` (None passes, a reading the policy checked); the
        winner side (True: the landlord's) when that ends the hand."""
        seat = self.turn
        n = self.variant.seats
        if play is None:
            self.passes += 1
            if self.passes == n - 1:  # nobody is out yet: the first seat out ends the hand
                assert self.top_seat is not None
                self.top, self.passes, self.turn = None, 0, self.top_seat
                self.tricks += 1
            else:
                self.turn = (seat + 1) % n
            return None
        rest = remove_ranks(self.hands[seat], play.ranks)
        _plan_after(self.planner, self.hands[seat], play.ranks, rest)
        self.hands[seat] = rest
        self.sizes[seat] -= len(play.ranks)
        if not self.sizes[seat]:
            return seat in self.landlord_side
        self.top, self.top_seat, self.passes, self.turn = play, seat, 0, (seat + 1) % n
        return None


# How likely the landlord side is to win a world where a rollout was cut: ``written_chance``
# (hand-written), or the learned ``games.engine.evaluation.learned_chance``.
Evaluation = Callable[[QuickWorld], float]


# A play as the rollouts' caches keep it: a Combo's fields (kind, ranks, key, length,
# bomb_power), untracked by the collector as a CompactPlan is; a Combo is made of them on use.
ComboFields = tuple[str, tuple[int, ...], int, int, tuple[int, ...] | None]

# The planners met, numbered: the light policy's caches are keyed by the number (an int, where
# a key holding the planner would be a tracked tuple). As many as the variants played.
_PLANNER_NUMBERS: dict[Planner, int] = {}
_NUMBERED_PLANNERS: list[Planner] = []


def _number(planner: Planner) -> int:
    number = _PLANNER_NUMBERS.get(planner)
    if number is None:
        number = _PLANNER_NUMBERS[planner] = len(_NUMBERED_PLANNERS)
        _NUMBERED_PLANNERS.append(planner)
    return number


def _fields(combo: Combo) -> ComboFields:
    return combo.kind, combo.ranks, combo.key, combo.length, combo.bomb_power


def _fields_or_none(combo: Combo | None) -> ComboFields | None:
    return None if combo is None else _fields(combo)


# The Combos made of ComboFields, kept: the light policy makes a play at every step. Few (the
# plays the rollouts meet); a bound, still.
_shared_combo = interned(lambda fields: Combo(*fields), limit=1 << 14)


def _combo(fields: ComboFields | None) -> Combo | None:
    return None if fields is None else _shared_combo(fields)


@lru_cache(maxsize=1 << 15)
def _lead_choice(planner_number: int, hand: int) -> ComboFields:
    """The light policy's lead: the whole hand when it is one play, else the planned play
    dearest to get rid of (the longest and weakest), bombs last."""
    planner = _NUMBERED_PLANNERS[planner_number]
    v = planner.v
    ranks = rank_list(hand)
    whole = reading_to_lead(v, ranks, final=True)
    if whole is not None:
        return _fields(whole)
    best: tuple[tuple[bool, float, int], Combo] | None = None
    for kind, _key, group, price in _planned(planner, hand)[1]:
        combo = reading_to_lead(v, group, final=len(group) == len(ranks))
        if combo is None:
            continue
        order = (kind != BOMB, price + LEAD_LENGTH_BONUS * len(group), -combo.key)
        if best is None or order > best[0]:
            best = (order, combo)
    if best is not None:
        return _fields(best[1])
    lowest = reading_to_lead(v, ranks[:1])
    assert lowest is not None  # a single always leads
    return _fields(lowest)


# A packed hand's planned answers to one top play: going out with the whole hand, the
# weakest planned answer below the control cards, the weakest one with them, the weakest
# planned bomb that beats it (None: none).
Answers = tuple[ComboFields | None, ComboFields | None, ComboFields | None, ComboFields | None]


@lru_cache(maxsize=1 << 16)
def _answers(planner_number: int, hand: int, top: ComboFields) -> Answers:
    planner = _NUMBERED_PLANNERS[planner_number]
    v = planner.v
    ranks = rank_list(hand)
    beaten = Combo(*top)
    plain = control = bomb = None
    for _kind, key, group, _price in _planned(planner, hand)[1]:
        combo = reading_to_follow(v, group, beaten, final=len(group) == len(ranks))
        if combo is None:
            continue
        if combo.is_bomb:
            if bomb is None or (combo.bomb_power or ()) < (bomb.bomb_power or ()):
                bomb = combo
            continue
        if control is None or combo.key < control.key:
            control = combo
        if key < RANK_TWO and (plain is None or combo.key < plain.key):
            plain = combo
    out = reading_to_follow(v, ranks, beaten, final=True)
    return (
        _fields_or_none(out),
        _fields_or_none(plain),
        _fields_or_none(control),
        _fields_or_none(bomb),
    )


def planned_answer(planner: Planner, hand: int, top: Combo) -> Combo | None:
    """The weakest play of a packed hand's plan, below the control cards and no bomb, that
    beats ``top``: what the light policy answers a rival with (the beliefs read a pass with
    one as unlikely)."""
    return _combo(_answers(_number(planner), hand, _fields(top))[1])


def quick_move(world: QuickWorld, seat: int) -> Combo | None:
    """The light policy's play for ``seat`` (None: a pass), from its planned hand: going out
    when it can, leaving a partner's trick alone, else the weakest planned answer (control
    cards and bombs only against an opponent close to going out)."""
    hand = world.hands[seat]
    top = world.top
    if top is None:
        return _combo(_lead_choice(_number(world.planner), hand))
    assert world.top_seat is not None
    out, plain, control, bomb = _answers(_number(world.planner), hand, _fields(top))
    if out is not None:
        return _combo(out)
    if (world.top_seat in world.landlord_side) == (seat in world.landlord_side):
        return None
    danger = world.sizes[world.top_seat]
    if danger <= CONTROL_DANGER and control is not None:
        return _combo(control)
    if plain is not None:
        return _combo(plain)
    if danger <= BOMB_DANGER:
        return _combo(bomb)
    return None


def _candidate_reading(world: QuickWorld, action: Action) -> Combo | None:
    ranks = tuple(sorted(ranks_of(action.cards or ())))
    if not ranks:
        return None
    final = len(ranks) == world.sizes[world.turn]
    if world.top is None:
        return reading_to_lead(world.variant, ranks, final=final)
    return reading_to_follow(world.variant, ranks, world.top, final=final)


def quick_rollout(
    start: QuickWorld,
    first: Action,
    seat: int,
    *,
    cut: int,
    evaluate: Evaluation = written_chance,
) -> float:
    """``seat``'s side's chance of winning ``start`` (a sampled world, ``seat`` to play) after
    it plays ``first`` and every seat then plays ``quick_move`` for ``cut`` tricks, the
    position then scored by ``evaluate``."""
    world = start.copy()
    mine = seat in world.landlord_side
    play = _candidate_reading(world, first)
    if first.cards and play is None:
        raise ValueError(f"{first} does not play in this world")
    done = world.step(play)
    limit = 4 * sum(world.sizes) + 8 * world.variant.seats
    for _ in range(limit):
        if done is not None or world.tricks >= cut:
            break
        done = world.step(quick_move(world, world.turn))
    if done is not None:
        return 1.0 if done == mine else 0.0
    chance = evaluate(world)
    return chance if mine else 1.0 - chance


@dataclass(frozen=True, slots=True)
class Scores:
    """The candidates' weighted mean chances of winning over the sampled deals scored, and
    the standard error of each one's mean gain over the first candidate (paired deal by deal:
    the deals' luck cancels out)."""

    candidates: tuple[Action, ...]
    means: tuple[float, ...]
    deals: int
    gain_errors: tuple[float, ...] = ()

    def best(self, margin: float = 0.0, *, sure: float = 0.0) -> Action:
        """The best candidate, but the first (the caller's own choice) unless another beats
        it by more than ``margin`` and by more than ``sure`` standard errors of that gain; a
        tie keeps the earlier one."""
        i = max(range(len(self.candidates)), key=lambda j: (self.means[j], -j))
        gain = self.means[i] - self.means[0]
        error = self.gain_errors[i] if self.gain_errors and sure > 0 else 0.0
        if gain > margin and gain > sure * error:
            return self.candidates[i]
        return self.candidates[0]


def _gain_errors(
    weight: float, squared_weight: float, gains: list[float], squared_gains: list[float]
) -> tuple[float, ...]:
    """The standard error of each weighted mean gain, over the deals' effective number
    (``weight ** 2 / squared_weight``); infinite from fewer than two deals."""
    if weight <= 0 or squared_weight <= 0:
        return (math.inf,) * len(gains)
    effective = weight * weight / squared_weight
    if effective <= 1:
        return (math.inf,) * len(gains)
    errors = []
    for total, squared in zip(gains, squared_gains, strict=True):
        mean = total / weight
        variance = max(0.0, squared / weight - mean * mean) * effective / (effective - 1)
        errors.append(math.sqrt(variance / effective))
    return tuple(errors)


def quick_scores(
    worlds: Iterable[tuple[QuickWorld, float] | None],
    seat: int,
    candidates: Sequence[Action],
    *,
    seconds: float,
    cut: int,
    evaluate: Evaluation = written_chance,
) -> Scores:
    """Every candidate scored on the weighted ``worlds`` (drawn until the clock or the worlds
    run out or one is None; a deal the clock cut before every candidate was scored on it
    does not count)."""
    if len(candidates) < 2:
        return Scores(tuple(candidates), (0.0,) * len(candidates), 0)
    deadline = time.perf_counter() + seconds
    totals = [0.0] * len(candidates)
    gains = [0.0] * len(candidates)  # weighted sums of each one's gain over the first
    squared_gains = [0.0] * len(candidates)
    weight = squared_weight = 0.0
    deals = 0
    for drawn in worlds:
        if drawn is None:
            break
        start, w = drawn
        scores = []
        for action in candidates:
            if time.perf_counter() >= deadline:
                break
            scores.append(quick_rollout(start, action, seat, cut=cut, evaluate=evaluate))
        if len(scores) < len(candidates):
            break
        deals += 1
        weight += w
        squared_weight += w * w
        for i, score in enumerate(scores):
            totals[i] += w * score
            gains[i] += w * (score - scores[0])
            squared_gains[i] += w * (score - scores[0]) ** 2
    means = tuple(t / weight for t in totals) if weight > 0 else (0.0,) * len(candidates)
    errors = _gain_errors(weight, squared_weight, gains, squared_gains)
    return Scores(tuple(candidates), means, deals, errors)


def quick_best(
    worlds: Iterable[HandState | None],
    seat: int,
    candidates: Sequence[Action],
    *,
    seconds: float,
    cut: int,
    evaluate: Evaluation = written_chance,
) -> tuple[Action, int]:
    """The candidate with the best mean chance over the (unweighted) sampled states, and
    how many deals were scored."""
    drawn = ((QuickWorld.of(w), 1.0) if w is not None else None for w in worlds)
    scores = quick_scores(drawn, seat, candidates, seconds=seconds, cut=cut, evaluate=evaluate)
    return scores.best(), scores.deals
