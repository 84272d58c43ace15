"""The hand's immutable state and its actions (docs/rules.md §2, §8.4).

``HandState`` is a frozen dataclass of tuples: one instance per moment of a hand, never
mutated. The per-variant flows in ``flows.py`` build new states with ``dataclasses.replace``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from games.engine.cards import format_card, format_cards, parse_cards
from games.engine.errors import CardsNotHeld, EngineError, InvalidNotation, UnknownAct
from games.engine.variants import Variant

if TYPE_CHECKING:
    from games.engine.beans import RoomStakes
    from games.engine.combos import Combo
    from games.engine.dealing import Deal

CardCode = int

# act names of docs/rules.md §8.4
BID, GRAB, REVEAL, DOUBLE, PARTNER, CALL = "bid", "grab", "reveal", "double", "partner", "call"
SHOW = "show"  # classic3 明牌: the landlord shows his hand to everyone (option classic3_show_cards)
PLAY, PASS, TIMEOUT, AUTOPLAY = "play", "pass", "timeout", "autoplay"
CLOSE = "close"  # the server closes a sealed simultaneous step (see HandState.sealed_steps)
ACTS = (BID, GRAB, REVEAL, DOUBLE, PARTNER, CALL, SHOW, PLAY, PASS, TIMEOUT, AUTOPLAY, CLOSE)
_VALUE_ACTS = (BID, GRAB, REVEAL, DOUBLE, PARTNER, CALL, SHOW, AUTOPLAY)
_CARD_VALUE_ACTS = (GRAB, CALL)

# phases
PHASE_BID = "bid"
PHASE_GRAB = "grab"
PHASE_REVEAL = "reveal"
PHASE_DOUBLE = "double"
PHASE_PARTNER = "partner"
PHASE_CALL = "call"
PHASE_SHOW = "show"
PHASE_PLAY = "play"
PHASE_FINISHED = "finished"
PHASE_REDEAL = "redeal"

# sides
LANDLORD_SIDE = "landlord"
FARMER_SIDE = "farmer"

# new5 partner choices
OPEN_SOLO, HIDDEN_SOLO, CALL_FRIEND = "open_solo", "hidden_solo", "call_friend"


@dataclass(frozen=True)
class Action:
    """One decision of one seat, in the JSON form of docs/rules.md §8.4.

    ``value``: bid int 0..3; grab/call a card code (None = grab no more); reveal/double/autoplay
    bool; partner one of open_solo/hidden_solo/call_friend; play an optional declared combo kind
    for a lead (§2.4). ``cards``: the played card codes (sorted) for ``play``.
    """

    seat: int
    act: str
    value: Any = None
    cards: tuple[CardCode, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seat": self.seat, "act": self.act}
        if self.act in _CARD_VALUE_ACTS:
            out["value"] = None if self.value is None else format_card(self.value)
        elif self.act in _VALUE_ACTS or self.value is not None:
            out["value"] = self.value
        if self.cards is not None:
            out["cards"] = format_cards(self.cards)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Action:
        if not isinstance(data, dict):
            raise EngineError("an action is a JSON object")
        try:
            seat, act = data["seat"], data["act"]
        except KeyError as exc:
            raise EngineError(f"an action needs {exc.args[0]!r}") from None
        if not isinstance(seat, int) or isinstance(seat, bool):
            raise EngineError("an action's seat is an integer")
        if act not in ACTS:
            raise UnknownAct(f"unknown act {act!r}; known: {', '.join(ACTS)}")
        value = data.get("value")
        if act in _CARD_VALUE_ACTS and value is not None:
            codes = parse_cards(str(value))
            if len(codes) != 1:
                raise InvalidNotation(f"{act} names exactly one card, not {value!r}")
            value = codes[0]
        cards = None
        if act == PLAY:
            raw = data.get("cards")
            if isinstance(raw, list):
                raw = " ".join(str(c) for c in raw)
            if not isinstance(raw, str):
                raise EngineError("a play needs 'cards' in suited notation")
            cards = tuple(sorted(parse_cards(raw)))
        return cls(seat=seat, act=act, value=value, cards=cards)

    def __repr__(self) -> str:
        return f"Action.from_json({self.to_json()!r})"


@dataclass(frozen=True)
class PlayRecord:
    """One play of the hand: who, which cards, which reading."""

    seat: int
    cards: tuple[CardCode, ...]
    combo: Combo


@dataclass(frozen=True)
class Result:
    """Settlement of a finished hand: units (§3.6, §4.5, §5.5, §6.7) and beans (§7)."""

    units: tuple[Fraction, ...]
    beans: tuple[int, ...]
    house: int
    multiplier: Any
    spring: bool = False
    anti_spring: bool = False


@dataclass(frozen=True)
class HandState:
    variant: Variant
    deal: Deal
    stakes: RoomStakes
    balances: tuple[int | None, ...] | None
    phase: str
    hands: tuple[tuple[CardCode, ...], ...]
    turn: int | None = None  # the seat to act in a sequential phase, None in a simultaneous one
    bottom: tuple[CardCode, ...] = ()  # the bottom while nobody holds it yet
    bottom_public: bool = False
    # roles (truth; views decide what is known)
    landlord: int | None = None  # 明地主 / 正地主 / classic3 and fenzhou5 landlord
    partner: int | None = None  # 暗地主 / 副地主 / 狗腿子, None when solo or not yet known
    solo: bool = False
    marked_card: CardCode | None = None  # qq5 twin identity, new5 circled card, fenzhou5 call
    revealed: bool = False  # partner (or the solo) publicly known
    marked_played: int = 0  # copies of the marked identity the main landlord has played
    shown: bool = False  # classic3 明牌: the landlord's hand is face up from his show on
    # decisions
    bids: tuple[int | None, ...] = ()
    doubles: tuple[bool | None, ...] = ()
    reveals: tuple[bool | None, ...] = ()
    grabs: tuple[tuple[int, CardCode], ...] = ()  # (seat, identity) in click order
    grab_done: tuple[bool, ...] = ()
    partner_mode: str | None = None
    asked: tuple[int, ...] = ()  # seats asked in the current decision step
    # play
    leader: int | None = None
    top: PlayRecord | None = None
    passes: int = 0
    trick: tuple[tuple[int, tuple[CardCode, ...] | None], ...] = ()
    plays: tuple[PlayRecord, ...] = ()
    autoplay: tuple[bool, ...] = ()
    # the end
    finished: bool = False
    winner_side: str | None = None
    auto_win: str | None = None
    result: Result | None = None
    history: tuple[Action, ...] = field(default=())
    # Sealed steps: a simultaneous step stays open once everybody asked has decided, until a
    # ``close`` action (the server's, after the step's minimum time) ends it as one transition,
    # so nobody learns from its length how many were asked. Without it (the pure rules, and
    # records from before) the last decision closes the step.
    sealed_steps: bool = False
    # how many of the actions the table has seen: all but the decisions inside a sealed step,
    # which it learns all at once from the step's close
    public_version: int = 0

    @property
    def seats(self) -> int:
        return self.variant.seats

    def next_seat(self, seat: int) -> int:
        return (seat + 1) % self.variant.seats

    def landlord_side(self) -> tuple[int, ...]:
        """The true landlord side (main landlord first)."""
        if self.landlord is None:
            return ()
        if self.partner is None or self.partner == self.landlord:
            return (self.landlord,)
        return (self.landlord, self.partner)

    def farmer_side(self) -> tuple[int, ...]:
        side = self.landlord_side()
        return tuple(s for s in range(self.seats) if s not in side)


def remove_cards(hand: tuple[CardCode, ...], cards: tuple[CardCode, ...]) -> tuple[CardCode, ...]:
    """The hand without ``cards`` (a multiset), or CardsNotHeld."""
    have = Counter(hand)
    want = Counter(cards)
    missing = want - have
    if missing:
        raise CardsNotHeld(f"not in hand: {format_cards(missing.elements())}")
    return tuple(sorted((have - want).elements()))
