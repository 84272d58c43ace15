"""Settlement of a finished hand: the flow's units, then whole beans (docs/rules.md §3.6–§7).

Units come from the variant's Flow (``flows.py``: §3.5/§3.6, §4.5, §5.5, §6.7); this module turns
them into beans with ``beans.settle_beans`` and builds the ``Result`` stored on the final state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from typing import Any

from games.engine.beans import settle_beans
from games.engine.state import PHASE_FINISHED, HandState, Result

# A flow's settlement of a finished state: units per seat, multiplier, spring, anti-spring.
Settle = Callable[[HandState], tuple[tuple[Fraction, ...], Any, bool, bool]]

# Balance used for a seat whose balance the caller did not give: large enough never to bind.
UNLIMITED_BALANCE = 10**15


def tie_order(state: HandState) -> tuple[int, ...]:
    """Seats in turn order starting at the (main) landlord (docs/rules.md §7.4a)."""
    start = state.landlord if state.landlord is not None else 0
    return tuple((start + k) % state.seats for k in range(state.seats))


def beans_for(state: HandState, units: tuple[Fraction, ...]) -> tuple[tuple[int, ...], int]:
    balances = state.balances
    if balances is None:
        balances = (UNLIMITED_BALANCE,) * state.seats
    settlement = settle_beans(
        units=units, stakes=state.stakes, balances=balances, tie_order=tie_order(state)
    )
    return settlement.deltas, settlement.house


def finish(state: HandState, winner_side: str, settle: Settle) -> HandState:
    """End the hand now: the winner side, every role revealed, units and beans settled by
    ``settle`` (the variant's flow's)."""
    state = replace(
        state,
        phase=PHASE_FINISHED,
        turn=None,
        finished=True,
        winner_side=winner_side,
        revealed=True,
        asked=(),
    )
    units, multiplier, spring, anti = settle(state)
    if sum(units, Fraction(0)) != 0:  # pragma: no cover - every flow is zero-sum by construction
        raise AssertionError(f"units do not sum to zero: {units}")
    beans, house = beans_for(state, units)
    result = Result(
        units=units,
        beans=beans,
        house=house,
        multiplier=multiplier,
        spring=spring,
        anti_spring=anti,
    )
    return replace(state, result=result)
