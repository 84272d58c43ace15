"""The bot's endgame search (games/engine/search.py) and the endgame play it serves: sampled
worlds keep what the seat knows and nothing else, the search finds the move that wins, and a
farmer stops a landlord who is about to go out."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from games.engine.bot import bot_action
from games.engine.cards import card_rank, cards_for_ranks, parse_cards, ranks_of
from games.engine.combos import classify
from games.engine.dealing import deal
from games.engine.hand import apply, start_hand, waiting_seats
from games.engine.moves import legal_plays
from games.engine.search import Rollout, determinise, pimc
from games.engine.state import FARMER_SIDE, PASS, PHASE_PLAY, PLAY, Action, HandState, PlayRecord
from games.engine.variants import find_variant
from games.engine.views import view_for


def _endgame(
    hands: tuple[str, str, str], turn: int, top: tuple[int, str] | None = None
) -> HandState:
    """A classic3 play state where the landlord holds ``hands[0]``, the next seat ``hands[1]``
    and the third ``hands[2]`` (cards as in the notation), ``turn`` (0..2, from the landlord)
    is to act, on ``top`` (who played what, seat from the landlord) or leading. Every other
    card of the deck has been played as singles by the landlord."""
    v = find_variant("classic3")
    state = start_hand(v, deal(v, "search-endgame"))
    while state.phase != PHASE_PLAY:
        state = apply(state, bot_action(state, waiting_seats(state)[0]))
    lord = state.landlord
    seat_of = [(lord + i) % 3 for i in range(3)]
    held = [tuple(sorted(parse_cards(h))) for h in hands]
    top_cards = parse_cards(top[1]) if top else ()
    rest = Counter(range(54))
    for cards in (*held, top_cards):
        rest.subtract(cards)
    assert not -rest, "a card is used twice"
    plays = [
        PlayRecord(seat=lord, cards=(c,), combo=classify(v, [card_rank(c)])[0])
        for c in sorted(rest.elements())
    ]
    record = None
    if top:
        record = PlayRecord(
            seat=seat_of[top[0]], cards=top_cards, combo=classify(v, ranks_of(top_cards))[0]
        )
        plays.append(record)
    new_hands = [()] * 3
    for i, cards in enumerate(held):
        new_hands[seat_of[i]] = cards
    return replace(
        state,
        hands=tuple(new_hands),
        plays=tuple(plays),
        top=record,
        trick=((record.seat, record.cards),) if record else (),
        passes=0,
        turn=seat_of[turn],
        leader=record.seat if record else seat_of[turn],
    )


def _lowest(world: Rollout, seat: int) -> Action:
    """A rollout policy: the weakest legal play, else a pass."""
    hand = world.hands[seat]
    plays = legal_plays(world.variant, ranks_of(hand), world.top)
    if not plays:
        return Action(seat, PASS)
    return Action(seat, PLAY, plays[0].kind, cards_for_ranks(hand, plays[0].ranks))


def _ranks_played(action: Action) -> list[int]:
    return sorted(ranks_of(action.cards or ()))


class DeterminiseTests:
    def test_a_world_keeps_the_seat_its_hand_and_everyone_their_counts(self):
        state = _endgame(("3d 4d 9s", "5d 6d", "7d 8d Th"), turn=1)
        seat = state.turn
        world = determinise(state, seat, view_for(state, seat), random.Random(1))
        assert world is not None
        assert world.hands[seat] == state.hands[seat]
        assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
        others = Counter(c for s in range(3) if s != seat for c in world.hands[s])
        assert others == Counter(c for s in range(3) if s != seat for c in state.hands[s])

    def test_worlds_differ_and_do_not_depend_on_the_real_hidden_hands(self):
        state = _endgame(("3d 4d 9s", "5d 6d", "7d 8d Th"), turn=1)
        seat = state.turn
        swapped = _endgame(("7d 8d Th", "5d 6d", "3d 4d 9s"), turn=1)
        worlds = set()
        for i in range(8):
            a = determinise(state, seat, view_for(state, seat), random.Random(i))
            b = determinise(swapped, seat, view_for(swapped, seat), random.Random(i))
            assert a is not None and b is not None
            assert a.hands == b.hands
            worlds.add(a.hands)
        assert len(worlds) > 1

    def test_the_landlord_keeps_the_public_bottom_he_has_not_played(self):
        v = find_variant("classic3")
        state = start_hand(v, deal(v, "search-endgame"))
        while state.phase != PHASE_PLAY:
            state = apply(state, bot_action(state, waiting_seats(state)[0]))
        seat = (state.landlord + 1) % 3
        bottom = parse_cards(view_for(state, seat)["bottom"])
        for i in range(5):
            world = determinise(state, seat, view_for(state, seat), random.Random(i))
            assert world is not None
            assert not Counter(bottom) - Counter(world.hands[state.landlord])


def _pair_or_single() -> tuple[HandState, Action, Action]:
    """The landlord to lead with 33+BJ against two farmers on one card each, and his two
    leads: the pair (then the joker) wins, a single 3 lets a farmer out."""
    state = _endgame(("3d 3c BJ", "5d", "2s"), turn=0)
    seat = state.turn
    single = Action(seat, PLAY, "single", parse_cards("3d"))
    pair = Action(seat, PLAY, "pair", parse_cards("3d 3c"))
    return state, single, pair


def _pimc(state: HandState, candidates: list[Action], **options: float) -> Action:
    """``pimc`` for the seat to act, every seat playing its weakest play, 8 deals in a minute
    (``options`` replace them) drawn from the same generator."""
    seat = state.turn
    budget = {"samples": 8, "seconds": 60.0, **options}
    return pimc(
        state, seat, view_for(state, seat), candidates, _lowest, rng=random.Random(0), **budget
    )


class PimcTests:
    def test_it_finds_the_lead_that_wins_when_the_first_choice_loses(self):
        state, single, pair = _pair_or_single()
        assert _pimc(state, [single, pair]) == pair
        assert _pimc(state, [pair, single]) == pair

    def test_a_margin_keeps_the_callers_choice_unless_the_gain_clears_it(self):
        """The pair wins every deal and the single none: a gain of all the deals clears a
        margin of half of them, and never one of all of them."""
        state, single, pair = _pair_or_single()
        assert _pimc(state, [single, pair], margin=0.5) == pair
        assert _pimc(state, [single, pair], margin=1.0) == single

    def test_without_time_it_keeps_the_callers_choice(self):
        state, single, pair = _pair_or_single()
        assert _pimc(state, [single, pair], seconds=0.0) == single


class EndgamePlayTests:
    def test_a_farmer_stops_a_landlord_on_one_card_with_his_highest(self):
        """Issue #20, item 1: holding 6, 2 and BJ, the farmer answers the landlord's 5 (one card
        left) with a card nothing unseen beats, not with the 6 (which the landlord's 9 beats)."""
        state = _endgame(("9s", "6d 2s BJ", "Td Jd Qd Kd"), turn=1, top=(0, "5d"))
        action = bot_action(state, state.turn)
        assert action.act != PASS
        assert _ranks_played(action) in ([15], [17])

    def test_the_farmers_then_win_the_hand(self):
        """From there the farmers win (2, BJ, 6): the bot plays every seat."""
        state = _endgame(("9s", "6d 2s BJ", "Td Jd Qd Kd"), turn=1, top=(0, "5d"))
        while not state.finished:
            state = apply(state, bot_action(state, state.turn))
        assert state.winner_side == FARMER_SIDE


class ThinkTests:
    def test_no_thinking_time_plays_without_searching(self, monkeypatch):
        """The server's request path asks for ``think=0``: the search must not run there."""
        from games.engine import bot as bot_module

        def refuse(*args, **kwargs):
            raise AssertionError("searched")

        state = _endgame(("9s", "6d 2s BJ", "Td Jd Qd Kd"), turn=1, top=(0, "5d"))
        monkeypatch.setattr(bot_module, "STRICT", True)
        monkeypatch.setattr(bot_module, "pimc", refuse)
        assert bot_action(state, state.turn, think=0.0).act == PLAY
        with pytest.raises(AssertionError, match="searched"):
            bot_action(state, state.turn)
