"""The table aids of the views: the 记牌器 (``unseen``), 报牌 and classic3's 明牌 (docs/rules.md
§2.6, §5.4). Hands of every variant are driven by seeded decisions and 托管 moves; at every
version the counter of every seat is recounted from the hand's true cards and must never move
when the cards the seat has not seen change places."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from games.engine.cards import card_rank, parse_cards
from games.engine.dealing import deal
from games.engine.errors import InvalidChoice, WrongPhase
from games.engine.hand import (
    apply,
    autoplay_action,
    legal_actions,
    start_hand,
    waiting_seats,
)
from games.engine.state import Action, HandState
from games.engine.variants import find_variant
from games.engine.views import COUNTER_RANKS, public_view, view_for

CASES = [
    ("qq5", {}),
    ("new5", {}),
    ("classic3", {}),
    ("classic3", {"classic3_show_cards": True}),
    ("fenzhou5", {}),
]


def _start(key: str, seed: str, **options) -> HandState:
    v = find_variant(key, **options)
    return start_hand(v, deal(v, seed, landlord_seat=0 if v.bottom_size == 0 else None))


def _states(key: str, seed: str, **options) -> list[HandState]:
    """Every state of one hand: seeded choices before play (a bid of 3 so that classic3 hands
    are played), 托管 moves after."""
    rng = random.Random(seed)
    state = _start(key, seed, **options)
    out = [state]
    while not state.finished:
        seat = waiting_seats(state)[0]
        if state.phase == "play":
            action = autoplay_action(state, seat)
        else:
            choices = legal_actions(state, seat)
            bids = [a for a in choices if a.act == "bid" and a.value == 3]
            action = bids[0] if bids else rng.choice(choices)
        state = apply(state, action)
        out.append(state)
        assert len(out) < 2000
    return out


def _shown_of(state: HandState, seat: int) -> dict[int, Counter[int]]:
    """The cards the rules have shown ``seat`` in another seat's hand, as that seat's
    view tells them, written out here from docs/rules.md §2.6 (independently of views.py)."""
    out: dict[int, Counter[int]] = {}
    # the grabs of an open step he sees are his own (the others' show at its close)
    grabs = [(g["seat"], parse_cards(g["card"])[0]) for g in view_for(state, seat).get("grabs", [])]
    if state.bottom_public and state.landlord is not None:
        out.setdefault(state.landlord, Counter()).update(state.deal.bottom)
    if state.deal.face_up is not None:
        out.setdefault(state.deal.face_up_seat, Counter())[state.deal.face_up] += 1
    for s, code in grabs:
        group = out.setdefault(s, Counter())
        group[code] = 2 if group[code] == 0 else 3
    played = {s: Counter() for s in range(state.seats)}
    for p in state.plays:
        played[p.seat].update(p.cards)
    return {s: cards - played[s] for s, cards in out.items() if s != seat}


def _recount(state: HandState, seat: int) -> list[int]:
    """The copies per rank ``seat`` has not seen, from the true cards: what the other seats
    hold and the bottom nobody took yet, less what the rules have shown him of them."""
    if state.finished:
        return [0] * len(COUNTER_RANKS)
    view = view_for(state, seat)
    elsewhere = Counter(state.bottom)
    for s in range(state.seats):
        if s != seat:
            elsewhere.update(state.hands[s])
    whole = set()  # seats whose whole hand he sees: the qq5 partner, a 明牌 landlord
    if "partner_hand" in view:
        whole |= {s for s in state.landlord_side() if s != seat}
    if state.shown and state.landlord != seat:
        whole.add(state.landlord)
    for s in whole:
        elsewhere -= Counter(state.hands[s])
    for s, cards in _shown_of(state, seat).items():
        if s not in whole:
            elsewhere -= cards
    ranks = Counter(card_rank(c) for c in elsewhere.elements())
    return [ranks[r] for r in COUNTER_RANKS]


def _hidden_shuffled(state: HandState, seat: int, rng: random.Random) -> HandState:
    """``state`` with the cards ``seat`` has not seen dealt again among the seats that hold
    them (each keeps its count), the cards shown to him left where they are."""
    view = view_for(state, seat)
    whole = set()
    if "partner_hand" in view or "shown_hand" in view:
        whole = set(view["teams"]["landlord"]) if "partner_hand" in view else {state.landlord}
    shown = _shown_of(state, seat)
    kept: dict[int, list[int]] = {}
    pool: list[int] = []
    for s in range(state.seats):
        if s == seat or s in whole:
            continue
        keep = Counter(state.hands[s]) & shown.get(s, Counter())
        kept[s] = list(keep.elements())
        pool += list((Counter(state.hands[s]) - keep).elements())
    rng.shuffle(pool)
    hands = list(state.hands)
    for s, cards in kept.items():
        take = len(state.hands[s]) - len(cards)
        hands[s], pool = tuple(sorted(cards + pool[:take])), pool[take:]
    return replace(state, hands=tuple(hands))


@pytest.mark.parametrize(("key", "options"), CASES)
@pytest.mark.parametrize("seed", ["aids-1", "aids-2"])
def test_the_counter_is_the_recount_and_reads_no_hidden_card(key, options, seed) -> None:
    rng = random.Random(seed)
    states = _states(key, seed, **options)
    for state in states:
        assert "unseen" not in public_view(state)
        for seat in range(state.seats):
            unseen = view_for(state, seat)["unseen"]
            assert unseen == _recount(state, seat), (state.phase, len(state.history), seat)
            assert min(unseen) >= 0
    shuffled = 0
    for state in states[:: max(1, len(states) // 12)]:
        for seat in range(state.seats):
            moved = _hidden_shuffled(state, seat, rng)
            shuffled += moved.hands != state.hands
            assert view_for(moved, seat)["unseen"] == view_for(state, seat)["unseen"]
    assert shuffled > 10


def test_the_counter_starts_from_the_decks_less_the_own_hand() -> None:
    state = _start("fenzhou5", "aids-3")  # no face-up card, no bottom
    view = view_for(state, 2)
    own = Counter(card_rank(c) for c in state.hands[2])
    # two decks: 8 of each rank, 2 of each joker
    assert view["unseen"] == [(8 if r < 16 else 2) - own[r] for r in COUNTER_RANKS]


def test_a_room_may_turn_the_counter_off() -> None:
    state = _start("new5", "aids-4", card_counter=False)
    assert all("unseen" not in view_for(state, s) for s in range(5))


def _at_show(seed: str = "aids-5") -> HandState:
    for state in _states("classic3", seed, classic3_show_cards=True):
        if state.phase == "show":
            return state
    raise AssertionError("no 明牌 step")


class ShowCardsTests:
    def test_off_by_default_the_bottom_starts_play(self) -> None:
        phases = {s.phase for s in _states("classic3", "aids-5")}
        assert "show" not in phases and "play" in phases

    def test_the_landlord_alone_decides_after_taking_the_bottom(self) -> None:
        state = _at_show()
        landlord = state.landlord
        assert waiting_seats(state) == (landlord,) and len(state.hands[landlord]) == 20
        assert {a.value for a in legal_actions(state, landlord)} == {True, False}
        other = (landlord + 1) % 3
        assert legal_actions(state, other) == []
        with pytest.raises(InvalidChoice):
            apply(state, Action(landlord, "show", 1))
        with pytest.raises(WrongPhase):
            apply(state, Action(landlord, "double", True))

    def test_his_cards_are_public_from_the_show_on_and_double(self) -> None:
        state = _at_show()
        landlord = state.landlord
        assert all("shown_hand" not in view_for(state, s) for s in range(3))
        assert "shown_hand" not in public_view(state)
        before = public_view(state)["multiplier"]
        shown = apply(state, Action(landlord, "show", True))
        assert shown.phase == "play" and shown.turn == landlord
        hand = view_for(shown, landlord)["hand"]
        for view in [public_view(shown), *(view_for(shown, s) for s in range(3))]:
            assert view["shown_hand"] == hand
        assert public_view(shown)["multiplier"] == 2 * before
        kept = apply(state, Action(landlord, "show", False))
        assert "shown_hand" not in public_view(kept)
        assert public_view(kept)["multiplier"] == before

    def test_a_timeout_does_not_show(self) -> None:
        state = _at_show()
        after = apply(state, Action(state.landlord, "timeout"))
        assert after.phase == "play" and not after.shown


@pytest.mark.parametrize("key", ["qq5", "new5", "classic3", "fenzhou5"])
def test_every_variant_reports_hands_of_two_and_one(key) -> None:
    seen: set[int] = set()
    for state in _states(key, "aids-6"):
        reports = public_view(state)["reports"]
        counts = [len(h) for h in state.hands]
        assert reports == {str(s): n for s, n in enumerate(counts) if 0 < n <= 2}
        seen |= set(reports.values())
    assert seen, "no hand went down to two cards or fewer"
