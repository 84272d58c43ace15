"""The house bot: ``bot_action(state, seat) -> Action`` for every phase of every variant.

The bot decides only from what ``seat`` may know. ``_Knowledge`` is built from
``view_for(state, seat)`` (own hand, hand counts, roles as the seat knows them, a revealed
qq5 partner's hand) and from public facts of the state (the variant, the current top play
and every play made so far). Other seats' hands are never read: a test swaps cards between
two other hands and checks that every decision stays the same.

Play: the hand is planned as a set of combinations (``planning.Planner``: fewest and
strongest plays). Leading plays the planned combination that is hardest to get rid of (low
and long first), holding the strong ones and the bombs back, cashing sure winners first when
that ends the hand, and not feeding a rival who is about to go out a play of his size.
Following takes a trick from an opponent when that does not make the rest of the hand more
expensive, and with anything, bombs included, once the nearest opponent still to play on the
trick is down to a handful of cards (or when a bomb wins the hand). When an opponent, the
trick's owner or one who plays after this seat, could go out on the trick, the answer is the
lowest card nothing unseen beats, else the highest: over a partner's play too, when the
unseen cards could beat it. A partner's trick is otherwise left alone unless a sure winner
then leaves one play. Before the hidden partner (qq5, new5, fenzhou5) is revealed, a belief
read from the public plays (``_team_belief``: who beat the landlord, who beats farmers)
stands in for the teams: a likely partner is not fought nor bombed, a likely opponent is.
Bids, grabs, reveals, doubles, the new5 partner choice and the fenzhou5 call
come from the price of the planned hand, against thresholds calibrated per variant.

The module constants (LEAD_*, FOLLOW_*, DANGER_CARDS, THRESHOLDS) are the tuning knobs; the
changes kept were measured against the previous bot on the same seeded deals with sides
swapped.

Search (classic3, ``SEARCH_CARDS``): the play chosen above is one candidate among a few (the
planned plays, the lowest and highest of each kind, a pass); ``games.engine.search`` deals
the unseen cards at random, plays every candidate out with this bot in every seat, and keeps
the one that wins most deals, within ``think`` seconds of wall time.

Levels (``BotLevel``, a room's setting): EASY plays the above with a share EASY_NOISE of its
plays drawn among the search's candidates, never searching; NORMAL plays the above (classic3
with its endgame search); STRONG (issue #36, step 5) is NORMAL in classic3, and in qq5, new5
and fenzhou5 plays NORMAL's move unless a search shows a clear gain (SPARTA, Lerer et al.
2020; ``_strong``): the normal move and the next few candidates are played to the end of the
hand on the same deals drawn from the seat's view (``games.engine.beliefs``, weighted by how
likely the plays seen were) and the normal move is replaced only when another candidate's
mean chance of winning beats it by more than ``STRONG_MARGIN[variant]`` and by more than
``STRONG_SURE`` standard errors of that gain (paired over the deals), within
``STRONG_SECONDS`` for the whole decision.

Deterministic up to that clock: the searches' deals are seeded by public facts, so the same
state gives the same action unless the time budget cuts a search at another sample (and, for
the strong level, given the same plan caches: ``rollouts.hand_plan``).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from itertools import pairwise
from typing import Any

from games.engine.cards import SJ, card_rank, cards_for_ranks, parse_cards, ranks_of
from games.engine.combos import Combo, reading_to_lead
from games.engine.hand import (
    apply,
    autoplay_action,
    default_action,
    legal_actions,
    waiting_seats,
)
from games.engine.moves import legal_plays
from games.engine.planning import Group, Plan, counts_of, planner_for
from games.engine.search import Rollout, pimc
from games.engine.state import (
    BID,
    CALL,
    CALL_FRIEND,
    DOUBLE,
    GRAB,
    HIDDEN_SOLO,
    OPEN_SOLO,
    PARTNER,
    PASS,
    PHASE_PLAY,
    PLAY,
    REVEAL,
    SHOW,
    Action,
    HandState,
)
from games.engine.table_search import belief_scores
from games.engine.variants import Variant
from games.engine.views import view_for

__all__ = ["BotLevel", "bot_action", "play_candidates", "rollout_policy"]


@dataclass(frozen=True)
class _Knowledge:
    """Everything the bot uses: one seat's view of the hand."""

    variant: Variant
    seat: int
    hand: tuple[int, ...]  # own card codes
    counts: tuple[int, ...]  # cards left per seat (public)
    landlord: int | None
    allies: frozenset[int]  # known partners
    enemies: frozenset[int]  # known opponents
    unknown: frozenset[int]  # seats whose side this seat does not know yet
    likely_allies: frozenset[int]  # unknown seats the public play shows on this seat's side
    likely_rivals: frozenset[int]  # unknown seats the public play shows on the other side
    role: str | None
    top: Combo | None  # the current top play (public)
    top_seat: int | None
    unseen: tuple[int, ...]  # rank counts of cards neither held, seen in a partner hand nor played
    view: dict[str, Any]

    @property
    def rivals(self) -> frozenset[int]:
        """Seats to play against: known opponents, the unknown seats the play shows against
        this seat, and for a landlord every unknown seat but a likely partner (most of them
        are opponents)."""
        if self.role == "landlord":
            return (self.enemies | self.unknown) - self.likely_allies
        return self.enemies | self.likely_rivals


def _knowledge(state: HandState, seat: int) -> _Knowledge:
    view = view_for(state, seat)
    v = state.variant
    hand = parse_cards(view["hand"]) if view["hand"] else ()
    counts = tuple(view["hand_counts"])
    landlord = view["landlord"]
    role = view.get("role")
    teams = view["teams"]
    others = frozenset(s for s in range(v.seats) if s != seat)
    if teams["complete"]:
        side = teams["landlord"] if seat in teams["landlord"] else teams["farmer"]
        allies = frozenset(side) - {seat}
        enemies = others - allies
        unknown: frozenset[int] = frozenset()
    elif role == "partner" and landlord is not None:
        allies = frozenset({landlord})
        enemies = others - allies
        unknown = frozenset()
    elif role == "landlord":
        allies = enemies = frozenset()
        unknown = others
    else:
        allies = frozenset()
        enemies = frozenset({landlord}) if landlord is not None else frozenset()
        unknown = others - enemies
    seen = Counter(ranks_of(hand))
    for p in view.get("plays", []):
        seen.update(ranks_of(parse_cards(p["cards"])))
    if view.get("partner_hand"):
        seen.update(ranks_of(parse_cards(view["partner_hand"])))
    likely: frozenset[int] = frozenset()
    likely_rivals: frozenset[int] = frozenset()
    if unknown and landlord is not None and role in ("farmer", "landlord"):
        likely, likely_rivals = _team_belief(
            view.get("plays", []), v.seats, seat, landlord, unknown
        )
    total = _full_deck(v)
    unseen = tuple(max(0, total[r] - seen.get(r, 0)) for r in range(18))
    top = state.top.combo if state.top is not None else None  # public: everyone sees it
    top_seat = state.top.seat if state.top is not None else None
    return _Knowledge(
        variant=v,
        seat=seat,
        hand=tuple(sorted(hand)),
        counts=counts,
        landlord=landlord,
        allies=allies,
        enemies=enemies,
        unknown=unknown,
        likely_allies=likely,
        likely_rivals=likely_rivals,
        role=role,
        top=top,
        top_seat=top_seat,
        unseen=unseen,
        view=view,
    )


def _full_deck(v: Variant) -> tuple[int, ...]:
    """Cards of each rank in the variant's decks, indexed by rank."""
    return tuple(4 * v.decks if 3 <= r <= 15 else v.decks if r >= SJ else 0 for r in range(18))


def _team_belief(
    plays: list[dict[str, Any]], seats: int, seat: int, landlord: int, unknown: frozenset[int]
) -> tuple[frozenset[int], frozenset[int]]:
    """Who of the ``unknown`` seats is on this seat's side, read from the public plays only:
    (likely allies, likely rivals).

    A play by another seat than the previous play's beat it (a trick's winner leads the next,
    and every seat in between passed). A seat that beat the landlord is a farmer; the hidden
    partner is the one unknown seat left that has not, or the one that keeps beating seats
    known to be farmers. Before that shows, nobody is assumed (a landlord may be alone)."""
    beaten: dict[int, Counter[int]] = {s: Counter() for s in range(seats)}
    for before, after in pairwise(plays):
        if before["seat"] != after["seat"]:
            beaten[after["seat"]][before["seat"]] += 1
    farmers = {s for s in range(seats) if beaten[s][landlord]}
    if seat != landlord:
        farmers.add(seat)
    clean = sorted(s for s in unknown if s not in farmers)
    partner = None
    if len(clean) == 1 and len(unknown) > 1:
        partner = clean[0]
    elif len(clean) > 1:
        # beating farmers is the partner's work: farmers leave each other's tricks alone
        score = {s: sum(beaten[s][f] for f in farmers) for s in clean}
        ranked = sorted(clean, key=lambda s: -score[s])
        if score[ranked[0]] >= PARTNER_EVIDENCE and score[ranked[0]] > score[ranked[1]]:
            partner = ranked[0]
    found = frozenset({partner}) if partner is not None else frozenset()
    sure_farmers = frozenset(farmers) & unknown
    if seat == landlord:
        return found, sure_farmers
    return sure_farmers, found


# --------------------------------------------------------------------------- entry point
# Tests set this to see the bot's own errors instead of the 托管 fallback.
STRICT = False


class BotLevel(StrEnum):
    """How well the house bot plays: a room's setting (issue #36)."""

    EASY = "easy"  # the planner, with a share of its plays drawn among its candidates
    NORMAL = "normal"  # the planner (classic3: with its end-game search)
    STRONG = "strong"  # NORMAL's move, replaced where a search over the table's beliefs pays


# The share of an easy bot's plays drawn at random among the candidates its search would weigh.
EASY_NOISE = 0.3


def bot_action(
    state: HandState,
    seat: int,
    *,
    think: float | None = None,
    level: BotLevel = BotLevel.NORMAL,
) -> Action:
    """The house bot's decision for ``seat`` (which must be waiting for a decision).

    ``think``: the wall time its search may spend on a play, in seconds (SEARCH_SECONDS when
    None; 0 plays without searching); at the strong level, the whole play decision's
    (STRONG_SECONDS when None). ``level``: see ``BotLevel``; an easy bot never searches.

    Raises the engine's typed error (NotYourTurn, WrongPhase) when ``seat`` has no pending
    decision. The action is checked with ``apply`` before it is returned; should the bot ever
    fail to find a legal one, the 托管 action is returned instead, so a caller always gets an
    action the engine accepts.
    """
    if state.finished or seat not in waiting_seats(state):
        return default_action(state, seat)  # raises the engine's typed error
    started = time.perf_counter()
    try:
        k = _knowledge(state, seat)
        if state.phase == PHASE_PLAY:
            action = _play(k)
            seconds = SEARCH_SECONDS if think is None else think
            if level == BotLevel.EASY:
                action = _blundered(state, k, action)
            elif seconds > 0 and _search_applies(k):
                action = _searched(state, k, action, seconds)
            elif level == BotLevel.STRONG and _strong_applies(k):
                budget = STRONG_SECONDS if think is None else think
                left = budget - (time.perf_counter() - started)
                if left > 0:
                    action = _strong(state, k, action, left)
        else:
            action = _decide(state, k)
        apply(state, action)
        return action
    except (ValueError, LookupError, StopIteration, AssertionError):
        if STRICT:
            raise
        return autoplay_action(state, seat)  # pragma: no cover - safety net


# --------------------------------------------------------------------------- search
# Search (games.engine.search) once every seat holds at most this many cards and
# the teams are known; at most SEARCH_SAMPLES deals and SEARCH_SECONDS of wall time per
# decision, over at most SEARCH_CANDIDATES moves.
SEARCH_CARDS = {"classic3": 20, "qq5": 0, "new5": 0, "fenzhou5": 0}
SEARCH_SAMPLES = 40
SEARCH_SECONDS = 0.06
SEARCH_CANDIDATES = 8
# ... where another candidate replaces the bot's own move only when it wins more than this
# share of the deals more than it (0: any deal more)
SEARCH_MARGIN = 0.0


def _search_applies(k: _Knowledge) -> bool:
    return k.view["teams"]["complete"] and max(k.counts) <= SEARCH_CARDS.get(k.variant.key, 0)


def rollout_policy(world: Rollout, seat: int) -> Action:
    """The bot without the search, playing a seat of a sampled world whose teams are known:
    every seat's policy in the search's rollouts. Its knowledge is read off the world
    directly (building a view at every step cost most of a rollout's time); a revealed qq5
    partner's hand is not subtracted from the unseen cards here."""
    v = world.variant
    hand = world.hands[seat]
    side = world.landlord_side
    allies = (side if seat in side else frozenset(range(v.seats)) - side) - {seat}
    unseen = list(_full_deck(v))
    for r in ranks_of(hand):
        unseen[r] -= 1
    for r, n in enumerate(world.played):
        unseen[r] -= n
    k = _Knowledge(
        variant=v,
        seat=seat,
        hand=hand,
        counts=tuple(len(h) for h in world.hands),
        landlord=world.landlord,
        allies=allies,
        enemies=frozenset(range(v.seats)) - allies - {seat},
        unknown=frozenset(),
        likely_allies=frozenset(),
        likely_rivals=frozenset(),
        role="landlord" if seat == world.landlord else None,
        top=world.top,
        top_seat=world.top_seat,
        unseen=tuple(unseen),
        view={},
    )
    return _play(k)


def play_candidates(state: HandState, seat: int) -> list[Action]:
    """The bot's own play for ``seat`` (which must be to play) first, then the other moves its
    search weighs: what a bench's search chooses among, too."""
    k = _knowledge(state, seat)
    return _candidates(k, _play(k))


def _candidates(k: _Knowledge, action: Action) -> list[Action]:
    ranks = ranks_of(k.hand)
    plays = {c.ranks: c for c in legal_plays(k.variant, ranks, k.top)}
    plan = planner_for(k.variant).plan(counts_of(ranks))
    planned = {g.ranks for g in plan.groups}
    by_kind: dict[str, list[Combo]] = {}
    for c in plays.values():
        by_kind.setdefault(c.kind, []).append(c)
    # the planned plays, then the lowest and the highest of each kind
    order = [c for c in plays.values() if c.ranks in planned]
    for group in by_kind.values():
        order += [min(group, key=lambda c: c.key), max(group, key=lambda c: c.key)]
    candidates = [action]
    if k.top is not None and action.act != PASS:
        candidates.append(Action(k.seat, PASS))
    for c in order:
        if len(candidates) >= SEARCH_CANDIDATES:
            break
        a = _play_action(k, c)
        if a not in candidates:
            candidates.append(a)
    return candidates


def _blundered(state: HandState, k: _Knowledge, action: Action) -> Action:
    """An easy bot's play: its own, or in EASY_NOISE of the plays one of the other candidates
    (a pass among them when following), drawn from a generator seeded by the seat's own facts
    so that the same position gives the same play."""
    rng = random.Random(f"easy:{k.seat}:{len(state.history)}:{k.hand}")
    if rng.random() >= EASY_NOISE:
        return action
    return rng.choice(_candidates(k, action))


def _searched(state: HandState, k: _Knowledge, action: Action, seconds: float) -> Action:
    candidates = _candidates(k, action)
    rng = random.Random(f"{k.seat}:{len(state.history)}:{k.hand}")
    return pimc(
        state,
        k.seat,
        k.view,
        candidates,
        rollout_policy,
        seconds=seconds,
        samples=SEARCH_SAMPLES,
        rng=rng,
        margin=SEARCH_MARGIN,
    )


# --------------------------------------------------------------------------- the strong level
# A strong bot in the five-seat variants (issue #36, step 5; SPARTA, Lerer et al. 2020): its
# normal play and the next STRONG_CANDIDATES - 1 of the search's candidates are scored on the
# same deals drawn from the seat's view and weighted by the plays seen
# (``table_search.belief_scores``), every candidate played to the end of the hand by the
# rollouts' light policy (cut rollouts scored by an evaluation misled the search: bench/README,
# "Five-seat round 5"). The normal play is replaced only when another candidate's mean chance
# beats it by more than STRONG_MARGIN[variant] and STRONG_SURE standard errors of that gain
# over at least STRONG_MIN_DEALS deals: overriding on weak evidence lost to the planner (round
# 5: margin 0.05, 42-46 %). The values are chosen on held-out deals (bench/bot_strength.py
# --only strong --margins, bench/README "Five-seat round 6"): on 200 of them the standard
# errors bind and margins 0 and 0.1 play alike, 2.5-5.5 points above the normal bot
# ("Five-seat round 8"). It searches once some seat holds at most STRONG_CARDS[variant] cards
# (the end nears: short rollouts, plays to read, a play that decides the hand), and with
# STRONG_TEAMS_KNOWN only once the seat knows the teams (its samples then never misplace the
# hidden partner); STRONG_SECONDS is the whole decision's wall time, the normal play's
# included (p99 <= 100 ms on one core: bench/README, "Five-seat round 7").
STRONG_CARDS = {"qq5": 99, "new5": 99, "fenzhou5": 99}
STRONG_TEAMS_KNOWN = False
STRONG_CANDIDATES = 4
STRONG_SAMPLES = 40
STRONG_MIN_DEALS = 8
STRONG_MARGIN = {"qq5": 0.1, "new5": 0.1, "fenzhou5": 0.1}
# ... and by more than this many standard errors of its gain (paired over the same deals): a
# gain of 0.1 is about one standard error at 30 deals.
STRONG_SURE = 2.0
STRONG_SECONDS = 0.08
# rollouts played to the end of the hand (``quick_rollout``'s cut, in tricks)
STRONG_CUT = 1000


def _strong_applies(k: _Knowledge) -> bool:
    if STRONG_TEAMS_KNOWN and not k.view["teams"]["complete"]:
        return False
    return min(k.counts) <= STRONG_CARDS.get(k.variant.key, -1)


def _strong(state: HandState, k: _Knowledge, action: Action, seconds: float) -> Action:
    candidates = _candidates(k, action)[:STRONG_CANDIDATES]
    if len(candidates) < 2:
        return action
    rng = random.Random(f"strong:{k.seat}:{len(state.history)}:{k.hand}")
    scores = belief_scores(
        k.view,
        candidates,
        seconds=seconds,
        samples=STRONG_SAMPLES,
        cut=STRONG_CUT,
        rng=rng,
    )
    if scores is None or scores.deals < STRONG_MIN_DEALS:
        return action
    return scores.best(STRONG_MARGIN[k.variant.key], sure=STRONG_SURE)


# --------------------------------------------------------------------------- hand strength
def _price(v: Variant, ranks: tuple[int, ...] | list[int]) -> float:
    return planner_for(v).price(counts_of(ranks))


def _strength(v: Variant, hand: tuple[int, ...]) -> float:
    """How good a hand is: minus the price per card of its plan (higher = stronger).

    Normalised by the hand size so that 17-card and 38-card hands read on one scale: 0 is a
    hand that goes out in one play, an average hand sits around -0.3.
    """
    ranks = ranks_of(hand)
    return -_price(v, ranks) / max(1, len(ranks)) * 4


# --------------------------------------------------------------------------- decisions
# Hand-strength thresholds per variant (``_strength`` scale), calibrated on seeded bot-only
# hands: the win rate of each role against the strength of the hand at decision time.
#   classic3: the landlord wins ~40% below -1.4, ~60% from -1.3, ~70% from -0.7 (17 cards).
#   qq5: the landlord side wins ~55% overall, ~60% from -0.8; farmers ~55% from -0.7.
#   new5: a called friend wins ~45%, a solo ~25-40%: grab and go alone only when strong
#         (31 cards before the bottom read about 0.2 lower than 38 after).
#   fenzhou5: a called partner wins ~55%, a solo ~30% unless the hand reads above -0.35.
THRESHOLDS: dict[str, dict[str, float]] = {
    "classic3": {"bid3": -0.75, "bid2": -1.0, "bid1": -1.35, "double": -0.8, "show": -0.4},
    "qq5": {"reveal": -0.85, "double_landlord": -0.8, "double_farmer": -0.65},
    "new5": {"grab": -0.3, "grab_again": -0.2, "open_solo": 0.0, "hidden_solo": 0.05},
    "fenzhou5": {"solo": -0.35},
}
_NEVER = 99.0


def _decide(state: HandState, k: _Knowledge) -> Action:
    seat = k.seat
    choices = legal_actions(state, seat)
    if not choices:
        return default_action(state, seat)
    act = choices[0].act
    v = k.variant
    s = _strength(v, k.hand)
    limits = THRESHOLDS.get(v.key, {})

    def over(name: str) -> bool:
        return s > limits.get(name, _NEVER)

    if act == BID:
        bid = 3 if over("bid3") else 2 if over("bid2") else 1 if over("bid1") else 0
        allowed = [c.value for c in choices]
        return Action(seat, BID, bid if bid in allowed else 0)
    if act == DOUBLE:
        landlord_side = k.role in ("landlord", "partner")
        name = "double_landlord" if landlord_side and "double_landlord" in limits else "double"
        if not landlord_side and "double_farmer" in limits:
            name = "double_farmer"
        return Action(seat, DOUBLE, over(name))
    if act == REVEAL:
        return Action(seat, REVEAL, over("reveal"))
    if act == SHOW:  # 明牌 only with a hand strong enough to win face up (not calibrated)
        return Action(seat, SHOW, over("show"))
    if act == GRAB:
        grabs = [c.value for c in choices if c.value is not None]
        already = sum(1 for g in k.view.get("grabs", []) if g["seat"] == seat)
        # grab (become landlord) with a strong hand; a second grab only with a stronger one
        want = over("grab") if already == 0 else over("grab_again")
        if want and grabs:
            return Action(seat, GRAB, max(grabs, key=_grab_order))
        return Action(seat, GRAB, None)
    if act == PARTNER:
        options = [c.value for c in choices]
        if OPEN_SOLO in options and over("open_solo"):
            return Action(seat, PARTNER, OPEN_SOLO)
        if HIDDEN_SOLO in options and over("hidden_solo"):
            return Action(seat, PARTNER, HIDDEN_SOLO)
        if CALL_FRIEND in options:
            return Action(seat, PARTNER, CALL_FRIEND)
        return Action(seat, PARTNER, options[0])
    if act == CALL:
        return Action(seat, CALL, _call_card(k, [c.value for c in choices], over("solo")))
    return default_action(state, seat)


def _grab_order(code: int) -> int:
    if code >= 52:
        return 10 + code  # BJ > SJ > naturals
    return code % 4  # ♠ > ♥ > ♣ > ♦ for the 明牌 rank


def _call_card(k: _Knowledge, cards: list[int], solo: bool) -> int:
    """fenzhou5: a card held twice plays alone (strong hands); else the highest card held once
    (the partner then holds a high card too)."""
    held = Counter(k.hand)
    twice = [c for c in cards if held[c] == 2]
    once = [c for c in cards if held[c] == 1]
    if twice and (solo or not once):
        return max(twice, key=lambda c: (card_rank(c), c))
    pool = once or cards
    return max(pool, key=lambda c: (card_rank(c), c))


# --------------------------------------------------------------------------- play
# Leading: a planned play's price plus this much per card decides what goes first (the
# weakest and longest first). Five seats: long plays first pays more (four seats may answer
# a single or a pair, few a straight or a plane).
LEAD_LENGTH_BONUS = {"classic3": 0.08, "qq5": 0.25, "new5": 0.25, "fenzhou5": 0.25}
# Leading while a rival holds this many cards or fewer: prefer plays longer than his hand.
SHORT_RIVAL = 2
# Leading while a rival holds this many cards or fewer (more than SHORT_RIVAL): avoid a
# beatable play of exactly his size. Five seats only (classic3's search decides there).
EXACT_RIVAL_CARDS = {"qq5": 8, "new5": 8, "fenzhou5": 8}

# Following: take a trick from a rival when it raises the rest's price by at most this much
# (from a seat whose side is unknown: only when it lowers the price by this much), and with
# anything that beats (bombs included) when he is down to DANGER_CARDS[variant] cards.
FOLLOW_LIMIT_RIVAL = 0.35
FOLLOW_LIMIT_UNKNOWN = -0.3
# A seat that does not know the teams yet leaves alone a seat the play shows on its side
# (``_team_belief``), and takes the hidden partner for the one that beat this many farmers'
# plays more than any other unknown seat.
TRUST_LIKELY_ALLIES = True
PARTNER_EVIDENCE = 1
DANGER_CARDS = {"classic3": 5, "qq5": 7, "new5": 9, "fenzhou5": 8}
BOMB_DANGER_CARDS = {"classic3": 5, "qq5": 7, "new5": 9, "fenzhou5": 8}

# At most this many non-bomb answers are priced per follow (the plan's own first), and at
# most this many kicker choices per body: enough for the choice, bounded in time.
FOLLOW_CANDIDATES = 14
# planner budget (chain choices tried) for all the plans of one follow decision together
FOLLOW_BUDGET = 700
MIN_FOLLOW_BUDGET = 40
KICKER_CHOICES = 3
# A partner (known or likely) with this many cards or fewer is led the lowest single or pair.
FEED_CARDS = 1
# A rival with this many cards or fewer may go out on a single or a pair: stop him.
STOP_CARDS = 2


def _play_action(k: _Knowledge, combo: Combo) -> Action:
    return Action(k.seat, PLAY, combo.kind, cards_for_ranks(k.hand, combo.ranks))


def _play(k: _Knowledge) -> Action:
    return _lead(k) if k.top is None else _follow(k)


def _remove(ranks: tuple[int, ...], play: tuple[int, ...]) -> tuple[int, ...]:
    rest = Counter(ranks)
    rest.subtract(play)
    return tuple(sorted(rest.elements()))


def _min_rival(k: _Knowledge) -> int:
    counts = [k.counts[s] for s in k.rivals]
    return min(counts) if counts else 99


def _beatable(k: _Knowledge, g: Group | Combo) -> bool:
    """Could the unseen cards beat this play with a play of its own kind (bombs aside)?"""
    u = k.unseen
    kind = g.kind
    key = g.key
    if kind in ("bomb", "joker_bomb", "rocket", "chain_bomb", "missile", "multi_chain_bomb"):
        return False
    if kind == "nuke":
        return False
    if kind == "single":
        return any(u[r] for r in range(key + 1, 18))
    if kind == "pair":
        pair_ok = k.variant.joker_pairs
        return any(u[r] >= 2 for r in range(key + 1, 16 + (2 if pair_ok else 0)))
    if kind in ("triple", "triple_single", "triple_pair"):
        return any(u[r] >= 3 for r in range(key + 1, 16))
    return True  # chains: assume someone may hold one


def _lead(k: _Knowledge) -> Action:
    v = k.variant
    ranks = ranks_of(k.hand)
    # go out at once
    whole = reading_to_lead(v, ranks, final=True)
    if whole is not None:
        return _play_action(k, whole)
    plan = planner_for(v).plan(counts_of(ranks))
    options: list[Combo] = []
    for g in plan.groups:
        final = len(g.ranks) == len(ranks)
        combo = reading_to_lead(v, g.ranks, final=final)
        if combo is not None:
            options.append(combo)
    if not options:
        plays = legal_plays(v, ranks, None)
        return _play_action(k, plays[0])
    # finish: when every planned play but one is a sure winner, cash the winners first
    sure = [c for c in options if not _beatable(k, c)]
    if len(options) - len(sure) <= 1 and sure:
        # bombs last among the winners (they also win later), the rest by strength
        return _play_action(k, min(sure, key=lambda c: (c.is_bomb, -len(c.ranks), c.key)))
    non_bombs = [c for c in options if not c.is_bomb]
    if not non_bombs:
        return _play_action(k, min(options, key=lambda c: c.bomb_power or ()))
    danger = _min_rival(k)
    friends = k.allies | k.likely_allies
    low = min((k.counts[s] for s in friends), default=99)
    if low <= FEED_CARDS and danger > low:
        # a partner about to go out: lead him the lowest play of a size he can follow with
        fit = [c for c in non_bombs if c.kind in ("single", "pair") and len(c.ranks) <= low]
        if fit:
            return _play_action(k, min(fit, key=lambda c: (-len(c.ranks), c.key)))
    price = {c.ranks: _group_price(plan, c) for c in non_bombs}

    bonus = LEAD_LENGTH_BONUS.get(v.key, LEAD_LENGTH_BONUS["classic3"])
    # the hand sizes of rivals near the end: a play of exactly that size may be answered by
    # his whole hand (a straight on a straight), and he is out
    exact_limit = EXACT_RIVAL_CARDS.get(v.key, 0)
    exact = {k.counts[s] for s in k.rivals if 0 < k.counts[s] <= exact_limit}

    def lead_value(c: Combo) -> tuple[float, int]:
        value = price[c.ranks] + bonus * len(c.ranks)
        n = len(c.ranks)
        if danger <= SHORT_RIVAL and n <= danger:
            value -= 3  # a rival is close to going out: lead what he cannot follow
        elif n in exact and _beatable(k, c):
            value -= 2  # of a near rival's size, and the unseen cards could beat it
        return (-value, c.key)

    choice = min(non_bombs, key=lead_value)
    if danger <= SHORT_RIVAL and len(choice.ranks) <= danger and choice.kind in ("single", "pair"):
        # only small plays left: lead the strongest of that kind to keep him in check
        same = [c for c in non_bombs if c.kind == choice.kind]
        choice = max(same, key=lambda c: c.key)
    return _play_action(k, choice)


def _group_price(plan: Plan, combo: Combo) -> float:
    for g in plan.groups:
        if g.ranks == combo.ranks:
            return g.price
    return 1.0


def _follow_candidates(plan: Plan, cands: list[Combo]) -> list[Combo]:
    planned = {g.ranks for g in plan.groups}
    per_body: dict[tuple[str, int, int], int] = {}
    first: list[Combo] = []
    rest: list[Combo] = []
    for c in cands:
        if c.is_bomb:
            continue
        if c.ranks in planned:
            first.append(c)
            continue
        body = (c.kind, c.key, c.length)
        if per_body.get(body, 0) >= KICKER_CHOICES:
            continue
        per_body[body] = per_body.get(body, 0) + 1
        rest.append(c)
    rest.sort(key=lambda c: c.key)
    return (first + rest)[: max(FOLLOW_CANDIDATES, len(first))]


def _seats_after(k: _Knowledge, owner: int | None) -> list[int]:
    """The seats that play after this one before the trick comes back to its owner."""
    n = k.variant.seats
    out = []
    s = (k.seat + 1) % n
    while s != owner and s != k.seat:
        if k.counts[s]:
            out.append(s)
        s = (s + 1) % n
    return out


def _threat_after(k: _Knowledge, owner: int | None) -> bool:
    """Could a rival go out on this trick: its owner, or one who still plays on it, holding no
    more cards than the top play (the size a single answer of his would have)."""
    top = k.top
    assert top is not None
    size = max(STOP_CARDS, len(top.ranks)) if top.kind in ("single", "pair") else len(top.ranks)
    seats = _seats_after(k, owner) + ([owner] if owner is not None else [])
    return any(s in k.rivals and 0 < k.counts[s] <= size for s in seats)


def _stopper(k: _Knowledge, cands: list[Combo]) -> Combo | None:
    """The answer that best stops a rival about to go out: the lowest no unseen card can beat
    (bombs aside), else the highest of the kind."""
    plain = [c for c in cands if not c.is_bomb]
    if not plain:
        return None
    sure = [c for c in plain if not _beatable(k, c)]
    if sure:
        return min(sure, key=lambda c: c.key)
    return max(plain, key=lambda c: c.key)


def _follow(k: _Knowledge) -> Action:
    v = k.variant
    top = k.top
    assert top is not None
    ranks = ranks_of(k.hand)
    cands = legal_plays(v, ranks, top)
    passing = Action(k.seat, PASS)
    if not cands:
        return passing
    for c in cands:
        if len(c.ranks) == len(ranks):
            return _play_action(k, c)  # go out
    owner = k.top_seat
    planner = planner_for(v)
    plan = planner.plan(counts_of(ranks))
    shortlist = _follow_candidates(plan, cands)
    # one budget for the whole decision, shared by the plans compared (same budget for all)
    budget = max(MIN_FOLLOW_BUDGET, FOLLOW_BUDGET // (len(shortlist) + 1))
    # a rival could go out on this trick, its owner or one who plays on it after this seat
    # (over a partner's play too, when the unseen cards could beat it): stop him with the
    # lowest sure winner, else the highest answer (a rival's trick is bombed further down)
    stop = _stopper(k, cands) if owner in k.rivals or _beatable(k, top) else None
    if stop is not None and _threat_after(k, owner):
        return _play_action(k, stop)
    if owner in k.allies or (TRUST_LIKELY_ALLIES and owner in k.likely_allies):
        # a partner's trick: take it over only with a sure winner that leaves one play
        for c in cands:
            if c.is_bomb or _beatable(k, c):
                continue
            rest = _remove(ranks, c.ranks)
            last = reading_to_lead(v, rest, final=True)
            if last is not None:
                return _play_action(k, c)
        return passing
    rival = owner in k.rivals
    base = planner.price(counts_of(ranks), budget)
    # the danger is the nearest rival to go out among those who still play on this trick
    near = [s for s in (owner, *_seats_after(k, owner)) if s in k.rivals]
    near_left = min((k.counts[s] for s in near), default=99)
    danger = rival and near_left <= DANGER_CARDS.get(v.key, 5)
    bomb_danger = rival and near_left <= BOMB_DANGER_CARDS.get(v.key, 5)
    best: tuple[float, Combo] | None = None
    for c in shortlist:
        after = planner.price(counts_of(_remove(ranks, c.ranks)), budget)
        score = after - base
        if best is None or score < best[0] or (score == best[0] and c.key < best[1].key):
            best = (score, c)
    if best is not None:
        score, c = best
        limit = FOLLOW_LIMIT_RIVAL if rival else FOLLOW_LIMIT_UNKNOWN
        if danger or score <= limit:
            return _play_action(k, c)
    bombs = [c for c in cands if c.is_bomb]
    if bombs and rival:
        weakest = min(bombs, key=lambda c: c.bomb_power or ())
        rest = _remove(ranks, weakest.ranks)
        rest_plan = planner.plan(counts_of(rest))
        winning = rest_plan.plays <= 1 or (
            rest_plan.plays == 2 and any(not _beatable(k, g) for g in rest_plan.groups)
        )
        if bomb_danger or _min_rival(k) <= 2 or winning:
            return _play_action(k, weakest)
    return passing
