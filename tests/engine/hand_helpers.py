"""Shared helpers for the hand tests: random legal games and the view leak checker."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from games.engine.beans import RoomStakes
from games.engine.cards import format_cards, parse_cards
from games.engine.dealing import deal
from games.engine.hand import (
    apply,
    autoplay_action,
    default_action,
    legal_actions,
    start_hand,
    waiting_seats,
)
from games.engine.state import Action, HandState
from games.engine.variants import find_variant
from games.engine.views import public_view, view_for

VARIANT_KEYS = ("qq5", "new5", "classic3", "fenzhou5")


def random_step(state: HandState, rng: random.Random) -> Action:
    """One random decision of a random waiting seat: a legal action, a timeout, 托管 or a
    托管 toggle."""
    seat = rng.choice(waiting_seats(state))
    x = rng.random()
    if x < 0.05:
        return Action(seat, "autoplay", rng.random() < 0.5)
    if x < 0.15:
        return Action(seat, "timeout")
    if x < 0.3:
        return autoplay_action(state, seat)
    if x < 0.35:
        return default_action(state, seat)
    return rng.choice(legal_actions(state, seat))


def play_random_hand(
    variant_key: str,
    seed: str,
    rng: random.Random,
    *,
    stakes: RoomStakes | None = None,
    balances: list[int | None] | None = None,
    options: dict[str, Any] | None = None,
    each_state: Any = None,
) -> HandState:
    variant = find_variant(variant_key, **(options or {}))
    landlord = rng.randrange(variant.seats) if variant.bottom_size == 0 else None
    state = start_hand(
        variant, deal(variant, seed, landlord_seat=landlord), stakes, balances=balances
    )
    if each_state:
        each_state(state)
    steps = 0
    while not state.finished:
        state = apply(state, random_step(state, rng))
        steps += 1
        assert steps < 2000
        if each_state:
            each_state(state)
    return state


def all_cards(state: HandState) -> Counter[int]:
    c: Counter[int] = Counter()
    for hand in state.hands:
        c.update(hand)
    c.update(state.bottom)
    for p in state.plays:
        c.update(p.cards)
    return c


# ----------------------------------------------------------------------------- leak checking
# The only places a view may carry card identities (docs/rules.md §2.6, games/engine/views.py).
_CARD_PATHS = {
    ("hand",),
    ("partner_hand",),
    ("shown_hand",),
    ("bottom",),
    ("face_up", "card"),
    ("marked_card",),
    ("grabs", "*", "card"),
    ("plays", "*", "cards"),
    ("plays", "*", "ranks"),
    ("trick", "*", "cards"),
    ("top", "cards"),
    ("top", "ranks"),
    ("choices", "*", "value"),
    ("final_hands", "*"),
}


def _card_strings(obj: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], str]]:
    out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _card_strings(v, (*path, str(k)))
    elif isinstance(obj, list):
        for v in obj:
            out += _card_strings(v, (*path, "*"))
    elif isinstance(obj, str):
        try:
            codes = parse_cards(obj)
        except ValueError:
            return out
        if codes:
            out.append((path, obj))
    return out


def _knows(state: HandState, seat: int | None) -> bool:
    if state.revealed or state.finished:
        return True
    if seat is None:
        return False
    if seat == state.partner and state.marked_card is not None:
        return True
    return seat == state.landlord and state.solo and state.marked_card is not None


def check_view(state: HandState, view: dict[str, Any], seat: int | None) -> None:
    """Assert ``view`` holds no card or role ``seat`` (None: the public) may not know."""
    for path, text in _card_strings(view):
        assert path in _CARD_PATHS, f"card identities under {path}: {text!r}"
    played = [format_cards(p.cards) for p in state.plays]
    assert [p["cards"] for p in view.get("plays", [])] == played
    if seat is None:
        assert "hand" not in view and "partner_hand" not in view and "choices" not in view
    else:
        assert view["hand"] == format_cards(state.hands[seat])
        for choice in view["choices"]:
            if choice["act"] in ("grab", "call") and choice["value"] is not None:
                assert parse_cards(choice["value"])[0] in state.hands[seat]
    if "partner_hand" in view:
        assert seat is not None and state.revealed and state.partner is not None
        assert seat in state.landlord_side() and state.variant.key == "qq5"
        other = state.partner if seat == state.landlord else state.landlord
        assert view["partner_hand"] == format_cards(state.hands[other])
    # 明牌: the landlord's cards are public from the action that showed them, while he holds them
    showed = any(a.act == "show" and a.value is True for a in state.history)
    assert ("shown_hand" in view) == (showed and not state.finished)
    if "shown_hand" in view:
        assert view["shown_hand"] == format_cards(state.hands[state.landlord])
    if "bottom" in view:
        assert state.bottom_public or (seat == state.landlord and not state.bottom)
        assert view["bottom"] == format_cards(state.deal.bottom)
    if "final_hands" in view:  # the whole record, once the hand is over
        assert state.finished
        assert view["final_hands"] == [format_cards(hand) for hand in state.hands]
    if "marked_card" in view:
        assert state.marked_card is not None
        assert parse_cards(view["marked_card"]) == (state.marked_card,)
    # roles
    knows = _knows(state, seat)
    if view.get("partner") is not None:
        assert knows and view["partner"] == state.partner
    if view.get("solo") is not None:
        assert knows
    if view["teams"]["complete"] and state.variant.key != "classic3":
        assert knows
    if view.get("partner_mode") == "hidden_solo":
        assert (knows and seat in (None, state.landlord)) or state.revealed or state.finished
    if seat is not None and view.get("role") == "partner":
        assert seat == state.partner
    if state.phase == "reveal" and seat != state.partner:
        assert state.partner is None or state.partner not in view["waiting"]
    if state.phase == "grab":
        assert set(view["waiting"]) <= {seat}


def check_all_views(state: HandState) -> None:
    check_view(state, public_view(state), None)
    for seat in range(state.seats):
        check_view(state, view_for(state, seat), seat)
