"""Determinised search (perfect-information Monte Carlo) for the bot's small endgames.

The bot does not know the other hands. Here it deals the cards it has not seen to the other
seats at random, as many as each holds (the cards of a known partner and a public bottom the
landlord has not played yet stay where they are known to be), and plays each candidate move
out to the end of the hand on every such deal, every seat playing the house bot's own policy.
The candidate that wins the most deals is played; a tie keeps the bot's own choice, which
comes first.

Only what ``seat`` may know is used: its view (own hand, counts, plays, a revealed partner's
hand, a public bottom) and the public facts of the state. The real hands of the other seats
are replaced before anything is simulated, and the random deals are seeded by public facts,
so the same state gives the same samples.

The search stops at ``seconds`` of wall time or ``samples`` deals, whichever comes first: a
caller's decision never takes longer than its budget (plus one rollout); a deal the clock
cut before every candidate was played out on it does not count.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from games.engine.cards import SJ_CODE, parse_cards, ranks_of
from games.engine.combos import Combo, reading_to_follow, reading_to_lead
from games.engine.errors import IllegalAction
from games.engine.state import Action, HandState, remove_cards
from games.engine.variants import Variant

__all__ = ["Rollout", "best_of_worlds", "determinise", "pimc"]

Policy = Callable[["Rollout", int], Action]


def _deck(decks: int) -> Counter[int]:
    return Counter({code: decks for code in range(SJ_CODE + 2)})


def determinise(
    state: HandState, seat: int, view: dict[str, Any], rng: random.Random
) -> HandState | None:
    """``state`` with every other seat's hand replaced by a random deal of the cards ``seat``
    has not seen, consistent with the counts and with what ``seat`` knows of where cards are.
    None when the known facts do not add up (the search is then skipped)."""
    counts = view["hand_counts"]
    pool = _deck(state.variant.decks)
    pool.subtract(state.hands[seat])
    for play in state.plays:
        pool.subtract(play.cards)
    fixed: dict[int, list[int]] = {s: [] for s in range(state.seats)}
    partner_hand = view.get("partner_hand")
    if partner_hand and state.partner is not None and state.partner != seat:
        # qq5: landlords see each other's hand once revealed
        fixed[state.partner] = list(parse_cards(partner_hand))
    elif view.get("bottom") and state.landlord is not None and state.landlord != seat:
        # classic3: the bottom was shown; what of it the landlord has not played he holds
        played = Counter(c for p in state.plays if p.seat == state.landlord for c in p.cards)
        left = Counter(parse_cards(view["bottom"])) - played
        fixed[state.landlord] = list(left.elements())
    for cards in fixed.values():
        pool.subtract(cards)
    if any(n < 0 for n in pool.values()):
        return None
    unseen = sorted(pool.elements())
    rng.shuffle(unseen)
    hands = list(state.hands)
    for s in range(state.seats):
        if s == seat:
            continue
        need = counts[s] - len(fixed[s])
        if need < 0 or need > len(unseen):
            return None
        hands[s] = tuple(sorted(fixed[s] + unseen[:need]))
        del unseen[:need]
    if unseen:
        return None
    return replace(state, hands=tuple(hands))


@dataclass(slots=True)
class Rollout:
    """A sampled hand played out by the policy: the play phase's rules only (the teams are
    known, the first seat out wins for his side), without the engine's records and
    settlement, which a rollout does not need and which cost most of its time."""

    variant: Variant
    hands: list[tuple[int, ...]]  # card codes, sorted
    landlord_side: frozenset[int]
    landlord: int | None
    turn: int
    top: Combo | None
    top_seat: int | None
    passes: int
    played: list[int]  # cards played per rank

    @classmethod
    def of(cls, state: HandState) -> Rollout:
        played = [0] * 18
        for p in state.plays:
            for r in p.combo.ranks:
                played[r] += 1
        assert state.turn is not None
        return cls(
            variant=state.variant,
            hands=[tuple(sorted(h)) for h in state.hands],
            landlord_side=frozenset(state.landlord_side()),
            landlord=state.landlord,
            turn=state.turn,
            top=state.top.combo if state.top is not None else None,
            top_seat=state.top.seat if state.top is not None else None,
            passes=state.passes,
            played=played,
        )

    def step(self, cards: tuple[int, ...] | None) -> bool | None:
        """The seat to act plays ``cards`` (None passes); the winner side (True: the
        landlord's) when that ends the hand. An illegal play raises IllegalAction."""
        seat = self.turn
        n = self.variant.seats
        if not cards:
            if self.top is None:
                raise IllegalAction("the leader of a trick must play")
            self.passes += 1
            if self.passes == n - 1:
                assert self.top_seat is not None
                self.top, self.passes, self.turn = None, 0, self.top_seat
            else:
                self.turn = (seat + 1) % n
            return None
        rest = remove_cards(self.hands[seat], cards)
        ranks = ranks_of(cards)
        final = not rest
        if self.top is None:
            combo = reading_to_lead(self.variant, ranks, final=final)
        else:
            combo = reading_to_follow(self.variant, ranks, self.top, final=final)
        if combo is None:
            raise IllegalAction(f"{ranks} does not play here")
        if final:
            return seat in self.landlord_side
        self.hands[seat] = rest
        for r in ranks:
            self.played[r] += 1
        self.top, self.top_seat, self.passes, self.turn = combo, seat, 0, (seat + 1) % n
        return None


def _wins(world: Rollout, seat: int, policy: Policy, limit: int) -> bool:
    for _ in range(limit):
        landlord_won = world.step(policy(world, world.turn).cards)
        if landlord_won is not None:
            return (seat in world.landlord_side) == landlord_won
    return False


def pimc(
    state: HandState,
    seat: int,
    view: dict[str, Any],
    candidates: Sequence[Action],
    policy: Policy,
    *,
    seconds: float,
    samples: int,
    rng: random.Random,
    margin: float = 0.0,
) -> Action:
    """The candidate (the first is the caller's own choice) that wins the most sampled deals
    when every seat then plays ``policy``; another replaces the first only when it wins more
    than ``margin`` of the deals more than it."""
    worlds = (determinise(state, seat, view, rng) for _ in range(samples))
    return best_of_worlds(worlds, seat, candidates, policy, seconds=seconds, margin=margin)


def best_of_worlds(
    worlds: Iterable[HandState | None],
    seat: int,
    candidates: Sequence[Action],
    policy: Policy,
    *,
    seconds: float,
    margin: float = 0.0,
) -> Action:
    """The candidate that wins the most of ``worlds`` (played out with ``policy``), drawn
    until the clock or the worlds run out or one is None; a tie keeps the earlier candidate,
    and the first is kept unless the best wins more than ``margin`` of the deals more.
    A bench gives it the true state alone to measure the search's ceiling."""
    if len(candidates) < 2:
        return candidates[0]
    deadline = time.perf_counter() + seconds
    wins = [0] * len(candidates)
    deals = 0
    for world in worlds:
        if world is None:
            break
        limit = 4 * sum(len(h) for h in world.hands) + 8 * world.seats
        won = []
        for action in candidates:
            if time.perf_counter() >= deadline:
                break  # a deal not played out for every candidate would favour the first ones
            rollout = Rollout.of(world)
            try:
                if (done := rollout.step(action.cards)) is not None:
                    won.append((seat in rollout.landlord_side) == done)
                else:
                    won.append(_wins(rollout, seat, policy, limit))
            except IllegalAction:  # pragma: no cover - candidates are legal in every world
                won.append(False)
        if len(won) < len(candidates):
            break
        deals += 1
        for i, w in enumerate(won):
            wins[i] += w
    best = max(range(len(candidates)), key=lambda i: (wins[i], -i))
    if wins[best] - wins[0] <= margin * deals:
        return candidates[0]
    return candidates[best]
