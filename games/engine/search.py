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
caller's decision never takes longer than its budget (plus one rollout).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from games.engine.cards import SJ_CODE, parse_cards
from games.engine.errors import IllegalAction
from games.engine.hand import apply
from games.engine.state import LANDLORD_SIDE, Action, HandState

__all__ = ["determinise", "pimc"]

Policy = Callable[[HandState, int], Action]


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


def _wins(state: HandState, seat: int, policy: Policy, limit: int) -> bool:
    for _ in range(limit):
        if state.finished:
            break
        assert state.turn is not None
        state = apply(state, policy(state, state.turn))
    ours = seat in state.landlord_side()
    return state.finished and ours == (state.winner_side == LANDLORD_SIDE)


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
) -> Action:
    """The candidate (the first is the caller's own choice) that wins the most sampled deals
    when every seat then plays ``policy``."""
    if len(candidates) < 2:
        return candidates[0]
    deadline = time.perf_counter() + seconds
    wins = [0] * len(candidates)
    limit = 4 * sum(view["hand_counts"]) + 8 * state.seats
    for _ in range(samples):
        if time.perf_counter() >= deadline:
            break
        world = determinise(state, seat, view, rng)
        if world is None:
            break
        for i, action in enumerate(candidates):
            try:
                wins[i] += _wins(apply(world, action), seat, policy, limit)
            except IllegalAction:  # pragma: no cover - candidates are legal in every world
                continue
    best = max(range(len(candidates)), key=lambda i: (wins[i], -i))
    return candidates[best]
