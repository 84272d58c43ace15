"""The house bot in the five-seat variants (issue #20): it stops an opponent about to go out,
covers over a partner when the next seat is the danger, reads who is a partner from the public
play before the reveal, and decides the same whoever the hidden partner really is."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from games.engine import bot as bot_module
from games.engine.bot import bot_action
from games.engine.cards import card_rank, parse_cards, ranks_of
from games.engine.combos import classify
from games.engine.dealing import deal
from games.engine.hand import apply, start_hand, waiting_seats
from games.engine.state import PASS, PHASE_PLAY, PLAY, HandState, PlayRecord
from games.engine.variants import find_variant
from games.engine.views import view_for

# seed "x0": fenzhou5's landlord is seat 3, he called A♠ and the other A♠ is seat 0's
SEED = "x0"


def _fenzhou5(
    hands: dict[int, str],
    *,
    before: list[tuple[int, str]] = (),
    top: tuple[int, str],
    turn: int,
    revealed: bool = False,
) -> HandState:
    """A fenzhou5 play state, seats counted from the landlord (0 = landlord, 2 = his called
    partner, 1, 3, 4 farmers): ``hands`` for every seat, the public ``before`` plays (after the
    rest of the deck, played as singles by the landlord), then ``top``, the trick's play, the
    seats from its owner up to ``turn`` having passed."""
    v = find_variant("fenzhou5")
    state = start_hand(v, deal(v, SEED))
    while state.phase != PHASE_PLAY:
        state = apply(state, bot_action(state, waiting_seats(state)[0]))
    lord = state.landlord
    assert (lord, state.partner) == (3, 0)  # relative seat 2 holds the called card

    def seat(rel: int) -> int:
        return (lord + rel) % 5

    def record(rel: int, text: str) -> PlayRecord:
        cards = parse_cards(text)
        combo = classify(v, ranks_of(cards))[0]
        return PlayRecord(seat=seat(rel), cards=cards, combo=combo)

    held = {seat(rel): tuple(sorted(parse_cards(text))) for rel, text in hands.items()}
    shown = [record(rel, text) for rel, text in before]
    last = record(*top)
    rest = Counter({code: 2 for code in range(54)})
    for cards in (*held.values(), *(p.cards for p in shown), last.cards):
        rest.subtract(cards)
    assert not -rest, "a card is used more than twice"
    filler = [
        PlayRecord(seat=lord, cards=(c,), combo=classify(v, [card_rank(c)])[0])
        for c in sorted(rest.elements())
    ]
    passed = [(last.seat + i) % 5 for i in range(1, (seat(turn) - last.seat) % 5)]
    return replace(
        state,
        hands=tuple(held.get(s, ()) for s in range(5)),
        plays=(*filler, *shown, last),
        top=last,
        trick=((last.seat, last.cards), *((s, None) for s in passed)),
        passes=len(passed),
        turn=seat(turn),
        leader=last.seat,
        revealed=revealed,
    )


# hands far from going out (each may sit in two seats: the decks hold two of every card)
MANY = "3c 3h 5c 6c 6d 9c 9h Tc Th Jc Jh"
OTHER = "3d 5h 5s 6s 9d Td Ts Jd Kc Kd Ac"
JOKER = OTHER + " SJ"  # with a card above every 2


class DangerTests:
    def test_a_farmer_stops_the_landlord_on_one_card_with_his_highest_single(self):
        """Holding 5, 9, K and 2 (jokers unseen), the farmer next to the landlord answers the
        landlord's 4 with his 2, not the 5 the landlord's last card may beat."""
        state = _fenzhou5(
            {0: "Qs", 1: "5d 9s Kh 2s", 2: MANY, 3: JOKER, 4: MANY},
            top=(0, "4d"),
            turn=1,
            revealed=True,
        )
        action = bot_action(state, state.turn, think=0)
        assert action.act == PLAY
        assert ranks_of(action.cards) == (15,)

    def test_it_covers_over_a_partner_when_the_next_seat_is_the_danger(self):
        """A farmer's 4 is on the table and the landlord, next after this farmer, holds one
        card: the farmer plays his 2 (no unseen card beats it) over his partner's 4."""
        state = _fenzhou5(
            {0: "Qs", 1: MANY, 2: MANY, 3: "2s 8s", 4: "5d 9s 2h"},
            top=(3, "4s"),
            turn=4,
            revealed=True,
        )
        action = bot_action(state, state.turn, think=0)
        assert action.act == PLAY
        assert ranks_of(action.cards) == (15,)

    def test_it_leaves_a_partners_trick_alone_when_nobody_after_is_close(self):
        """The same trick with the landlord far from going out: the partner's 4 stands."""
        state = _fenzhou5(
            {0: MANY, 1: MANY, 2: OTHER, 3: "2s 8s", 4: "5d 9s 2h"},
            top=(3, "4s"),
            turn=4,
            revealed=True,
        )
        assert bot_action(state, state.turn, think=0).act == PASS


def _leading(state: HandState) -> HandState:
    """The same position with the trick over: the seat to move leads."""
    return replace(state, top=None, trick=(), passes=0, leader=state.turn)


class DangerLeadTests:
    @pytest.mark.parametrize(
        ("landlord", "lead"),
        [("9s Ts Js Qs Ks", (13,)), ("8s 9s Ts Js Qs Ks", (3, 4, 5, 6, 7))],
        ids=["five-cards", "six-cards"],
    )
    def test_a_farmer_does_not_lead_a_play_of_the_landlords_size(self, landlord, lead):
        """The farmer would lead his straight 3-7 before his lone king; with the landlord
        holding exactly five cards (his whole hand may be a straight that beats it) he leads
        the king instead, and the straight again when the landlord holds six."""
        state = _leading(
            _fenzhou5(
                {0: landlord, 1: "3s 4c 5s 6h 7c Kh", 2: MANY, 3: OTHER, 4: MANY},
                top=(0, "4d"),
                turn=1,
                revealed=True,
            )
        )
        action = bot_action(state, state.turn, think=0)
        assert action.act == PLAY
        assert ranks_of(action.cards) == lead


# The landlord leads and three seats beat him in turn; seat 2 never does (he is the partner).
PARTNER_IS_2 = [(0, "3s"), (1, "5s"), (0, "7s"), (3, "9s"), (0, "Js"), (4, "Ks")]
# The same plays with seats 2 and 4 swapped: seat 4 is the one who never beat the landlord.
PARTNER_IS_4 = [(0, "3s"), (1, "5s"), (0, "7s"), (3, "9s"), (0, "Js"), (2, "Ks")]


class TeamBeliefTests:
    @pytest.mark.parametrize(
        ("before", "bombs"),
        [(PARTNER_IS_2, False), (PARTNER_IS_4, True)],
        ids=["partner", "farmer"],
    )
    def test_the_landlord_does_not_bomb_the_seat_the_play_shows_as_his_partner(self, before, bombs):
        """Seat 2 plays his queen with one card left and only the landlord's bomb beats it:
        the landlord bombs it when the play shows seat 2 a farmer, not when it shows him the
        partner (the called card has not shown: the landlord does not know)."""
        state = _fenzhou5(
            {0: "4d 6h 7d 7c 7h 7s", 1: MANY, 2: "8d", 3: MANY, 4: OTHER},
            before=before,
            top=(2, "Qd"),
            turn=0,
        )
        assert not view_for(state, state.turn)["teams"]["complete"]
        action = bot_action(state, state.turn, think=0)
        assert (action.act == PLAY) is bombs
        if bombs:
            assert ranks_of(action.cards) == (7, 7, 7, 7)

    @pytest.mark.parametrize(("before", "stops"), [(PARTNER_IS_2, True), (PARTNER_IS_4, False)])
    def test_a_farmer_stops_the_seat_the_play_shows_as_the_partner(self, before, stops):
        """Seat 2 leads a 4 with one card left; seat 3 (a farmer, who does not know the teams)
        stops him with his 2 when the play shows seat 2 the partner, and leaves alone a seat
        it shows a farmer."""
        state = _fenzhou5(
            {0: MANY, 1: JOKER, 2: "8d", 3: "5d 9s Kh 2s", 4: MANY},
            before=before,
            top=(2, "4d"),
            turn=3,
        )
        assert view_for(state, state.turn)["role"] == "farmer"
        action = bot_action(state, state.turn, think=0)
        if stops:
            assert ranks_of(action.cards) == (15,)
        else:
            assert action.act == PASS


# --------------------------------------------------------------------------- hidden teams
def _other_partner(state: HandState, seat: int, rng: random.Random) -> HandState | None:
    """The same state with the hidden partner's role moved to another seat that ``seat``
    cannot tell apart from him: the marked card swapped for a card of that seat's hand."""
    old = state.partner
    if old is None or state.revealed or seat in (old, state.landlord):
        return None
    choices = [s for s in range(state.seats) if s not in (seat, old, state.landlord)]
    new = rng.choice(choices)
    mark = state.marked_card
    plain = [c for c in state.hands[new] if c != mark]
    if mark not in state.hands[old] or not plain:
        return None
    given = rng.choice(plain)
    hands = list(state.hands)
    old_hand = list(hands[old])
    old_hand.remove(mark)
    new_hand = list(hands[new])
    new_hand.remove(given)
    hands[old] = tuple(sorted([*old_hand, given]))
    hands[new] = tuple(sorted([*new_hand, mark]))
    return replace(state, hands=tuple(hands), partner=new)


class HiddenTeamTests:
    @pytest.mark.parametrize("variant_key", ["new5", "fenzhou5"])
    @pytest.mark.parametrize("n", range(3))
    def test_decisions_do_not_depend_on_who_the_hidden_partner_is(self, variant_key, n):
        """Along bot-played hands, before the reveal: moving the partner's role (and his
        marked card) to another seat leaves a farmer's view and his decision the same."""
        v = find_variant(variant_key)
        rng = random.Random(n)
        state = start_hand(v, deal(v, f"bot-hidden-team-{n}"))
        compared = 0
        while not state.finished:
            seat = waiting_seats(state)[0]
            if state.phase == PHASE_PLAY:
                other = _other_partner(state, seat, rng)
                if other is not None:
                    assert other.partner != state.partner
                    assert view_for(other, seat) == view_for(state, seat)
                    assert bot_action(other, seat, think=0) == bot_action(state, seat, think=0)
                    compared += 1
            state = apply(state, bot_action(state, seat, think=0))
        assert compared

    def test_the_belief_is_read_from_the_plays_not_the_state(self, monkeypatch):
        """Guard against a vacuous test: the bot's belief changes with the public plays
        (seat 2, then seat 4 as the likely partner), so the test above compares a decision
        that does look at the teams."""
        seen = []
        real = bot_module._team_belief

        def spy(*args):
            out = real(*args)
            seen.append(out)
            return out

        states = [
            _fenzhou5(
                {0: "4d 6h 7d 7c 7h 7s", 1: MANY, 2: "8d", 3: MANY, 4: OTHER},
                before=before,
                top=(2, "Qd"),
                turn=0,
            )
            for before in (PARTNER_IS_2, PARTNER_IS_4)
        ]
        monkeypatch.setattr(bot_module, "_team_belief", spy)
        for state in states:
            bot_action(state, state.turn, think=0)
        lord = 3
        assert [allies for allies, _ in seen] == [
            frozenset({(lord + 2) % 5}),
            frozenset({(lord + 4) % 5}),
        ]
