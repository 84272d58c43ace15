"""Deals of the unseen cards drawn from one seat's view of the table (issue #36, step 3).

``belief_of(view)`` reads what a seat may know (``views.view_for``: its hand, the counts, the
plays, what the rules showed of other hands, the marked card and the teams as it knows them)
and ``draw(belief, rng)`` deals the cards it has not seen so that every public fact holds:

* every seat holds as many cards as it does, and what the view shows in a hand
  (``views.known_holdings``: a partner's or a 明牌 hand, the face-up card at its holder, the
  cards a grab showed, a public bottom at the landlord) stays there;
* the marked card (qq5's face-up card, new5's 找 X, fenzhou5's call): the copies of it the
  rules put in the landlord's hand stay there (``Flow.landlord_marked_copies``), and the rest
  that nobody has played are all in one hand: the hidden partner's, or the landlord's own
  (a solo). Which hand is drawn first; the teams of the sample follow from it;
* the plays weigh each sample by how likely the planner's policy was to make them with the
  sample's hands and teams: a seat that beat its own side's play, or passed on a rival's
  play while its plan held a plain answer (``PASS_WITH_ANSWER``), is less likely to hold
  those cards on that side (``Sample.weight``, an importance weight).

Nothing else is read: the information test deals from two states that differ only in cards
the seat cannot see and checks the samples are the same. Pure and standard library only.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from games.engine.cards import SJ_CODE, parse_cards, ranks_of
from games.engine.combos import Combo, classify, reading_to_follow, reading_to_lead
from games.engine.flows import flow_for
from games.engine.planning import Planner, planner_for
from games.engine.rollouts import pack_ranks, planned_answer
from games.engine.variants import Variant, find_variant
from games.engine.views import known_holdings

__all__ = [
    "BEAT_OWN_SIDE",
    "PASS_WITH_ANSWER",
    "Belief",
    "Sample",
    "TableEvent",
    "belief_of",
    "draw",
    "partner_odds",
]

# Likelihood factors of one public decision under the planner's policy, given a sample:
# a seat beating a play of its own side (the bot leaves a partner's trick alone), a seat
# passing on a rival's play while its plan held a plain answer to it.
BEAT_OWN_SIDE = 0.15
PASS_WITH_ANSWER = 0.35
# The latest passes weighed per sample (each plans a hand of the sample).
PASSES_WEIGHED = 8


@dataclass(frozen=True, slots=True)
class TableEvent:
    """One public decision: ``seat`` passed on (or beat) ``top``, played by ``owner``; the
    ranks ``seat`` played after it (its hand then was its hand now plus these)."""

    seat: int
    owner: int
    top: Combo
    beat: bool
    later: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Belief:
    """What one seat's view says of the other hands."""

    variant: Variant
    seat: int
    counts: tuple[int, ...]
    fixed: tuple[tuple[int, ...], ...]  # per seat, cards it surely holds (own hand whole)
    pool: tuple[int, ...]  # the other unseen cards, sorted
    landlord: int | None
    marked: int | None
    marked_free: int  # unplayed copies of the marked card in one hand, not placed yet
    holders: tuple[int, ...]  # the hands that may hold them
    landlord_side: frozenset[int] | None  # when the seat knows the teams
    events: tuple[TableEvent, ...]
    turn: int | None  # the seat to play
    top: Combo | None  # the play to beat (None: the trick is to lead)
    top_seat: int | None


@dataclass(frozen=True, slots=True)
class Sample:
    hands: tuple[tuple[int, ...], ...]  # card codes per seat, sorted
    landlord_side: frozenset[int]
    weight: float


def _codes(text: str | None) -> tuple[int, ...]:
    return parse_cards(text) if text else ()


def _combo_of(v: Variant, play: dict[str, Any], top: Combo | None) -> Combo | None:
    ranks = ranks_of(_codes(play["cards"]))
    for final in (False, True):
        if top is None:
            combo = reading_to_lead(v, ranks, final=final, declared_kind=play["kind"])
        else:
            combo = reading_to_follow(v, ranks, top, final=final)
        if combo is not None:
            return combo
    readings = classify(v, ranks, final=True)
    return readings[0] if readings else None


def _combos(v: Variant, plays: list[dict[str, Any]]) -> list[Combo | None]:
    """The reading of every play: a play by the same seat as the one before led a new trick."""
    combos: list[Combo | None] = []
    top: Combo | None = None
    for before, play in zip([None, *plays], plays, strict=False):
        new_trick = before is None or before["seat"] == play["seat"]
        top = _combo_of(v, play, None if new_trick else top)
        combos.append(top)
    return combos


def _events(
    v: Variant, plays: list[dict[str, Any]], combos: list[Combo | None], turn: int | None
) -> tuple[TableEvent, ...]:
    """Who beat and who passed on each play: a play by the same seat as the one before led
    a new trick (everyone else passed), a play by another seat beat it (the seats in between
    passed; after the last play, those before ``turn``). The hand ends when the first seat
    goes out, so every seat is still in it."""
    n = v.seats
    played_after: list[Counter[int]] = [Counter() for _ in range(n)]  # by later plays
    events: list[TableEvent] = []
    for i in range(len(plays) - 1, -1, -1):
        owner = plays[i]["seat"]
        combo = combos[i]
        nxt: int | None = plays[i + 1]["seat"] if i + 1 < len(plays) else turn
        if combo is not None and nxt is not None:
            s = (owner + 1) % n
            while s != nxt and s != owner:
                later = tuple(sorted(played_after[s].elements()))
                events.append(TableEvent(s, owner, combo, beat=False, later=later))
                s = (s + 1) % n
            if i + 1 < len(plays) and nxt != owner:
                later = tuple(sorted(played_after[nxt].elements()))
                events.append(TableEvent(nxt, owner, combo, beat=True, later=later))
        played_after[owner].update(ranks_of(_codes(plays[i]["cards"])))
    return tuple(reversed(events))


def belief_of(view: dict[str, Any]) -> Belief | None:
    """The belief of the view's seat; None when the view's facts do not add up."""
    v = find_variant(view["variant"], **view["options"])
    me: int = view["seat"]
    counts = tuple(view["hand_counts"])
    landlord: int | None = view.get("landlord")
    plays: list[dict[str, Any]] = list(view.get("plays") or [])
    fixed: list[Counter[int]] = [Counter() for _ in range(v.seats)]
    fixed[me] = Counter(_codes(view.get("hand")))
    for seat, cards in known_holdings(view).items():
        fixed[seat] = Counter(cards)
    marked = parse_cards(view["marked_card"])[0] if view.get("marked_card") else None
    teams = view["teams"]
    side = frozenset(teams["landlord"]) if teams["complete"] else None
    played = Counter(c for p in plays for c in _codes(p["cards"]))
    holders: tuple[int, ...] = ()
    free = 0
    if marked is not None and landlord is not None:
        own = flow_for(v).landlord_marked_copies
        if landlord != me and own:
            spent = sum(_codes(p["cards"]).count(marked) for p in plays if p["seat"] == landlord)
            fixed[landlord][marked] = max(fixed[landlord][marked], own - spent)
        placed = sum(f[marked] for f in fixed)
        free = v.decks - placed - played[marked]
        if side is not None:
            partner = [s for s in side if s != landlord]
            holders = (partner[0] if partner else landlord,)
        else:
            holders = tuple(s for s in range(v.seats) if s != me)
    pool = Counter({code: v.decks for code in range(SJ_CODE + 2)})
    pool.subtract(played)
    for f in fixed:
        pool.subtract(f)
    if marked is not None:
        pool[marked] -= max(0, free)
    if free < 0 or any(n < 0 for n in pool.values()):
        return None
    combos = _combos(v, plays)
    top = view.get("top")
    return Belief(
        variant=v,
        seat=me,
        counts=counts,
        fixed=tuple(tuple(sorted(f.elements())) for f in fixed),
        pool=tuple(sorted(pool.elements())),
        landlord=landlord,
        marked=marked,
        marked_free=free,
        holders=holders if free else (),
        landlord_side=side,
        events=_events(v, plays, combos, view.get("turn")),
        turn=view.get("turn"),
        top=combos[-1] if top and combos else None,
        top_seat=top["seat"] if top else None,
    )


def draw(belief: Belief, rng: random.Random) -> Sample | None:
    """One deal of the unseen cards consistent with ``belief``, and its weight; None when
    the drawn holder of the marked copies has no room for them."""
    hands = [list(f) for f in belief.fixed]
    holder = rng.choice(belief.holders) if belief.holders else None
    if holder is not None and belief.marked is not None:
        hands[holder] += [belief.marked] * belief.marked_free
    unseen = list(belief.pool)
    rng.shuffle(unseen)
    for s, hand in enumerate(hands):
        need = belief.counts[s] - len(hand)
        if need < 0 or need > len(unseen):
            return None
        if s != belief.seat:
            hand += unseen[:need]
            del unseen[:need]
    if unseen:
        return None
    if belief.landlord_side is not None:
        side = belief.landlord_side
    elif belief.landlord is None:
        side = frozenset()
    elif holder is None or holder == belief.landlord:
        side = frozenset({belief.landlord})
    else:
        side = frozenset({belief.landlord, holder})
    dealt = tuple(tuple(sorted(h)) for h in hands)
    return Sample(dealt, side, _weight(belief, dealt, side))


def _weight(belief: Belief, hands: tuple[tuple[int, ...], ...], side: frozenset[int]) -> float:
    """The likelihood of the latest public decisions under the planner's policy, given the
    sample's hands and teams, counting only what the deciding seat knew: a hidden partner
    knows his side, a farmer knows the landlord is against him."""
    planner: Planner = planner_for(belief.variant)
    landlord = belief.landlord
    weight = 1.0
    passes = 0
    for event in reversed(belief.events):
        if event.seat in (belief.seat, landlord):
            continue
        partner = event.seat in side
        if event.beat:
            if partner and event.owner in side:
                weight *= BEAT_OWN_SIDE  # he beat the landlord he knew was his partner
            continue
        rival = (event.owner in side) != partner and (partner or event.owner == landlord)
        if not rival or passes >= PASSES_WEIGHED:
            continue
        passes += 1
        then = pack_ranks((*ranks_of(hands[event.seat]), *event.later))
        if planned_answer(planner, then, event.top) is not None:
            weight *= PASS_WITH_ANSWER
    return weight


def partner_odds(samples: list[Sample], landlord: int) -> dict[int | None, float]:
    """How the samples' weight splits over who the landlord's partner is (None: alone)."""
    total = sum(s.weight for s in samples)
    odds: dict[int | None, float] = {}
    for s in samples:
        partner = next((p for p in s.landlord_side if p != landlord), None)
        odds[partner] = odds.get(partner, 0.0) + s.weight / total
    return odds
