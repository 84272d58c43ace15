"""Units to whole beans (docs/rules.md §7). Pure: stdlib only, no Django.

The order of the steps, for one finished hand:

1. Gross amounts. A loser's gross is ``round_half_up(|units| × B × N)``. The losers' total is
   shared among the winners by the largest-remainder method in proportion to their units, ties
   to the seat that comes first in ``tie_order`` (§7.4a). The gross amounts sum to zero.
2. The balance floor (§7.3, §3.6). Each human seat pays the house take ``A`` first, as far as
   his balance goes; a loser then pays his gross as far as what is left goes. When losers
   could not pay in full, what they paid is shared among the winners again by the
   largest-remainder method in proportion to their gross (so no winner's gross grows).
3. The cut on winners. The rake is ``round_half_up(gross × r / 100)`` of the (final) gross gain
   of each winner (§7.2); the house take ``A`` is taken from every human seat. Neither may take
   a winner below zero: the house takes ``A`` first, then as much rake as is left.
4. Bots (balance ``None``) settle against the house: their delta is 0, the house pays what a
   losing bot owes and keeps what a winning bot wins. No house take or rake applies to them.

The house intake is ``-sum(deltas)``, so ``sum(deltas) + house == 0`` holds by construction.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

__all__ = ["BeanSettlement", "RoomStakes", "largest_remainder", "round_half_up", "settle_beans"]


@dataclass(frozen=True)
class RoomStakes:
    """The room settings that turn units into beans (docs/rules.md §7 table)."""

    base_score: int = 1
    coefficient: int = 1
    house_take: int = 0
    rake_percent: int = 0
    max_multiplier: int | None = None

    def __post_init__(self) -> None:
        if self.base_score < 1 or self.coefficient < 1:
            raise ValueError("base_score and coefficient must be at least 1")
        if self.house_take < 0 or not 0 <= self.rake_percent <= 100:
            raise ValueError("house_take must be ≥ 0 and rake_percent within 0..100")
        if self.max_multiplier is not None and self.max_multiplier < 1:
            raise ValueError("max_multiplier must be at least 1 when set")


@dataclass(frozen=True)
class BeanSettlement:
    """Whole-bean result of one hand, per seat, plus the house's intake.

    ``deltas[i] == gross[i] - house_takes[i] - rakes[i]`` for every seat; for a bot seat all
    four are 0 (the house carries the bot's share). ``house == -sum(deltas)``.
    """

    deltas: tuple[int, ...]
    house: int
    gross: tuple[int, ...] = ()
    house_takes: tuple[int, ...] = ()
    rakes: tuple[int, ...] = ()


def round_half_up(value: Fraction | int) -> int:
    """Round to the nearest integer, halves away from zero (2.5 → 3, -2.5 → -3)."""
    value = Fraction(value)
    magnitude = math.floor(abs(value) + Fraction(1, 2))
    return magnitude if value >= 0 else -magnitude


def largest_remainder(
    total: int, weights: Sequence[Fraction | int], ranks: Sequence[int]
) -> list[int]:
    """Split ``total`` (≥ 0) in proportion to positive ``weights`` (Hamilton's method).

    Each share is the floor of its quota; the beans left over go one each to the largest
    remainders, ties to the lowest ``ranks`` value. A share never exceeds the ceiling of its
    quota, and a weight with a whole quota gets exactly that quota.
    """
    if total < 0:
        raise ValueError("total must be ≥ 0")
    if not weights:
        if total:
            raise ValueError("nobody to give a positive total to")
        return []
    weight_sum = sum((Fraction(w) for w in weights), Fraction(0))
    if any(Fraction(w) <= 0 for w in weights):
        raise ValueError("weights must be positive")
    quotas = [Fraction(total) * Fraction(w) / weight_sum for w in weights]
    shares = [math.floor(q) for q in quotas]
    left = total - sum(shares)
    by_remainder = sorted(range(len(weights)), key=lambda i: (-(quotas[i] - shares[i]), ranks[i]))
    for i in by_remainder[:left]:
        shares[i] += 1
    return shares


def settle_beans(
    *,
    units: Sequence[Fraction | int],
    stakes: RoomStakes,
    balances: Sequence[int | None],
    tie_order: Sequence[int],
) -> BeanSettlement:
    """Turn one hand's signed units per seat into whole-bean deltas (docs/rules.md §7)."""
    seats = len(units)
    units = [Fraction(u) for u in units]
    if len(balances) != seats:
        raise ValueError("one balance per seat")
    if sorted(tie_order) != list(range(seats)):
        raise ValueError("tie_order must list every seat once")
    if sum(units, Fraction(0)) != 0:
        raise ValueError("units must sum to zero")
    if any(b is not None and b < 0 for b in balances):
        raise ValueError("balances cannot be negative")
    rank = {seat: position for position, seat in enumerate(tie_order)}
    scale = stakes.base_score * stakes.coefficient
    losers = [i for i in range(seats) if units[i] < 0]
    winners = [i for i in range(seats) if units[i] > 0]

    # 1. Gross amounts: losers rounded half-up, winners by largest remainder.
    gross = [0] * seats
    for i in losers:
        gross[i] = -round_half_up(-units[i] * scale)
    pool = -sum(gross)
    for i, share in zip(
        winners,
        largest_remainder(pool, [units[i] for i in winners], [rank[i] for i in winners]),
        strict=True,
    ):
        gross[i] = share

    # 2. The balance floor: the house take first, then as much of the gross as is left.
    takes = [0] * seats
    shortfall = 0
    for i in range(seats):
        balance = balances[i]
        if balance is None or units[i] > 0:
            continue
        takes[i] = min(stakes.house_take, balance)
        paid = min(-gross[i], balance - takes[i])
        shortfall += -gross[i] - paid
        gross[i] = -paid
    if shortfall:
        # Share what was paid in proportion to the winners' gross. A quota never exceeds the
        # gross it comes from, so no winner's gross grows.
        paid_winners = [i for i in winners if gross[i] > 0]
        paid = sum(gross[i] for i in paid_winners) - shortfall
        shares = largest_remainder(
            paid, [gross[i] for i in paid_winners], [rank[i] for i in paid_winners]
        )
        for i, share in zip(paid_winners, shares, strict=True):
            gross[i] = share

    # 3. The cut on winners: the house take first, then the rake, never below zero.
    rakes = [0] * seats
    for i in winners:
        balance = balances[i]
        if balance is None:
            continue
        room = balance + gross[i]
        takes[i] = min(stakes.house_take, room)
        rakes[i] = min(
            round_half_up(Fraction(gross[i] * stakes.rake_percent, 100)), room - takes[i]
        )

    # 4. Bots settle against the house.
    for i in range(seats):
        if balances[i] is None:
            gross[i] = takes[i] = rakes[i] = 0
    deltas = tuple(gross[i] - takes[i] - rakes[i] for i in range(seats))
    return BeanSettlement(
        deltas=deltas,
        house=-sum(deltas),
        gross=tuple(gross),
        house_takes=tuple(takes),
        rakes=tuple(rakes),
    )
