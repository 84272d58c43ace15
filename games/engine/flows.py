"""One state machine per variant: every phase before play, the reveals during play, the end.

``flow_for(variant)`` finds the Flow of a variant through a registry keyed by the variant class,
so callers never branch on a variant key. Each Flow answers the same questions:

* ``start(state)``: the first decision state after the deal;
* ``waiting(state)``: the seats whose decision the hand waits for;
* ``choices(state, seat)``: the legal non-play actions of a seat;
* ``decide(state, action)``: apply one non-play decision;
* ``default(state, seat)``: the timeout decision of docs/rules.md §2.5;
* ``after_play(state, play)``: reveals triggered by a play (twin, circled, called card);
* ``settle(state)``: units and the public multiplier of a finished hand.

Play itself (§2.2) is shared and lives in ``hand.py``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, ClassVar

from games.engine.cards import BJ_CODE, RANK_TWO, SJ_CODE, card_rank
from games.engine.errors import InvalidChoice, WrongPhase
from games.engine.memo import last_by_identity
from games.engine.scoring import finish
from games.engine.state import (
    BID,
    CALL,
    CALL_FRIEND,
    DOUBLE,
    FARMER_SIDE,
    GRAB,
    HIDDEN_SOLO,
    LANDLORD_SIDE,
    OPEN_SOLO,
    PARTNER,
    PHASE_BID,
    PHASE_CALL,
    PHASE_DOUBLE,
    PHASE_FINISHED,
    PHASE_GRAB,
    PHASE_PARTNER,
    PHASE_PLAY,
    PHASE_REDEAL,
    PHASE_REVEAL,
    PHASE_SHOW,
    REVEAL,
    SHOW,
    Action,
    HandState,
    PlayRecord,
)
from games.engine.variants import QQ5, Classic3, Fenzhou5, New5, Variant


def _pow2(n: int) -> int:
    return 1 << n


def _cap(value: int, cap: int | None) -> int:
    return value if cap is None else min(value, cap)


# how a term acts on the stake built so far
TIMES, PLUS, CAP, FROM, POW2 = "×", "+", "≤", "=", "2^"


@dataclass(frozen=True)
class StakeTerm:
    """One step of a seat's stake, in the order the rules apply it (the screen names ``key``
    in each variant's words): ``×`` multiplies by ``value`` ``count`` times (bombs, doubles),
    ``+`` adds ``value`` ``count`` times (fenzhou5's bonuses), ``≤`` caps at ``value``, ``=``
    starts from ``value`` (a landlord's stake: his farmers' total; new5's grab count) and
    ``2^`` raises 2 to what came before (new5's city scheme)."""

    key: str
    value: Fraction
    op: str = TIMES
    count: int = 1

    def to_json(self) -> dict[str, Any]:
        # a whole number as one; a share (1/2, 3/2) as its text
        value: int | str = int(self.value) if self.value.denominator == 1 else str(self.value)
        return {"key": self.key, "value": value, "op": self.op, "count": self.count}


def stake_units(terms: tuple[StakeTerm, ...]) -> Fraction:
    """The units the terms come to (a seat's stake before the room's base and coefficient)."""
    acc = Fraction(1)
    for t in terms:
        if t.op == TIMES:
            acc *= t.value**t.count
        elif t.op == PLUS:
            acc += t.value * t.count
        elif t.op == CAP:
            acc = min(acc, t.value)
        elif t.op == FROM:
            acc = t.value
        else:
            acc = Fraction(_pow2(int(acc)))
    return acc


def _capped(terms: list[StakeTerm], cap: int | None) -> list[StakeTerm]:
    if cap is not None and stake_units(tuple(terms)) > cap:
        terms.append(StakeTerm("cap", Fraction(cap), CAP))
    return terms


def _shared(terms: list[StakeTerm], share: Fraction) -> tuple[StakeTerm, ...]:
    if share != 1:
        terms.append(StakeTerm("share", share))
    return tuple(terms)


class Flow:
    """Shared behaviour; subclasses implement one variant's phases."""

    # copies of the marked identity the main landlord must play to reveal a hidden solo
    solo_reveal_copies: ClassVar[int] = 2
    # phases in which every waiting seat decides at once (the rest are sequential by ``turn``)
    simultaneous_phases: ClassVar[tuple[str, ...]] = ()
    # which act each pre-play phase accepts
    phase_acts: ClassVar[dict[str, str]] = {}
    # a landlord partner that may be hidden (qq5 暗地主, new5 副地主, fenzhou5 狗腿子)
    hidden_partner: ClassVar[bool] = True
    # qq5: from the reveal on, the two landlords see each other's hands
    partners_see_hands: ClassVar[bool] = False
    # copies of the marked identity the rules say the main landlord holds, beyond those shown
    # (new5 calls an identity he holds twice, fenzhou5 one he holds): the rest are all in one
    # hand, his own (a solo) or the hidden partner's (the bot's sampler reads it)
    landlord_marked_copies: ClassVar[int] = 0
    # decision windows fixed by the rules, in seconds (new5 grab and partner: 10 s, §2.5)
    fixed_windows: ClassVar[dict[str, int]] = {}
    # 加倍 asked one seat after another, so a later double follows an earlier one (跟加倍)
    doubles_in_turn: ClassVar[bool] = False

    def start(self, state: HandState) -> HandState:
        raise NotImplementedError

    def waiting(self, state: HandState) -> tuple[int, ...]:
        if state.finished:
            return ()
        return () if state.turn is None else (state.turn,)

    def choices(self, state: HandState, seat: int) -> list[Action]:
        return []

    def decide(self, state: HandState, action: Action) -> HandState:
        raise WrongPhase(f"no decision step in phase {state.phase!r}")

    def close_step(self, state: HandState) -> HandState:
        """End a simultaneous step everybody asked has decided (hand.py decides when)."""
        raise WrongPhase(f"no simultaneous step in phase {state.phase!r}")

    def publicly_asked(self, state: HandState) -> tuple[int, ...]:
        """The seats everybody knows a simultaneous step asks (the rest are secret)."""
        return ()

    def step_seen_by(self, state: HandState, seat: int | None) -> HandState:
        """An open simultaneous step as ``seat`` (None: a spectator) may see it: the others'
        decisions in it left out until it closes."""
        return state

    def default(self, state: HandState, seat: int) -> Action:
        raise WrongPhase(f"no decision step in phase {state.phase!r}")

    def start_play(self, state: HandState, leader: int, **changes: Any) -> HandState:
        return replace(
            state, phase=PHASE_PLAY, turn=leader, leader=leader, top=None, asked=(), **changes
        )

    def after_play(self, state: HandState, play: PlayRecord) -> HandState:
        """Reveal the partner when he plays the marked card, a hidden solo on his Nth copy."""
        if state.revealed or state.marked_card is None:
            return state
        copies = play.cards.count(state.marked_card)
        if not copies:
            return state
        if state.partner is not None and play.seat == state.partner:
            return replace(state, revealed=True)
        if state.solo and play.seat == state.landlord:
            played = state.marked_played + copies
            return replace(state, marked_played=played, revealed=played >= self.solo_reveal_copies)
        return state

    def settle(self, state: HandState) -> tuple[tuple[Fraction, ...], Any, bool, bool]:
        """(units per seat, public multiplier, spring, anti_spring) of a finished hand."""
        raise NotImplementedError

    def current_multiplier(self, state: HandState) -> int:
        """The multiplier as the table knows it so far (views and unfinished replays)."""
        raise NotImplementedError

    def stake_terms(self, state: HandState, seat: int) -> tuple[StakeTerm, ...]:
        """What ``seat``'s stake is made of so far (at the end: its settled units, unsigned)."""
        raise NotImplementedError

    def stake_known(self, state: HandState, seat: int) -> bool:
        """Whether ``seat`` may see its own stake now: not when it would tell him what the
        rules still hide (a hidden partner's choices)."""
        return True

    def bomb_term(self, state: HandState, play: PlayRecord) -> StakeTerm | None:
        """What a bomb played does to the stakes (None: nothing)."""
        return StakeTerm("bombs", Fraction(2)) if play.combo.is_bomb else None

    # helpers shared by the flows
    @staticmethod
    def played_by(state: HandState, seats: tuple[int, ...]) -> int:
        return sum(1 for p in state.plays if p.seat in seats)

    @staticmethod
    def signed(
        state: HandState, amounts: dict[int, Fraction], landlord_wins: bool
    ) -> tuple[Fraction, ...]:
        """Amounts are the landlord side's gains when it wins; flip for a farmer win."""
        units = [Fraction(0)] * state.seats
        side = state.landlord_side()
        for seat, amount in amounts.items():
            sign = 1 if (seat in side) == landlord_wins else -1
            units[seat] = sign * abs(amount)
        return tuple(units)


# --------------------------------------------------------------------------- qq5 (§3)
class QQ5Flow(Flow):
    simultaneous_phases = (PHASE_REVEAL, PHASE_DOUBLE)
    phase_acts = {PHASE_REVEAL: REVEAL, PHASE_DOUBLE: DOUBLE}
    solo_reveal_copies = 2  # the face-up copy is already known; the second one is the twin
    partners_see_hands = True

    def start(self, state: HandState) -> HandState:
        d = state.deal
        landlord = d.face_up_seat
        assert landlord is not None and d.face_up is not None
        hands = list(state.hands)
        hands[landlord] = tuple(sorted(hands[landlord] + d.bottom))
        twin_holders = [s for s in range(state.seats) if s != landlord and d.face_up in hands[s]]
        partner = twin_holders[0] if twin_holders else None
        asked = (landlord,) if partner is None else (landlord, partner)
        n = state.seats
        return replace(
            state,
            phase=PHASE_REVEAL,
            hands=tuple(hands),
            bottom=(),
            landlord=landlord,
            partner=partner,
            solo=partner is None,
            marked_card=d.face_up,
            asked=asked,
            reveals=(None,) * n,
            doubles=(None,) * n,
        )

    def waiting(self, state: HandState) -> tuple[int, ...]:
        if state.phase == PHASE_REVEAL:
            return tuple(s for s in state.asked if state.reveals[s] is None)
        if state.phase == PHASE_DOUBLE:
            return tuple(s for s in range(state.seats) if state.doubles[s] is None)
        return super().waiting(state)

    def choices(self, state: HandState, seat: int) -> list[Action]:
        act = self.phase_acts.get(state.phase)
        if act is None or seat not in self.waiting(state):
            return []
        return [Action(seat, act, True), Action(seat, act, False)]

    def default(self, state: HandState, seat: int) -> Action:
        act = self.phase_acts.get(state.phase)
        if act is None:
            raise WrongPhase(f"no timeout default in phase {state.phase!r}")
        return Action(seat, act, False)  # 放弃 / 不加倍

    def decide(self, state: HandState, action: Action) -> HandState:
        if not isinstance(action.value, bool):
            raise InvalidChoice(f"{action.act} takes true or false")
        seat = action.seat
        if state.phase == PHASE_REVEAL:
            reveals = list(state.reveals)
            reveals[seat] = action.value
            return replace(state, reveals=tuple(reveals))
        doubles = list(state.doubles)
        doubles[seat] = action.value
        return replace(state, doubles=tuple(doubles))

    def close_step(self, state: HandState) -> HandState:
        if state.phase == PHASE_REVEAL:
            revealed = any(state.reveals[s] for s in state.asked)
            return replace(
                state, phase=PHASE_DOUBLE, revealed=revealed, asked=tuple(range(state.seats))
            )
        assert state.landlord is not None
        return self.start_play(state, state.landlord)

    def publicly_asked(self, state: HandState) -> tuple[int, ...]:
        # the 明地主 is public, the 暗地主 (and whether there is one) is not; all five double
        assert state.landlord is not None
        return (state.landlord,) if state.phase == PHASE_REVEAL else tuple(range(state.seats))

    def step_seen_by(self, state: HandState, seat: int | None) -> HandState:
        # a 亮 counts in the multiplier and a 加倍 shows by its seat: the others' not before
        # the step closes
        field = "reveals" if state.phase == PHASE_REVEAL else "doubles"
        values = getattr(state, field)
        seen: dict[str, Any] = {
            field: tuple(v if s == seat else None for s, v in enumerate(values))
        }
        return replace(state, **seen)

    @staticmethod
    def doubling_bomb(play: PlayRecord) -> bool:
        """5炸 and up, 三王 and 天王 double; 4炸 and 双王 do not (§3.5)."""
        if not play.combo.is_bomb:
            return False
        ranks = play.combo.ranks
        jokers = sum(1 for r in ranks if r >= 16)
        if jokers == len(ranks):
            return jokers >= 3
        return len(ranks) >= 5

    def common_exponent(self, state: HandState) -> int:
        reveal = 1 if any(v for v in state.reveals if v) else 0
        bombs = _doubling_bombs(state.plays)
        return reveal + bombs

    def multiplier(self, state: HandState, spring: bool = False) -> int:
        doubles = sum(1 for v in state.doubles if v)
        m = _pow2(self.common_exponent(state) + doubles + (1 if spring else 0))
        return _cap(m, state.stakes.max_multiplier)

    def current_multiplier(self, state: HandState) -> int:
        return self.multiplier(state)

    def bomb_term(self, state: HandState, play: PlayRecord) -> StakeTerm | None:
        return StakeTerm("bombs", Fraction(2)) if self.doubling_bomb(play) else None

    def spring(self, state: HandState) -> bool:
        if not state.finished:
            return False
        landlord_wins = state.winner_side == LANDLORD_SIDE
        losers = state.farmer_side() if landlord_wins else state.landlord_side()
        return self.played_by(state, losers) == 0

    def per_player(self, state: HandState) -> bool:
        return state.variant.options.get("qq5_double_scope") == "per_player"

    def farmer_terms(self, state: HandState, seat: int) -> list[StakeTerm]:
        terms = []
        if any(v for v in state.reveals if v):
            terms.append(StakeTerm("reveal", Fraction(2)))
        bombs = _doubling_bombs(state.plays)
        if bombs:
            terms.append(StakeTerm("bombs", Fraction(2), count=bombs))
        if self.per_player(state):
            # each farmer's stake counts his own 加倍 and the landlords' (CHOICE)
            doublers = [*state.landlord_side(), seat]
        else:
            doublers = list(range(state.seats))
        doubles = sum(1 for s in doublers if state.doubles and state.doubles[s])
        if doubles:
            terms.append(StakeTerm("doubles", Fraction(2), count=doubles))
        if self.spring(state):
            terms.append(StakeTerm("spring", Fraction(2)))
        return _capped(terms, state.stakes.max_multiplier)

    def stake_terms(self, state: HandState, seat: int) -> tuple[StakeTerm, ...]:
        side = state.landlord_side()
        if seat not in side:
            return tuple(self.farmer_terms(state, seat))
        total = sum(
            (stake_units(tuple(self.farmer_terms(state, f))) for f in state.farmer_side()),
            Fraction(0),
        )
        return _shared([StakeTerm("farmers", total, FROM)], Fraction(1, len(side)))

    def stake_known(self, state: HandState, seat: int) -> bool:
        # per player, a farmer's stake counts the landlords' doubles: it would name them
        hidden = not (state.revealed or state.finished) and seat not in state.landlord_side()
        return not (hidden and self.per_player(state))

    def settle(self, state: HandState) -> tuple[tuple[Fraction, ...], Any, bool, bool]:
        landlord_wins = state.winner_side == LANDLORD_SIDE
        spring = self.spring(state)
        amounts = {s: stake_units(self.stake_terms(state, s)) for s in range(state.seats)}
        return (
            self.signed(state, amounts, landlord_wins),
            self.multiplier(state, spring),
            spring,
            False,
        )


# --------------------------------------------------------------------------- new5 (§4)
def _new5_material(state: HandState) -> tuple[int, ...]:
    """Grab identities: the four suits of the 明牌 rank, SJ and BJ."""
    face = state.deal.face_up
    assert face is not None
    first = face - face % 4
    return (first, first + 1, first + 2, first + 3, SJ_CODE, BJ_CODE)


def _grab_order(code: int) -> int:
    """BJ > SJ > ♠ > ♥ > ♣ > ♦ (docs/rules.md §4.4)."""
    if code == BJ_CODE:
        return 5
    if code == SJ_CODE:
        return 4
    return code % 4  # suits "dchs": ♦ 0, ♣ 1, ♥ 2, ♠ 3


@last_by_identity
def _doubling_bombs(plays: tuple[PlayRecord, ...]) -> int:
    return sum(1 for p in plays if QQ5Flow.doubling_bomb(p))


class New5Flow(Flow):
    simultaneous_phases = (PHASE_GRAB,)
    phase_acts = {PHASE_GRAB: GRAB, PHASE_PARTNER: PARTNER}
    fixed_windows = {PHASE_GRAB: 10, PHASE_PARTNER: 10}
    solo_reveal_copies = 1  # the circled copy is the first of the three he plays (CHOICE)
    landlord_marked_copies = 2

    def start(self, state: HandState) -> HandState:
        state = replace(
            state,
            phase=PHASE_GRAB,
            bottom=state.deal.bottom,
            grabs=(),
            grab_done=(False,) * state.seats,
        )
        done = tuple(not self.available(state, s) for s in range(state.seats))
        return replace(
            state, grab_done=done, asked=tuple(s for s in range(state.seats) if not done[s])
        )

    def available(self, state: HandState, seat: int) -> list[int]:
        hand = Counter(state.hands[seat])
        used = Counter(code for s, code in state.grabs if s == seat)
        return [c for c in _new5_material(state) if used[c] < hand[c] - 1]

    def waiting(self, state: HandState) -> tuple[int, ...]:
        if state.phase == PHASE_GRAB:
            return tuple(s for s in range(state.seats) if not state.grab_done[s])
        return super().waiting(state)

    def step_seen_by(self, state: HandState, seat: int | None) -> HandState:
        return replace(state, grabs=tuple(g for g in state.grabs if g[0] == seat))

    def partner_options(self, state: HandState) -> list[str]:
        assert state.landlord is not None
        counts = Counter(c for c in state.hands[state.landlord] if c < SJ_CODE)
        options = [OPEN_SOLO]
        if any(n == 3 for n in counts.values()):
            options.append(HIDDEN_SOLO)
        if any(n == 2 for n in counts.values()):
            options.append(CALL_FRIEND)
        return options

    def choices(self, state: HandState, seat: int) -> list[Action]:
        if seat not in self.waiting(state):
            return []
        if state.phase == PHASE_GRAB:
            return [Action(seat, GRAB, c) for c in self.available(state, seat)] + [
                Action(seat, GRAB, None)
            ]
        if state.phase == PHASE_PARTNER:
            return [Action(seat, PARTNER, o) for o in self.partner_options(state)]
        return []

    def default(self, state: HandState, seat: int) -> Action:
        if state.phase == PHASE_GRAB:
            return Action(seat, GRAB, None)
        if state.phase == PHASE_PARTNER:
            options = self.partner_options(state)
            return Action(seat, PARTNER, CALL_FRIEND if CALL_FRIEND in options else OPEN_SOLO)
        raise WrongPhase(f"no timeout default in phase {state.phase!r}")

    def decide(self, state: HandState, action: Action) -> HandState:
        seat = action.seat
        if state.phase == PHASE_GRAB:
            done = list(state.grab_done)
            if action.value is None:
                done[seat] = True
            else:
                if action.value not in self.available(state, seat):
                    raise InvalidChoice("no grab left with that card")
                state = replace(state, grabs=(*state.grabs, (seat, action.value)))
                done[seat] = not self.available(state, seat)
            return replace(state, grab_done=tuple(done))
        if action.value not in self.partner_options(state):
            raise InvalidChoice(f"partner choice must be one of {self.partner_options(state)}")
        return self.choose_partner(state, action.value)

    def close_step(self, state: HandState) -> HandState:
        """The grab closes: the strongest grab takes the bottom (§4.4 steps 2-4)."""
        best: tuple[int, int] | None = None
        landlord = state.deal.face_up_seat
        seen: Counter[tuple[int, int]] = Counter()
        for seat, code in state.grabs:
            level = seen[(seat, code)]  # 0 for the pair level, 1 for the triple level
            seen[(seat, code)] += 1
            strength = (level, _grab_order(code))
            if best is None or strength > best:
                best, landlord = strength, seat
        assert landlord is not None
        hands = list(state.hands)
        hands[landlord] = tuple(sorted(hands[landlord] + state.bottom))
        state = replace(state, hands=tuple(hands), bottom=(), landlord=landlord, asked=(landlord,))
        reason = self.auto_win(hands[landlord])
        if reason is not None:
            return finish(replace(state, auto_win=reason, solo=True), LANDLORD_SIDE, self.settle)
        return replace(state, phase=PHASE_PARTNER, turn=landlord)

    @staticmethod
    def auto_win(hand: tuple[int, ...]) -> str | None:
        """The three auto-win checks of §4.4 step 4, or None."""
        ids = Counter(c for c in hand if c < SJ_CODE)
        ranks = Counter(card_rank(c) for c in hand if c < SJ_CODE)
        if all(n < 2 for n in ids.values()):
            return "no_partner_card"
        if any(n >= 10 for n in ranks.values()):
            return "ten_of_a_rank"
        sj, bj = hand.count(SJ_CODE), hand.count(BJ_CODE)
        if all(n < 4 for n in ranks.values()) and sj < 3 and bj < 3 and sj + bj < 4:
            return "no_bomb"
        return None

    def choose_partner(self, state: HandState, mode: str) -> HandState:
        landlord = state.landlord
        assert landlord is not None
        counts = Counter(c for c in state.hands[landlord] if c < SJ_CODE)
        changes: dict[str, Any] = {"partner_mode": mode}
        if mode == OPEN_SOLO:
            changes.update(solo=True, partner=None, revealed=True)
        elif mode == HIDDEN_SOLO:
            card = min(c for c, n in counts.items() if n == 3)
            changes.update(solo=True, partner=None, marked_card=card)
        else:
            card = min(c for c, n in counts.items() if n == 2)
            holder = next(s for s in range(state.seats) if s != landlord and card in state.hands[s])
            changes.update(solo=False, partner=holder, marked_card=card)
        return self.start_play(state, landlord, **changes)

    def base_multiple(self, state: HandState) -> int:
        d = len(state.grabs) or 1
        return d * 2 if state.partner_mode == OPEN_SOLO else d

    def current_multiplier(self, state: HandState) -> int:
        return self.base_multiple(state)

    def bomb_term(self, state: HandState, play: PlayRecord) -> StakeTerm | None:
        return None  # the grabs make the stake (§4.5); bombs change nothing

    def stake_terms(self, state: HandState, seat: int) -> tuple[StakeTerm, ...]:
        terms = [StakeTerm("grabs", Fraction(len(state.grabs) or 1), FROM)]
        if state.partner_mode == OPEN_SOLO:
            terms.append(StakeTerm("open_solo", Fraction(2)))
        if state.variant.options.get("new5_scheme") != "level":
            terms.append(StakeTerm("city", Fraction(2), POW2))
        terms = _capped(terms, state.stakes.max_multiplier)
        # §4.5: 正地主 ±2 units and 副地主 ±1 against three farmers; alone ±4 (once chosen).
        side = state.landlord_side()
        if seat not in side or not (state.phase == PHASE_PLAY or state.finished):
            return tuple(terms)
        if len(side) == 1:
            return _shared(terms, Fraction(state.seats - 1))
        return _shared(terms, Fraction(2) if seat == side[0] else Fraction(1))

    def settle(self, state: HandState) -> tuple[tuple[Fraction, ...], Any, bool, bool]:
        amounts = {s: stake_units(self.stake_terms(state, s)) for s in range(state.seats)}
        landlord_wins = state.winner_side == LANDLORD_SIDE
        return self.signed(state, amounts, landlord_wins), self.base_multiple(state), False, False


# --------------------------------------------------------------------------- classic3 (§5)
class Classic3Flow(Flow):
    phase_acts = {PHASE_BID: BID, PHASE_DOUBLE: DOUBLE, PHASE_SHOW: SHOW}
    hidden_partner = False
    doubles_in_turn = True

    def start(self, state: HandState) -> HandState:
        n = state.seats
        return replace(
            state,
            phase=PHASE_BID,
            turn=state.deal.face_up_seat,
            bottom=state.deal.bottom,
            bids=(None,) * n,
            doubles=(None,) * n,
        )

    def highest(self, state: HandState) -> int:
        return max((b for b in state.bids if b), default=0)

    def choices(self, state: HandState, seat: int) -> list[Action]:
        if seat not in self.waiting(state):
            return []
        if state.phase == PHASE_BID:
            top = self.highest(state)
            return [Action(seat, BID, 0)] + [
                Action(seat, BID, v) for v in range(top + 1, Classic3.MAX_BID + 1)
            ]
        if state.phase in (PHASE_DOUBLE, PHASE_SHOW):
            act = self.phase_acts[state.phase]
            return [Action(seat, act, True), Action(seat, act, False)]
        return []

    def default(self, state: HandState, seat: int) -> Action:
        if state.phase == PHASE_BID:
            return Action(seat, BID, 0)
        if state.phase in (PHASE_DOUBLE, PHASE_SHOW):
            return Action(seat, self.phase_acts[state.phase], False)  # 不加倍 / no 明牌
        raise WrongPhase(f"no timeout default in phase {state.phase!r}")

    def decide(self, state: HandState, action: Action) -> HandState:
        seat = action.seat
        if state.phase == PHASE_BID:
            value = action.value
            if not isinstance(value, int) or isinstance(value, bool):
                raise InvalidChoice("a bid is 0 (不叫), 1, 2 or 3")
            top = self.highest(state)
            if value != 0 and not top < value <= Classic3.MAX_BID:
                raise InvalidChoice(f"a bid must be 0 or exceed {top}, up to {Classic3.MAX_BID}")
            bids = list(state.bids)
            bids[seat] = value
            state = replace(state, bids=tuple(bids))
            if value == Classic3.MAX_BID:
                return self.start_doubling(state, seat)
            nxt = state.next_seat(seat)
            if state.bids[nxt] is None:
                return replace(state, turn=nxt)
            top = self.highest(state)
            if top == 0:
                return replace(
                    state, phase=PHASE_REDEAL, turn=None, finished=True, winner_side=None
                )
            return self.start_doubling(state, state.bids.index(top))
        if not isinstance(action.value, bool):
            raise InvalidChoice(f"{action.act} takes true or false")
        if state.phase == PHASE_SHOW:
            landlord = state.landlord
            assert landlord is not None
            return self.start_play(state, landlord, shown=action.value)
        doubles = list(state.doubles)
        doubles[seat] = action.value
        state = replace(state, doubles=tuple(doubles))
        rest = [s for s in state.asked if doubles[s] is None]
        return replace(state, turn=rest[0]) if rest else self.reveal_bottom(state)

    def start_doubling(self, state: HandState, landlord: int) -> HandState:
        order = [(landlord + k) % state.seats for k in range(1, state.seats)]
        eligible = tuple(s for s in order if state.bids[s] is None)
        state = replace(state, landlord=landlord, asked=eligible)
        if not eligible:
            return self.reveal_bottom(state)
        return replace(state, phase=PHASE_DOUBLE, turn=eligible[0])

    def reveal_bottom(self, state: HandState) -> HandState:
        landlord = state.landlord
        assert landlord is not None
        hands = list(state.hands)
        hands[landlord] = tuple(sorted(hands[landlord] + state.bottom))
        taken: dict[str, Any] = {"hands": tuple(hands), "bottom": (), "bottom_public": True}
        if state.variant.options.get("classic3_show_cards"):
            # 明牌 (§5.4): with his 20 cards in hand the landlord may show them for ×2
            return replace(state, phase=PHASE_SHOW, turn=landlord, asked=(landlord,), **taken)
        return self.start_play(state, landlord, **taken)

    def current_multiplier(self, state: HandState) -> int:
        return _pow2(min(self.counts(state, False, False), Classic3.MAX_DOUBLINGS))

    def counts(self, state: HandState, spring: bool, anti: bool) -> int:
        bombs = sum(1 for p in state.plays if p.combo.is_bomb)
        return bombs + (1 if spring else 0) + (1 if anti else 0) + (1 if state.shown else 0)

    def springs(self, state: HandState) -> tuple[bool, bool]:
        """(spring, anti-spring) of a finished hand."""
        landlord = state.landlord
        if not state.finished or landlord is None:
            return False, False
        landlord_wins = state.winner_side == LANDLORD_SIDE
        spring = landlord_wins and self.played_by(state, state.farmer_side()) == 0
        anti = (not landlord_wins) and self.played_by(state, (landlord,)) == 1
        return spring, anti

    def farmer_terms(self, state: HandState, seat: int) -> tuple[StakeTerm, ...]:
        """bid × 2^d, d = bombs and rockets + spring + anti-spring + 明牌 + his 加倍, at most 4."""
        spring, anti = self.springs(state)
        bombs = sum(1 for p in state.plays if p.combo.is_bomb)
        terms = [StakeTerm("bombs", Fraction(2), count=bombs)] if bombs else []
        doublings = (("spring", spring), ("anti_spring", anti), ("show", state.shown))
        terms += [StakeTerm(k, Fraction(2)) for k, on in doublings if on]
        if state.doubles and state.doubles[seat]:
            terms.append(StakeTerm("double", Fraction(2)))
        terms = _capped(terms, _pow2(Classic3.MAX_DOUBLINGS))
        bid = self.highest(state)
        if bid:
            terms.append(StakeTerm("bid", Fraction(bid)))
        return tuple(terms)

    def stake_terms(self, state: HandState, seat: int) -> tuple[StakeTerm, ...]:
        if seat != state.landlord:
            return self.farmer_terms(state, seat)
        total = sum(
            (stake_units(self.farmer_terms(state, f)) for f in state.farmer_side()), Fraction(0)
        )
        return (StakeTerm("farmers", total, FROM),)

    def settle(self, state: HandState) -> tuple[tuple[Fraction, ...], Any, bool, bool]:
        landlord_wins = state.winner_side == LANDLORD_SIDE
        spring, anti = self.springs(state)
        amounts = {s: stake_units(self.stake_terms(state, s)) for s in range(state.seats)}
        multiplier = _pow2(min(self.counts(state, spring, anti), Classic3.MAX_DOUBLINGS))
        return self.signed(state, amounts, landlord_wins), multiplier, spring, anti


# --------------------------------------------------------------------------- fenzhou5 (§6)
FENZHOU_BONUS = {"bomb": 1, "chain_bomb": 3, "missile": 4, "multi_chain_bomb": 5, "nuke": 7}


class Fenzhou5Flow(Flow):
    phase_acts = {PHASE_CALL: CALL}
    solo_reveal_copies = 2
    landlord_marked_copies = 1

    def start(self, state: HandState) -> HandState:
        landlord = state.deal.landlord_seat
        return replace(state, phase=PHASE_CALL, landlord=landlord, turn=landlord)

    def callable_cards(self, state: HandState) -> list[int]:
        """Identities he may call: held, not a 2, not a joker. With solo calls switched off
        (``fenzhou_allow_solo_call``) only cards held once, unless he holds none (CHOICE)."""
        assert state.landlord is not None
        counts = Counter(state.hands[state.landlord])
        cards = sorted(c for c in counts if c < SJ_CODE and card_rank(c) != RANK_TWO)
        if not state.variant.options.get("fenzhou_allow_solo_call", True):
            singles = [c for c in cards if counts[c] == 1]
            return singles or cards
        return cards

    def choices(self, state: HandState, seat: int) -> list[Action]:
        if state.phase != PHASE_CALL or seat not in self.waiting(state):
            return []
        return [Action(seat, CALL, c) for c in self.callable_cards(state)]

    def default(self, state: HandState, seat: int) -> Action:
        if state.phase != PHASE_CALL:
            raise WrongPhase(f"no timeout default in phase {state.phase!r}")
        # the lowest card he holds once (a partner call); failing that the lowest callable (CHOICE)
        assert state.landlord is not None
        hand = state.hands[state.landlord]
        cards = self.callable_cards(state)
        singles = [c for c in cards if hand.count(c) == 1]
        return Action(seat, CALL, (singles or cards)[0])

    def decide(self, state: HandState, action: Action) -> HandState:
        code = action.value
        if not isinstance(code, int) or isinstance(code, bool):
            raise InvalidChoice("call names one card, e.g. 9h")
        if code >= SJ_CODE or card_rank(code) == RANK_TWO:
            raise InvalidChoice("the called card may not be a 2 or a joker")
        landlord = state.landlord
        assert landlord is not None
        held = state.hands[landlord].count(code)
        if held == 0:
            raise InvalidChoice("the landlord must call a card he holds")
        if code not in self.callable_cards(state):
            raise InvalidChoice("this room does not allow calling a card held twice")
        if held == 2:
            return self.start_play(state, landlord, marked_card=code, solo=True, partner=None)
        holder = next(s for s in range(state.seats) if s != landlord and code in state.hands[s])
        return self.start_play(state, landlord, marked_card=code, solo=False, partner=holder)

    @staticmethod
    def bonus_kind(play: PlayRecord) -> str | None:
        ranks = play.combo.ranks
        if not play.combo.is_bomb:
            return None
        jokers = sum(1 for r in ranks if r >= 16)
        if jokers:
            if jokers == 4 or (jokers == 2 and ranks[0] != ranks[1]):
                return "nuke"
            return "bomb"
        distinct = len(set(ranks))
        if len(ranks) == 4:
            return "bomb"
        if distinct == 1:
            return "missile"
        return "chain_bomb" if distinct == 2 else "multi_chain_bomb"

    def current_multiplier(self, state: HandState) -> int:
        return self.unit(state)

    def bomb_term(self, state: HandState, play: PlayRecord) -> StakeTerm | None:
        kind = self.bonus_kind(play)
        if kind is None or not self.bonus_counts(state, play):
            return None
        return StakeTerm(kind, Fraction(FENZHOU_BONUS[kind]), PLUS)

    @staticmethod
    def bonus_counts(state: HandState, play: PlayRecord) -> bool:
        count_all = state.variant.options.get("fenzhou_bonus_counts_all_bombs", True)
        if count_all or not state.finished:
            return True
        landlord_wins = state.winner_side == LANDLORD_SIDE
        winners = state.landlord_side() if landlord_wins else state.farmer_side()
        return play.seat in winners

    def unit_terms(self, state: HandState) -> list[StakeTerm]:
        """u = 1 + each counted play's bonus (§6.7), in the order the kinds first came."""
        counts: Counter[str] = Counter()
        for p in state.plays:
            term = self.bomb_term(state, p)
            if term is not None:
                counts[term.key] += 1
        terms = [StakeTerm("unit", Fraction(1), FROM)]
        terms += [StakeTerm(k, Fraction(FENZHOU_BONUS[k]), PLUS, n) for k, n in counts.items()]
        return _capped(terms, state.stakes.max_multiplier)

    def unit(self, state: HandState) -> int:
        return int(stake_units(tuple(self.unit_terms(state))))

    def stake_terms(self, state: HandState, seat: int) -> tuple[StakeTerm, ...]:
        # §6.7: landlord and 狗腿子 ±1.5u each against three farmers; a solo landlord ±4u.
        terms = self.unit_terms(state)
        side = state.landlord_side()
        if seat not in side or not (state.phase == PHASE_PLAY or state.finished):
            return tuple(terms)  # a landlord's share is known once his card is called
        return _shared(terms, Fraction(state.seats - 1) if len(side) == 1 else Fraction(3, 2))

    def settle(self, state: HandState) -> tuple[tuple[Fraction, ...], Any, bool, bool]:
        amounts = {s: stake_units(self.stake_terms(state, s)) for s in range(state.seats)}
        landlord_wins = state.winner_side == LANDLORD_SIDE
        return self.signed(state, amounts, landlord_wins), self.unit(state), False, False


FLOWS: dict[type[Variant], Flow] = {
    QQ5: QQ5Flow(),
    New5: New5Flow(),
    Classic3: Classic3Flow(),
    Fenzhou5: Fenzhou5Flow(),
}


def flow_for(variant: Variant) -> Flow:
    for cls in type(variant).__mro__:
        if cls in FLOWS:
            return FLOWS[cls]
    raise WrongPhase(f"no hand flow for variant {variant.key!r}")


__all__ = [
    "FARMER_SIDE",
    "FLOWS",
    "LANDLORD_SIDE",
    "PHASE_FINISHED",
    "Flow",
    "StakeTerm",
    "flow_for",
    "stake_units",
]
