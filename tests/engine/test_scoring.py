"""The end of a hand (games/engine/scoring.py): who gets an odd bean, and what the final state and
its views say once the hand is over. Each test names the wrong rule it catches."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

from games.engine.beans import RoomStakes
from games.engine.dealing import deal
from games.engine.hand import apply, legal_actions, start_hand, waiting_seats
from games.engine.record import ReplayError, replay
from games.engine.scoring import beans_for, tie_order
from games.engine.state import HIDDEN_SOLO, HandState
from games.engine.variants import find_variant
from games.engine.views import public_view, view_for

RECORDS = Path(__file__).parent / "records"


def record_state(name: str) -> HandState:
    return replay(json.loads((RECORDS / f"{name}.json").read_text()))


def finished_records() -> list[str]:
    names = []
    for path in sorted(RECORDS.glob("*_*.json")):
        try:
            state = record_state(path.stem)
        except ReplayError:
            continue  # a record of a refused action (*_rejected, *_illegal)
        if state.finished:
            names.append(path.stem)
    return names


FINISHED = finished_records()


class TestTieOrder:
    """docs/rules.md §7.4a: a tie in a largest-remainder step goes to the seat first in turn
    order *starting at the (main) landlord's seat*."""

    def test_turn_order_starts_at_the_landlord_and_runs_forward(self) -> None:
        # Wrong rules caught: starting at seat 0 whoever is landlord ((0, 1, 2, 3, 4)), or
        # running backwards from him ((2, 1, 0, 4, 3)).
        state = replace(record_state("new5_B1_open_solo"), landlord=2)
        assert tie_order(state) == (2, 3, 4, 0, 1)
        assert tie_order(replace(state, landlord=0)) == (0, 1, 2, 3, 4)

    def test_the_odd_bean_goes_to_the_first_farmer_after_the_landlord(self) -> None:
        # classic3, landlord seat 1 loses 3 beans, the two farmers win 3/2 units each: the odd
        # bean goes to seat 2 (next after the landlord), not seat 0 (first from seat 0, or first
        # going backwards from the landlord). Beans: seat 0 +1, landlord -3, seat 2 +2.
        state = replace(
            record_state("classic3_C1_landlord_wins"),
            landlord=1,
            stakes=RoomStakes(),
            balances=None,
        )
        units = (Fraction(3, 2), Fraction(-3), Fraction(3, 2))
        assert beans_for(state, units) == ((1, -3, 2), 0)

    def test_the_balances_the_hand_was_started_with_bound_the_beans(self) -> None:
        # classic3, landlord seat 0 loses 16 beans but holds 5: he pays 5, which the farmers
        # share 3 + 2 (the odd bean to seat 1, first after him). Wrong rule caught: settling as
        # if every balance were unlimited (-16, 8, 8).
        state = replace(
            record_state("classic3_C1_landlord_wins"), stakes=RoomStakes(), balances=(5, 100, 100)
        )
        units = (Fraction(-16), Fraction(8), Fraction(8))
        assert beans_for(state, units) == ((-5, 3, 2), 0)


class TestFinishedHand:
    def test_a_finished_hand_names_no_turn(self) -> None:
        # Wrong rule caught: the hand's last state keeping the turn of the seat after the last
        # play, so a finished table still shows somebody "to play".
        assert len(FINISHED) >= 10
        for name in FINISHED:
            self.check_no_turn(record_state(name))

    def check_no_turn(self, state: HandState) -> None:
        assert state.turn is None
        assert state.asked == ()  # new5's auto-win ends the hand while its landlord is asked
        assert waiting_seats(state) == ()
        assert public_view(state)["turn"] is None
        assert all(view_for(state, s)["legal"] == [] for s in range(state.seats))

    def test_a_hidden_solo_never_revealed_is_shown_as_a_solo_once_the_hand_is_over(self) -> None:
        # new5 暗独打: the landlord circles a card he holds three of, so to the others he looks
        # like 叫朋友 until he has played its copies. In this hand he never does; once the hand is
        # over the whole record is public and everybody's view says hidden_solo, with no partner.
        # Wrong rule caught: the final state not marked revealed, so the others' final view still
        # shows the disguise (call_friend).
        state, before_last = hidden_solo_hand_never_revealed()
        assert before_last.partner_mode == HIDDEN_SOLO and not before_last.revealed
        assert public_view(before_last)["partner_mode"] == "call_friend"  # the disguise held
        views = [public_view(state)] + [view_for(state, s) for s in range(state.seats)]
        assert [v["partner_mode"] for v in views] == [HIDDEN_SOLO] * len(views)
        assert all(v["solo"] is True and v["partner"] is None for v in views)


def hidden_solo_hand_never_revealed() -> tuple[HandState, HandState]:
    """A new5 hand (a fixed seed and a fixed line of random play, found by search) where the
    landlord chooses 暗独打 and the hand ends before he has played the circled card's copies:
    (the final state, the state before the last action)."""
    variant = find_variant("new5")
    rng = random.Random(158)
    state = start_hand(variant, deal(variant, "hidden-solo-158"), None)
    before = state
    while not state.finished:
        actions = legal_actions(state, min(waiting_seats(state)))
        solo = [a for a in actions if a.act == "partner" and a.value == HIDDEN_SOLO]
        before, state = state, apply(state, solo[0] if solo else rng.choice(actions))
    return state, before
