"""What one seat, or a spectator, may know of a hand: JSON-able dicts (docs/rules.md §2–§6).

``view_for(state, seat)`` and ``public_view(state)`` build their dicts from public facts plus,
for a seat, exactly its own private knowledge. Card identities appear only under these keys:
``hand`` (own), ``partner_hand`` (qq5 landlords after the reveal), ``bottom`` (classic3 once the
landlord is fixed; for qq5/new5 only the landlord who took it), ``face_up.card``,
``marked_card`` (the called / circled card once announced), ``grabs[].card``, ``plays[].cards``,
``trick[].cards``, ``top.cards``, ``choices[].value`` (a seat's own grab/call choices),
``shown_hand`` (a classic3 landlord's hand from his 明牌 on, to everyone) and, once the hand is
over (the whole record is public then), ``final_hands`` (every seat's). A seat's ``unseen``
(记牌器, when the room's ``card_counter`` is on) counts per rank the copies it has not seen:
it is computed from the rest of its view alone (``unseen_counts``).
A seat's own ``stake`` (what its stake is made of so far) is left out while it would tell
what the rules still hide (qq5 per-player doubling: the landlords' doubles).

Not shown, by design: the other hands, the qq5 暗地主 / new5 副地主 / fenzhou5 狗腿子 before they
are revealed (except to themselves), a hidden solo before it shows, and, while a simultaneous
step is open (qq5 reveal and double, new5 grab), who else it asks beyond the seats everybody
knows it asks, who has decided and what: the others' view of an open step is the same from its
start to its close, whatever the hidden structure (the step's close shows every choice at once).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from games.engine.cards import (
    BJ,
    RANK_THREE,
    SJ,
    card_rank,
    format_card,
    format_cards,
    format_ranks,
    parse_cards,
)
from games.engine.flows import StakeTerm, flow_for
from games.engine.hand import legal_actions, waiting_seats
from games.engine.memo import last_by_identity
from games.engine.state import (
    CALL_FRIEND,
    HIDDEN_SOLO,
    OPEN_SOLO,
    PHASE_GRAB,
    PHASE_PLAY,
    PHASE_REVEAL,
    HandState,
    PlayRecord,
)
from games.engine.variants import find_variant

__all__ = [
    "COUNTER_RANKS",
    "REPORT_AT",
    "known_holdings",
    "public_view",
    "unseen_counts",
    "view_for",
]

# 报牌 (docs/rules.md §2.6): a hand of this many cards or fewer is announced, in every variant.
# Display only: every hand's count is public anyway, and no rule depends on it.
REPORT_AT = 2


@lru_cache(maxsize=8192)
def _play_text(p: PlayRecord) -> tuple[str, str]:
    # every view of every audience lists the whole hand's plays again: format each play once
    return format_cards(p.cards), format_ranks(p.combo.ranks)


def _play_json(p: PlayRecord) -> dict[str, Any]:
    cards, ranks = _play_text(p)
    return {"seat": p.seat, "cards": cards, "kind": p.combo.kind, "ranks": ranks}


@last_by_identity
def _plays_json(plays: tuple[PlayRecord, ...]) -> tuple[dict[str, Any], ...]:
    return tuple(_play_json(p) for p in plays)


def _knows_partner(state: HandState, seat: int | None) -> bool:
    """Whether ``seat`` knows who holds the landlord's partner role (or that there is none)."""
    if state.revealed or state.finished:
        return True
    if seat is None or state.landlord is None:
        return False
    if state.partner_mode is None and state.marked_card is None:
        return False  # new5 before the partner choice; classic3 never has one
    if seat == state.partner:
        return True  # the twin / circled / called card is in his own hand
    # a solo landlord knows he is alone; in qq5 case A and new5/fenzhou5 calls he does not know who
    return seat == state.landlord and state.solo


def _public_waiting(state: HandState, seat: int | None) -> list[int]:
    flow = flow_for(state.variant)
    waiting = waiting_seats(state)
    if state.phase not in flow.simultaneous_phases:
        return sorted(waiting)
    public = {s for s in flow.publicly_asked(state) if s != seat}
    if seat is not None and seat in waiting:
        public.add(seat)
    return sorted(public)


def _teams(state: HandState, seat: int | None) -> dict[str, Any]:
    if state.landlord is None:
        return {"landlord": [], "farmer": [], "complete": False}
    if flow_for(state.variant).hidden_partner and not _knows_partner(state, seat):
        return {"landlord": [state.landlord], "farmer": [], "complete": False}
    return {
        "landlord": list(state.landlord_side()),
        "farmer": list(state.farmer_side()),
        "complete": True,
    }


def _role(state: HandState, seat: int) -> str | None:
    if state.landlord is None:
        return None
    if seat == state.landlord:
        return "landlord"
    if seat == state.partner:
        return "partner"
    hidden = flow_for(state.variant).hidden_partner
    if hidden and state.partner_mode is None and state.marked_card is None:
        return None  # new5 / fenzhou5 before the partner card is fixed: it may still be him
    return "farmer"


def _common(state: HandState, seat: int | None) -> dict[str, Any]:
    v = state.variant
    flow = flow_for(v)
    d = state.deal
    waiting = _public_waiting(state, seat)
    if state.phase in flow.simultaneous_phases:
        state = flow.step_seen_by(state, seat)
    out: dict[str, Any] = {
        "variant": v.key,
        "options": dict(v.options),
        "seats": v.seats,
        "phase": state.phase,
        "turn": state.turn,
        "waiting": waiting,
        "hand_counts": [len(h) for h in state.hands],
        "landlord": state.landlord,
        "teams": _teams(state, seat),
        "face_up": None
        if d.face_up is None
        else {"card": format_card(d.face_up), "seat": d.face_up_seat},
        "multiplier": flow.current_multiplier(state),
        "autoplay": list(state.autoplay),
        "finished": state.finished,
        "winner_side": state.winner_side,
    }
    if state.bids:
        out["bids"] = list(state.bids)
    if state.doubles:
        out["doubles"] = list(state.doubles)
    if state.reveals and state.phase != PHASE_REVEAL:
        out["reveals"] = [s for s in range(v.seats) if state.reveals[s]]
        out["revealed"] = state.revealed
    if state.phase == PHASE_GRAB or state.grabs or state.grab_done:
        out["grabs"] = [{"seat": s, "card": format_card(c)} for s, c in state.grabs]
        out["grab_count"] = len(state.grabs)
    # the partner announcement: 明独打 is public; 暗独打 looks like 叫朋友 until it shows
    mode = state.partner_mode
    if mode is not None:
        public_mode = mode
        if mode == HIDDEN_SOLO and not state.revealed and seat != state.landlord:
            public_mode = CALL_FRIEND
        out["partner_mode"] = public_mode
    if state.marked_card is not None and (mode != OPEN_SOLO):
        out["marked_card"] = format_card(state.marked_card)
    out["partner"] = state.partner if _knows_partner(state, seat) else None
    out["solo"] = state.solo if _knows_partner(state, seat) else None
    out["auto_win"] = state.auto_win
    if state.bottom_public:
        out["bottom"] = format_cards(d.bottom)
    if state.shown and not state.finished and state.landlord is not None:
        out["shown_hand"] = format_cards(state.hands[state.landlord])  # 明牌: face up to all
    if state.phase == PHASE_PLAY or state.plays:
        out["leader"] = state.leader
        out["top"] = None if state.top is None else _play_json(state.top)
        out["trick"] = [
            {"seat": s, "cards": None if cards is None else format_cards(cards)}
            for s, cards in state.trick
        ]
        out["plays"] = list(_plays_json(state.plays))
    out["reports"] = {str(s): len(h) for s, h in enumerate(state.hands) if 0 < len(h) <= REPORT_AT}
    if state.result is not None:
        r = state.result
        out["result"] = {
            "units": [str(u) for u in r.units],
            "beans": list(r.beans),
            "house": r.house,
            "multiplier": r.multiplier,
            "spring": r.spring,
            "anti_spring": r.anti_spring,
        }
        # the whole record is public once the hand is over: the cards each seat kept, what
        # each seat's stake was made of, what each bomb did to it (by its index in plays)
        out["final_hands"] = [format_cards(h) for h in state.hands]
        out["stakes"] = [_terms(flow.stake_terms(state, s)) for s in range(v.seats)]
        effects = ((i, flow.bomb_term(state, p)) for i, p in enumerate(state.plays))
        out["bomb_effects"] = {str(i): t.to_json() for i, t in effects if t is not None}
    return out


def _terms(terms: tuple[StakeTerm, ...]) -> list[dict[str, Any]]:
    return [t.to_json() for t in terms]


def public_view(state: HandState) -> dict[str, Any]:
    """What a spectator may know."""
    out = _common(state, None)
    out["seat"] = None
    return out


def view_for(state: HandState, seat: int) -> dict[str, Any]:
    """What ``seat`` may know: the public view plus its own cards, role and choices."""
    out = _common(state, seat)
    out["seat"] = seat
    out["hand"] = format_cards(state.hands[seat])
    out["role"] = _role(state, seat)
    if (
        seat == state.landlord
        and state.deal.bottom
        and not state.bottom_public
        and not state.bottom
    ):
        out["bottom"] = format_cards(state.deal.bottom)  # he took it face down (qq5, new5)
    if (
        state.partner is not None
        and state.revealed
        and not state.finished
        and seat in state.landlord_side()
        and flow_for(state.variant).partners_see_hands
    ):
        other = state.partner if seat == state.landlord else state.landlord
        assert other is not None
        out["partner_hand"] = format_cards(state.hands[other])
    actions = legal_actions(state, seat)
    kinds = sorted({a.act for a in actions})
    out["legal"] = kinds
    out["choices"] = [a.to_json() for a in actions if a.act not in ("play", "pass")]
    out["autoplay_on"] = state.autoplay[seat]
    if state.variant.options.get("card_counter"):
        out["unseen"] = unseen_counts(out)
    flow = flow_for(state.variant)
    # his own stake as it stands, from what he may know of an open step (the others' 亮, 加倍
    # or grabs show at its close, in his stake too)
    seen = flow.step_seen_by(state, seat) if state.phase in flow.simultaneous_phases else state
    if not state.finished and flow.stake_known(seen, seat):
        out["stake"] = _terms(flow.stake_terms(seen, seat))
    return out


# 记牌器: the ranks it counts, 3 … 2 then the small and the big joker
COUNTER_RANKS = tuple(range(RANK_THREE, BJ + 1))


@lru_cache(maxsize=8192)
def _codes(text: str | None) -> tuple[int, ...]:
    # every view of every push counts the whole hand's plays again: parse each text once
    return parse_cards(text) if text else ()


@lru_cache(maxsize=1024)
def _ranks_played(plays: tuple[str | None, ...]) -> dict[int, int]:
    """The copies of each rank among ``plays`` (their texts; None for a pass). Every view of
    a push counts the same plays: once a state, not once a view. Read it, never change it."""
    ranks: Counter[int] = Counter()
    for text in plays:
        ranks.update(card_rank(code) for code in _codes(text))
    return dict(ranks)


def _held_surely(shown: Counter[int], played: Iterable[int]) -> Counter[int]:
    """The copies of cards once shown in a seat's hand it must still hold: copies of one
    identity are alike, so each copy it has played since may have been a shown one."""
    return shown - Counter(played)


def known_holdings(view: dict[str, Any]) -> dict[int, Counter[int]]:
    """The cards a view shows in other seats' hands that they must still hold, per seat: a
    partner's (qq5) or a 明牌 hand whole, and what the rules once showed less what its holder
    has played since (the public bottom at the landlord, the face-up card at its holder, the
    pairs and triples a new5 grab showed). Reads the view only."""
    me = view["seat"]
    played_by: dict[int, list[int]] = {}
    for p in view.get("plays") or []:
        played_by.setdefault(p["seat"], []).extend(_codes(p["cards"]))
    shown: dict[int, Counter[int]] = {}
    exact: dict[int, str] = {}
    landlord = view.get("landlord")
    if view.get("shown_hand") is not None and landlord is not None and landlord != me:
        exact[landlord] = view["shown_hand"]
    if view.get("partner_hand") is not None:
        side = (view.get("teams") or {}).get("landlord") or []
        exact.update((s, view["partner_hand"]) for s in side if s != me)
    if view.get("bottom") and landlord is not None:  # shown once the landlord took it
        shown.setdefault(landlord, Counter()).update(_codes(view["bottom"]))
    face_up = view.get("face_up")
    if face_up is not None:
        shown.setdefault(face_up["seat"], Counter()).update(_codes(face_up["card"]))
    grabbed: Counter[tuple[int, int]] = Counter(
        (g["seat"], code) for g in view.get("grabs") or [] for code in _codes(g["card"])
    )
    for (seat, code), grabs in grabbed.items():
        # a grab shows a pair of the identity, a second grab with it the third copy
        group = shown.setdefault(seat, Counter())
        group[code] = max(group[code], grabs + 1)
    out = {seat: Counter(_codes(text)) for seat, text in exact.items()}
    for seat, cards in shown.items():
        if seat != me and seat not in exact:
            out[seat] = _held_surely(cards, played_by.get(seat, ()))
    return out


def unseen_counts(view: dict[str, Any]) -> list[int]:
    """记牌器: for each rank of ``COUNTER_RANKS``, the copies the view's seat has not seen: the
    variant's decks, minus its own hand, every card played, and the cards the rules have
    shown it that their holders must still hold: the public bottom (classic3, shown as the
    landlord takes it), the face-up card in its holder's hand, the pairs and triples a new5
    grab showed, the partner's hand (qq5) and a 明牌 hand. Announced identities (a called or circled
    card) tell where a copy is but show none, and do not count. Reads the view only, so it
    can only count what the seat may know."""
    me = view["seat"]
    variant = find_variant(view["variant"], **view["options"])
    seen: Counter[int] = Counter(_codes(view.get("hand")))
    if view.get("final_hands"):
        for seat, text in enumerate(view["final_hands"]):
            if seat != me:
                seen.update(_codes(text))
    else:
        for seat, cards in known_holdings(view).items():
            if seat != me:
                seen.update(cards.elements())
    # the plays by rank, the same for every view of a state: counted once
    by_rank = Counter(_ranks_played(tuple(p["cards"] for p in view.get("plays") or [])))
    for code, copies in seen.items():  # by identity: a push counts every view's cards
        by_rank[card_rank(code)] += copies
    per_rank = {r: variant.decks * (1 if r >= SJ else 4) for r in COUNTER_RANKS}
    return [per_rank[r] - by_rank[r] for r in COUNTER_RANKS]
