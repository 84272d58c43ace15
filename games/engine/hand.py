"""The life of one hand: the public API the web app and bots call (docs/rules.md §2–§8).

    d = deal(variant, seed)                      # dealing.py (fenzhou5: landlord_seat=...)
    state = start_hand(variant, d, stakes)       # first decision state
    waiting_seats(state) -> (seat, ...)          # whose decision the hand waits for
    legal_actions(state, seat) -> [Action, ...]  # every legal action (plays one per rank multiset)
    state = apply(state, action)                 # new state, or an IllegalAction subclass
    default_action(state, seat)                  # what a timeout does (§2.5)
    autoplay_action(state, seat)                 # the deterministic 托管 move
    timeout_seconds(state)                       # the current decision window
    summary(state) -> dict                       # what ``replay`` prints

Actions (``Action.from_json`` / ``to_json``, docs/rules.md §8.4), by phase:

    bid      classic3   {"seat": s, "act": "bid", "value": 0|1|2|3}          sequential
    double   classic3   {"seat": s, "act": "double", "value": true|false}     sequential
    show     classic3   {"seat": s, "act": "show", "value": true|false}       the landlord's 明牌
    reveal   qq5        {"seat": s, "act": "reveal", "value": true|false}     simultaneous
    double   qq5        {"seat": s, "act": "double", "value": true|false}     simultaneous
    grab     new5       {"seat": s, "act": "grab", "value": "9h"|"BJ"|null}   simultaneous
    partner  new5       {"seat": s, "act": "partner", "value": "open_solo"|"hidden_solo"|
                                                               "call_friend"}
    call     fenzhou5   {"seat": s, "act": "call", "value": "9h"}
    play     all        {"seat": s, "act": "play", "cards": "3s 3h"}  (+ "value": a declared
                                                    combo kind, optional, for a lead)
                        {"seat": s, "act": "pass"}
    any                 {"seat": s, "act": "timeout"}   (that seat's pending decision's default)
    any                 {"seat": s, "act": "autoplay", "value": true|false}   (托管 flag only)
    sealed step         {"seat": s, "act": "close"}     (the server's; ``s`` is the 明牌 holder)

A simultaneous step ends when everybody asked has decided; a hand started with
``sealed_steps=True`` waits for a ``close`` action instead (``step_closable`` says when one is
accepted), so that the step's public end does not come sooner for fewer seats asked.

Variant rules come from the variant's Flow (flows.py); nothing here branches on a variant key.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from games.engine.beans import RoomStakes
from games.engine.cards import cards_for_ranks, format_ranks, lowest_suits, ranks_of
from games.engine.combos import classify, reading_to_follow, reading_to_lead
from games.engine.dealing import Deal, check_deal
from games.engine.errors import (
    DoesNotBeat,
    EngineError,
    InvalidChoice,
    MustPlay,
    NotACombination,
    NotYourTurn,
    WrongPhase,
)
from games.engine.flows import flow_for
from games.engine.moves import legal_plays
from games.engine.scoring import finish
from games.engine.state import (
    AUTOPLAY,
    CLOSE,
    FARMER_SIDE,
    LANDLORD_SIDE,
    PASS,
    PHASE_PLAY,
    PLAY,
    TIMEOUT,
    Action,
    HandState,
    PlayRecord,
    remove_cards,
)
from games.engine.variants import Variant

__all__ = [
    "Action",
    "HandState",
    "apply",
    "autoplay_action",
    "default_action",
    "legal_actions",
    "start_hand",
    "step_closable",
    "summary",
    "teams",
    "timeout_seconds",
    "waiting_seats",
]


def start_hand(
    variant: Variant,
    deal: Deal,
    stakes: RoomStakes | None = None,
    *,
    balances: Sequence[int | None] | None = None,
    sealed_steps: bool = False,
) -> HandState:
    """The first decision state of a hand dealt by ``deal``.

    ``balances`` (beans per seat, None for a bot) only matter for settlement (§7.3); without
    them every seat is treated as able to pay in full. ``sealed_steps``: simultaneous steps
    end with a ``close`` action (see the module's docstring).
    """
    if deal.variant_key != variant.key:
        raise EngineError(f"a {deal.variant_key} deal cannot start a {variant.key} hand")
    check_deal(variant, deal)
    if balances is not None and len(balances) != variant.seats:
        raise EngineError(f"{variant.key} needs {variant.seats} balances")
    state = HandState(
        variant=variant,
        deal=deal,
        stakes=stakes or RoomStakes(),
        balances=None if balances is None else tuple(balances),
        phase="deal",
        hands=deal.hands,
        autoplay=(False,) * variant.seats,
        sealed_steps=sealed_steps,
    )
    return _close_when_decided(flow_for(variant).start(state))


def step_closable(state: HandState) -> bool:
    """A simultaneous step everybody asked has decided (a sealed one waits for ``close``)."""
    flow = flow_for(state.variant)
    return (
        not state.finished and state.phase in flow.simultaneous_phases and not flow.waiting(state)
    )


def _close_when_decided(state: HandState) -> HandState:
    if state.sealed_steps or not step_closable(state):
        return state
    return flow_for(state.variant).close_step(state)


def waiting_seats(state: HandState) -> tuple[int, ...]:
    """Seats whose decision the hand waits for (several in a simultaneous step)."""
    return flow_for(state.variant).waiting(state)


def timeout_seconds(
    state: HandState, *, turn_seconds: int = 30, bid_seconds: int = 15
) -> int | None:
    """How long the current decision may take (§2.5, the room's ``turn_seconds`` and
    ``bid_seconds``); None when the hand waits for nobody."""
    if state.finished or not waiting_seats(state):
        return None
    if state.phase == PHASE_PLAY:
        return turn_seconds
    return flow_for(state.variant).fixed_windows.get(state.phase, bid_seconds)


def _check_seat(state: HandState, seat: int) -> None:
    if not isinstance(seat, int) or not 0 <= seat < state.seats:
        raise NotYourTurn(f"seat must be 0..{state.seats - 1}")


def legal_actions(state: HandState, seat: int) -> list[Action]:
    """Every legal decision of ``seat`` now, in a deterministic order.

    In play: one ``play`` per distinct rank multiset (moves.legal_plays order, cards chosen as the
    lowest suits of each rank), then ``pass`` when following. ``timeout`` and ``autoplay`` are
    always accepted as well and are not listed.
    """
    _check_seat(state, seat)
    if state.finished or seat not in waiting_seats(state):
        return []
    if state.phase != PHASE_PLAY:
        return flow_for(state.variant).choices(state, seat)
    hand = state.hands[seat]
    top = state.top.combo if state.top is not None else None
    suits = lowest_suits(hand)
    actions = [
        Action(seat, PLAY, None, suits(combo.ranks))
        for combo in legal_plays(state.variant, ranks_of(hand), top)
    ]
    if top is not None:
        actions.append(Action(seat, PASS))
    return actions


def autoplay_action(state: HandState, seat: int) -> Action:
    """The 托管 move (§2.5): lowest single when leading; weakest same-type non-bomb that beats
    when following; otherwise pass. Never a bomb. Outside play, the timeout default."""
    _check_seat(state, seat)
    if state.phase != PHASE_PLAY:
        return default_action(state, seat)
    if seat != state.turn:
        raise NotYourTurn(f"it is seat {state.turn}'s turn")
    hand = state.hands[seat]
    if state.top is None:
        return Action(seat, PLAY, None, (min(hand),))
    top = state.top.combo
    if top.is_bomb:
        return Action(seat, PASS)
    options = [c for c in legal_plays(state.variant, ranks_of(hand), top) if not c.is_bomb]
    if not options:
        return Action(seat, PASS)
    best = min(options, key=lambda c: (c.key, c.ranks))
    return Action(seat, PLAY, None, cards_for_ranks(hand, best.ranks))


def default_action(state: HandState, seat: int) -> Action:
    """What a timeout of ``seat``'s pending decision does (§2.5); raises if none is pending."""
    _check_seat(state, seat)
    if state.finished:
        raise WrongPhase("the hand is over")
    if seat not in waiting_seats(state):
        raise NotYourTurn(f"seat {seat} has no pending decision")
    if state.phase == PHASE_PLAY:
        return autoplay_action(state, seat)
    return flow_for(state.variant).default(state, seat)


def apply(state: HandState, action: Action) -> HandState:
    """The state after ``action``, or an IllegalAction subclass naming why it is refused."""
    seat = action.seat
    _check_seat(state, seat)
    if state.finished:
        raise WrongPhase(f"the hand is over ({state.phase})")
    if action.act == AUTOPLAY:
        if not isinstance(action.value, bool):
            raise InvalidChoice("autoplay takes true or false")
        flags = list(state.autoplay)
        flags[seat] = action.value
        new = replace(state, autoplay=tuple(flags))
    elif action.act == CLOSE:
        if not (state.sealed_steps and step_closable(state)):
            raise WrongPhase("no sealed step waits to be closed")
        new = flow_for(state.variant).close_step(state)
    else:
        decision = default_action(state, seat) if action.act == TIMEOUT else action
        new = _close_when_decided(_decide(state, decision))
    sealed = (
        state.sealed_steps
        and action.act not in (AUTOPLAY, CLOSE)
        and state.phase in flow_for(state.variant).simultaneous_phases
    )
    return replace(
        new,
        history=(*state.history, action),
        public_version=state.public_version + (0 if sealed else 1),
    )


def _decide(state: HandState, action: Action) -> HandState:
    flow = flow_for(state.variant)
    seat = action.seat
    if state.phase == PHASE_PLAY:
        if action.act not in (PLAY, PASS):
            raise WrongPhase(f"{action.act!r} is not a move of the play phase")
        if seat != state.turn:
            raise NotYourTurn(f"it is seat {state.turn}'s turn")
        return _play(state, action) if action.act == PLAY else _pass(state, seat)
    expected = flow.phase_acts.get(state.phase)
    if action.act != expected:
        raise WrongPhase(f"phase {state.phase!r} takes {expected!r}, not {action.act!r}")
    if seat not in flow.waiting(state):
        if state.phase in flow.simultaneous_phases:
            raise NotYourTurn(f"seat {seat} has no decision in this {state.phase} step")
        raise NotYourTurn(f"it is seat {state.turn}'s turn")
    return flow.decide(state, action)


def _play(state: HandState, action: Action) -> HandState:
    seat = action.seat
    cards = action.cards or ()
    if not cards:
        raise NotACombination("a play needs at least one card")
    rest = remove_cards(state.hands[seat], cards)
    ranks = ranks_of(cards)
    final = not rest
    v = state.variant
    if state.top is None:
        declared = action.value if isinstance(action.value, str) else None
        combo = reading_to_lead(v, ranks, final=final, declared_kind=declared)
        if combo is None:
            raise NotACombination(f"{format_ranks(ranks)} is not a {v.key} combination")
    else:
        combo = reading_to_follow(v, ranks, state.top.combo, final=final)
        if combo is None:
            if classify(v, ranks, final=final):
                raise DoesNotBeat(
                    f"{format_ranks(ranks)} does not beat {format_ranks(state.top.combo.ranks)}"
                )
            raise NotACombination(f"{format_ranks(ranks)} is not a {v.key} combination")
    record = PlayRecord(seat=seat, cards=cards, combo=combo)
    hands = list(state.hands)
    hands[seat] = rest
    trick = (*state.trick, (seat, cards)) if state.top is not None else ((seat, cards),)
    state = replace(
        state,
        hands=tuple(hands),
        top=record,
        passes=0,
        trick=trick,
        plays=(*state.plays, record),
        turn=state.next_seat(seat),
    )
    state = flow_for(v).after_play(state, record)
    if final:
        side = LANDLORD_SIDE if seat in state.landlord_side() else FARMER_SIDE
        return finish(state, side, flow_for(v).settle)
    return state


def _pass(state: HandState, seat: int) -> HandState:
    if state.top is None:
        raise MustPlay("the leader of a trick must play")
    passes = state.passes + 1
    trick = (*state.trick, (seat, None))
    if passes == state.seats - 1:
        leader = state.top.seat
        return replace(state, top=None, passes=0, trick=trick, leader=leader, turn=leader)
    return replace(state, passes=passes, trick=trick, turn=state.next_seat(seat))


def teams(state: HandState) -> dict[str, list[int]]:
    """The true sides (for the hand's owner, replay and tests; views reveal only what is known)."""
    if state.landlord is None:
        return {"landlord": [], "farmer": []}
    return {"landlord": list(state.landlord_side()), "farmer": list(state.farmer_side())}


def _json_number(value: Any) -> Any:
    if hasattr(value, "denominator"):
        return int(value) if value.denominator == 1 else float(value)
    return value


def summary(state: HandState) -> dict[str, Any]:
    """The result JSON of docs/rules.md §8.4 ``replay``."""
    flow = flow_for(state.variant)
    result = state.result
    if result is not None:
        multiplier = result.multiplier
        units = [_json_number(u) for u in result.units]
        beans = list(result.beans)
        house = result.house
    else:
        multiplier = flow.current_multiplier(state)
        units = [0] * state.seats
        beans = [0] * state.seats
        house = 0
    return {
        "phase": state.phase,
        "turn": state.turn,
        "hands_left": [len(h) for h in state.hands],
        "teams": teams(state),
        "multiplier": multiplier,
        "finished": state.finished,
        "winner_side": state.winner_side,
        "units": units,
        "beans": beans,
        "house": house,
    }
