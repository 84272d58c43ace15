"""The hand state machine: typed refusals, trick flow, timeouts, 托管, reveals and views."""

from __future__ import annotations

import json
from dataclasses import FrozenInstanceError, replace
from pathlib import Path

import pytest

from games.engine.cards import format_cards, parse_cards
from games.engine.errors import (
    CardsNotHeld,
    DoesNotBeat,
    IllegalAction,
    InvalidChoice,
    MustPlay,
    NotACombination,
    NotYourTurn,
    UnknownAct,
    WrongPhase,
)
from games.engine.hand import (
    apply,
    autoplay_action,
    default_action,
    legal_actions,
    timeout_seconds,
    waiting_seats,
)
from games.engine.record import hand_record, replay
from games.engine.state import Action
from games.engine.views import public_view, view_for

RECORDS = Path(__file__).parent / "records"


def load(name: str, upto: int | None = None):
    record = json.loads((RECORDS / f"{name}.json").read_text())
    if upto is not None:
        record["actions"] = record["actions"][:upto]
    return replay(record)


def act(seat: int, kind: str, value=None, cards: str | None = None) -> Action:
    return Action(seat, kind, value, None if cards is None else parse_cards(cards))


class TestTypedRefusals:
    def test_play_phase(self) -> None:
        s = load("classic3_C3_one_bomb", 3)  # landlord 0 to lead, 20 cards
        assert s.phase == "play" and s.turn == 0
        with pytest.raises(NotYourTurn):
            apply(s, act(1, "play", cards="3d"))
        with pytest.raises(CardsNotHeld):
            apply(s, act(0, "play", cards="3d"))
        with pytest.raises(NotACombination):
            apply(s, act(0, "play", cards="3s 5d"))
        with pytest.raises(MustPlay):
            apply(s, act(0, "pass"))
        with pytest.raises(WrongPhase):
            apply(s, act(0, "bid", 3))
        s = apply(s, act(0, "play", cards="5d"))
        with pytest.raises(DoesNotBeat):
            apply(s, act(1, "play", cards="3d"))
        for cls in (NotYourTurn, CardsNotHeld, NotACombination, MustPlay, DoesNotBeat):
            assert issubclass(cls, IllegalAction) and issubclass(cls, ValueError)

    def test_decision_phases(self) -> None:
        s = load("classic3_C3_one_bomb", 0)
        assert s.phase == "bid" and waiting_seats(s) == (0,)
        with pytest.raises(NotYourTurn):
            apply(s, act(1, "bid", 1))
        with pytest.raises(InvalidChoice):
            apply(s, act(0, "bid", 4))
        with pytest.raises(WrongPhase):
            apply(s, act(0, "play", cards="3s"))
        s = apply(s, act(0, "bid", 2))
        with pytest.raises(InvalidChoice):
            apply(s, act(1, "bid", 2))  # must exceed 2
        with pytest.raises(UnknownAct):
            Action.from_json({"seat": 0, "act": "shout"})

    def test_finished_hand_refuses_everything(self) -> None:
        s = load("classic3_C3_one_bomb")
        assert s.finished
        with pytest.raises(WrongPhase):
            apply(s, act(1, "pass"))
        assert legal_actions(s, 1) == [] and waiting_seats(s) == ()

    def test_state_is_immutable(self) -> None:
        s = load("classic3_C3_one_bomb", 3)
        with pytest.raises(FrozenInstanceError):
            s.turn = 1  # type: ignore[misc]
        before = hand_record(s)
        apply(s, act(0, "play", cards="3s"))
        assert hand_record(s) == before


class TestTrickFlow:
    def test_trick_ends_after_n_minus_one_passes(self) -> None:
        s = load("classic3_C3_one_bomb", 3)
        s = apply(s, act(0, "play", cards="3s"))
        assert s.turn == 1 and s.top is not None
        s = apply(s, act(1, "play", cards="4d"))
        s = apply(s, act(2, "pass"))
        assert s.turn == 0  # a pass does not end the trick for the others
        s = apply(s, act(0, "pass"))
        # the top-play owner (1) leads the next trick
        assert s.top is None and s.turn == 1 and s.leader == 1
        assert Action(1, "pass") not in legal_actions(s, 1)

    def test_passing_does_not_bar_a_later_play(self) -> None:
        s = load("classic3_C3_one_bomb", 3)
        s = apply(s, act(0, "play", cards="3s"))
        s = apply(s, act(1, "pass"))
        s = apply(s, act(2, "play", cards="4c"))
        s = apply(s, act(0, "pass"))
        s = apply(s, act(1, "play", cards="6d"))  # seat 1 passed earlier in this trick
        assert s.top.seat == 1


class TestTimeoutsAndAutoplay:
    def test_defaults_per_phase(self) -> None:
        assert default_action(load("classic3_C3_one_bomb", 0), 0) == Action(0, "bid", 0)
        assert default_action(load("classic3_C3_one_bomb", 1), 1) == Action(1, "double", False)
        qq5 = load("qq5_A1_two_landlords_win", 0)
        assert default_action(qq5, 3) == Action(3, "reveal", False)
        s = load("new5_S2_call_and_hidden_offered")
        assert default_action(s, 0) == Action(0, "partner", "call_friend")
        s = load("new5_S3_only_solo_choices")
        assert default_action(s, 0) == Action(0, "partner", "open_solo")
        grab = load("new5_B1_call_friend_scheme_a", 0)
        assert default_action(grab, 1) == Action(1, "grab", None)
        fz = load("fenzhou5_D1_landlord_side_wins", 0)
        call = default_action(fz, 0)
        assert call.act == "call" and fz.hands[0].count(call.value) == 1

    def test_timeout_is_recorded_and_applies_the_default(self) -> None:
        s = load("classic3_C3_one_bomb", 0)
        t = apply(s, Action(0, "timeout"))
        assert t.bids[0] == 0 and t.turn == 1
        assert hand_record(t)["actions"] == [{"seat": 0, "act": "timeout"}]
        assert replay(hand_record(t)) == t
        with pytest.raises(NotYourTurn):
            apply(s, Action(2, "timeout"))

    def test_timeout_seconds(self) -> None:
        assert timeout_seconds(load("classic3_C3_one_bomb", 0)) == 15
        assert timeout_seconds(load("classic3_C3_one_bomb", 3), turn_seconds=20) == 20
        assert timeout_seconds(load("new5_B1_call_friend_scheme_a", 0)) == 10
        assert timeout_seconds(load("new5_S2_call_and_hidden_offered")) == 10
        assert timeout_seconds(load("qq5_A1_two_landlords_win", 0), bid_seconds=12) == 12
        assert timeout_seconds(load("classic3_C3_one_bomb")) is None

    def test_autoplay_leads_lowest_single(self) -> None:
        s = load("classic3_C3_one_bomb", 3)
        a = autoplay_action(s, 0)
        assert a.act == "play" and a.cards == (min(s.hands[0]),)

    def test_autoplay_follows_weakest_same_type_never_bombs(self) -> None:
        s = load("classic3_C3_one_bomb", 3)
        s = apply(s, act(0, "play", cards="6h 6s"))
        a = autoplay_action(s, 1)
        assert a.act == "play" and format_cards(a.cards) == "Qd Qc"  # weakest pair above 66
        s = apply(s, act(1, "pass"))
        s = apply(s, act(2, "pass"))
        s = apply(s, act(0, "play", cards="5d 5c 5h 5s"))
        # a bomb on top: 托管 passes, even holding SJ BJ
        assert autoplay_action(s, 1) == Action(1, "pass")

    def test_autoplay_flag(self) -> None:
        s = load("classic3_C3_one_bomb", 3)
        t = apply(s, Action(2, "autoplay", True))
        assert t.autoplay == (False, False, True) and t.turn == s.turn
        assert view_for(t, 2)["autoplay_on"] is True
        assert public_view(t)["autoplay"] == [False, False, True]
        with pytest.raises(InvalidChoice):
            apply(s, Action(2, "autoplay", "yes"))


class TestHiddenRoles:
    def test_qq5_solo_shows_on_second_copy(self) -> None:
        s = load("qq5_A2_single_landlord_loses", 6)
        assert s.phase == "play" and s.solo and not s.revealed
        assert view_for(s, 0)["solo"] is True  # he knows
        assert public_view(s)["solo"] is None and view_for(s, 1)["solo"] is None

    def test_new5_hidden_solo_looks_like_a_call(self) -> None:
        record = json.loads((RECORDS / "new5_S2_call_and_hidden_offered.json").read_text())
        record["actions"].append({"seat": 0, "act": "partner", "value": "hidden_solo"})
        s = replay(record)
        assert public_view(s)["marked_card"] == "8h"
        assert public_view(s)["partner_mode"] == "call_friend"
        assert view_for(s, 0)["partner_mode"] == "hidden_solo"
        # the landlord plays a ♥8 (the circled copy): everyone is told he is alone
        s = apply(s, act(0, "play", cards="8h"))
        assert s.revealed and public_view(s)["solo"] is True
        assert public_view(s)["partner_mode"] == "hidden_solo"

    def test_new5_partner_knows_himself(self) -> None:
        s = load("new5_B1_call_friend_scheme_a", 7)
        assert s.phase == "play" and s.partner == 3
        assert view_for(s, 3)["role"] == "partner" and view_for(s, 3)["partner"] == 3
        assert view_for(s, 1)["partner"] is None and view_for(s, 1)["marked_card"] == "6s"
        assert public_view(s)["teams"] == {"landlord": [1], "farmer": [], "complete": False}

    def test_fenzhou5_solo_call_is_not_told(self) -> None:
        s = load("fenzhou5_D2_solo_landlord_loses", 3)
        assert public_view(s)["marked_card"] == "8d" and public_view(s)["solo"] is None
        assert view_for(s, 0)["solo"] is True

    @pytest.mark.parametrize(
        "name",
        ["fenzhou5_D2_solo_landlord_loses", "qq5_S2_both_reveal_once", "classic3_C1_landlord_wins"],
    )
    def test_every_variant_reports_two_and_one(self, name: str) -> None:
        s = load(name, 3)
        assert public_view(s)["reports"] == {}
        hands = list(s.hands)
        hands[2], hands[1] = hands[2][:2], hands[1][:1]
        short = replace(s, hands=tuple(hands))
        assert public_view(short)["reports"] == {"1": 1, "2": 2}
        assert view_for(short, 0)["reports"] == {"1": 1, "2": 2}
