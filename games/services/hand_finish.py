"""A finished hand (issue #5): settled exactly once through the ledger, its seed revealed and its
seats freed, inside the finishing ``HandRun``'s transaction (games/services/hand_run.py)."""

from __future__ import annotations

import datetime
from fractions import Fraction
from typing import Any

from accounts.models import User
from games.engine.beans import RoomStakes, round_half_up
from games.engine.hand import summary
from games.engine.scoring import tie_order
from games.engine.state import PHASE_REDEAL, HandState
from games.models import Hand, Table
from games.reads import selectors
from games.services.base import vacate
from games.table.hooks import hooks


def _score_moves(state: HandState, units: tuple[Fraction, ...]) -> list[int]:
    """积分 per seat (docs/rules.md §7.4): the units rounded half-up, times the base score B where
    the variant scores by it (qq5, §3.6: X = units × B)."""
    base = state.stakes.base_score if state.variant.score_by_base else 1
    return [round_half_up(Fraction(u) * base) for u in units]


def _title_id(score: int | None) -> int | None:
    from accounts.selectors import title_for

    if score is None:
        return None
    title = title_for(score)
    return title.pk if title is not None else None


def finish_hand(table: Table, hand: Hand, state: HandState, now: datetime.datetime) -> None:
    """Settle (exactly once, through the ledger), reveal the seed and free the seats."""
    from accounts.services import beans_settle_hand

    players = selectors.hand_players(hand=hand)
    users: list[User | None] = [p.user if not p.is_bot else None for p in players]
    result: dict[str, Any] = {
        "summary": summary(state),
        "landlord": state.landlord,
        "seed": hand.seed,
        "players": [p.user_id for p in players],
    }
    if state.result is not None:
        before = [(u.score if u is not None else None) for u in users]
        titles_before = [_title_id(s) for s in before]
        # a managed table's hand is settled as moving nothing: no beans, no score
        staked = not table.managed
        nothing = [0] * len(users)
        settlement = beans_settle_hand(
            hand_ref=str(hand.pk),
            units=state.result.units if staked else nothing,
            stakes=state.stakes if staked else RoomStakes(),
            seats=users,
            tie_order=tie_order(state),
            scores=_score_moves(state, state.result.units) if staked else nothing,
        )
        after = [
            User.objects.filter(pk=u.pk).values_list("score", flat=True).first()
            if u is not None
            else None
            for u in users
        ]
        result.update(
            {
                "beans": list(settlement.detail.get("deltas", [])),
                "house": settlement.house,
                "units": [str(u) for u in state.result.units],
                "scores": [
                    (a - b) if a is not None and b is not None else 0
                    for a, b in zip(after, before, strict=True)
                ],
                "score_after": after,
                "titles_before": titles_before,
                "titles_after": [_title_id(s) for s in after],
                "multiplier": result["summary"]["multiplier"],
                "spring": state.result.spring,
                "anti_spring": state.result.anti_spring,
            }
        )
    else:
        result["redeal"] = state.phase == PHASE_REDEAL
    hand.status = Hand.Status.FINISHED
    hand.finished_at = now
    hand.deadline_at = None
    hand.result = result
    hand.settled = True
    hand.save(update_fields=["status", "finished_at", "deadline_at", "result", "settled"])
    hooks.hand_finished(hand=hand)  # the club's outcomes and ratings, the events' next step
    seats = selectors.table_seats(table=table)
    regroup = table.managed or (table.room.regroup_between_hands and state.phase != PHASE_REDEAL)
    for seat in seats:
        if seat.sit_out_after_hand or (regroup and not seat.is_empty):
            vacate(seat)
        elif seat.autoplay:
            seat.autoplay = False
            seat.save(update_fields=["autoplay"])
    table.status = Table.Status.WAITING
    Table.objects.filter(pk=table.pk).update(status=table.status)
