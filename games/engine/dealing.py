"""Provably fair dealing from an injected seed (docs/rules.md §2.1, §3.4, §4.4, §5.1, §6.2).

Nothing here touches the global ``random`` module. Every draw comes from a ``random.Random``
seeded with an integer derived from SHA-256 of the seed text and a purpose label, so the
shuffle, the face-up card and the first fenzhou5 landlord are independent of each other and
reproducible by anyone who knows the seed (``python -m games.engine verify``).

Fairness protocol: the server draws ``new_seed()``, publishes ``seed_commitment(seed)`` before
the deal and the seed itself after the hand; ``verify`` recomputes the deal from the seed.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from dataclasses import dataclass, field
from typing import Any

from games.engine.cards import CARDS_PER_DECK, SJ_CODE, format_card, format_cards, parse_cards
from games.engine.errors import EngineError
from games.engine.variants import Variant, find_variant

CardCode = int


def new_seed() -> str:
    """A fresh unpredictable seed (64 hex digits from ``secrets``)."""
    return secrets.token_hex(32)


def seed_commitment(seed: str) -> str:
    """The SHA-256 hex digest of the seed, published before the deal."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def _rng(seed: str, purpose: str) -> random.Random:
    digest = hashlib.sha256(f"{seed}|{purpose}".encode()).digest()
    return random.Random(int.from_bytes(digest, "big"))


@dataclass(frozen=True)
class Deal:
    """The cards as dealt, before any decision.

    ``hands`` are sorted card codes per seat (for fenzhou5 the landlord's 24 included);
    ``bottom`` the face-down 底牌; ``face_up`` the identity of the 明牌 and ``face_up_seat``
    the seat holding that physical copy (None where the variant has none); ``landlord_seat``
    only for fenzhou5. The seed and hand number are provenance and do not take part in equality.
    """

    variant_key: str
    hands: tuple[tuple[CardCode, ...], ...]
    bottom: tuple[CardCode, ...]
    face_up: CardCode | None = None
    face_up_seat: int | None = None
    landlord_seat: int | None = None
    seed: str | None = field(default=None, compare=False)
    hand_number: int = field(default=0, compare=False)

    def to_json(self) -> dict[str, Any]:
        """The ``deal`` object of a hand record (docs/rules.md §8.4)."""
        out: dict[str, Any] = {
            "hands": [format_cards(hand) for hand in self.hands],
            "bottom": format_cards(self.bottom),
        }
        if self.face_up is not None:
            out["face_up"] = {"card": format_card(self.face_up), "seat": self.face_up_seat}
        if self.landlord_seat is not None:
            out["landlord_seat"] = self.landlord_seat
        return out

    @classmethod
    def from_json(cls, variant: Variant, data: dict[str, Any]) -> Deal:
        try:
            hands = tuple(tuple(sorted(parse_cards(text))) for text in data["hands"])
            bottom = tuple(sorted(parse_cards(data.get("bottom", ""))))
        except (KeyError, TypeError) as exc:
            raise EngineError(f"deal needs 'hands' (a list of card strings): {exc}") from None
        face = data.get("face_up")
        face_up = face_seat = None
        if face is not None:
            codes = parse_cards(face["card"])
            if len(codes) != 1:
                raise EngineError("face_up.card must name exactly one card")
            face_up, face_seat = codes[0], int(face["seat"])
        landlord = data.get("landlord_seat")
        deal = cls(
            variant_key=variant.key,
            hands=hands,
            bottom=bottom,
            face_up=face_up,
            face_up_seat=face_seat,
            landlord_seat=None if landlord is None else int(landlord),
        )
        check_deal(variant, deal)
        return deal


def check_deal(variant: Variant, d: Deal) -> None:
    """Raise EngineError unless the deal uses exactly the variant's cards in the right sizes."""
    if len(d.hands) != variant.seats:
        raise EngineError(f"{variant.key} deals {variant.seats} hands, not {len(d.hands)}")
    counts = [0] * CARDS_PER_DECK
    for code in (c for hand in d.hands for c in hand):
        counts[code] += 1
    for code in d.bottom:
        counts[code] += 1
    if any(n != variant.decks for n in counts):
        raise EngineError(f"{variant.key} deals every card identity exactly {variant.decks} times")
    if len(d.bottom) != variant.bottom_size:
        raise EngineError(f"{variant.key} has {variant.bottom_size} bottom cards")
    for seat, hand in enumerate(d.hands):
        want = variant.hand_size
        if variant.bottom_size == 0 and seat == d.landlord_seat:
            want = variant.landlord_hand_size
        if len(hand) != want:
            raise EngineError(f"seat {seat} must be dealt {want} cards, not {len(hand)}")
    if variant.bottom_size == 0 and (d.landlord_seat is None or d.face_up is not None):
        raise EngineError(f"{variant.key} deals name a landlord_seat and no face-up card")
    if variant.bottom_size and d.face_up is None:
        raise EngineError(f"{variant.key} deals name a face-up card and its seat")
    if d.face_up is not None:
        face_seat = d.face_up_seat
        if (
            face_seat is None
            or not 0 <= face_seat < variant.seats
            or d.face_up not in d.hands[face_seat]
        ):
            raise EngineError("the face-up card must be in its seat's hand")
        if not variant.face_up_jokers and d.face_up >= SJ_CODE:
            raise EngineError(f"{variant.key} never turns a joker face up")


def deal(
    variant: Variant, seed: str, *, hand_number: int = 0, landlord_seat: int | None = None
) -> Deal:
    """Shuffle ``variant.decks`` physical decks with the seed's RNG and deal them.

    Physical card id = deck_index * 54 + code (docs/rules.md §2.1); hands hold codes. Seats take
    consecutive blocks of the shuffled deck. qq5/new5 turn up one physical non-joker card among
    the dealt ones (never the bottom), classic3 one of the 51 dealt cards (jokers allowed).
    fenzhou5: ``landlord_seat`` is the rotation's landlord; None means the first hand of a table,
    whose landlord is a seat drawn from the seed. The four farmers get 21 cards each in turn order
    after the landlord, the landlord keeps the remaining 24.
    """
    deck = list(range(CARDS_PER_DECK * variant.decks))
    _rng(seed, "shuffle").shuffle(deck)
    codes = [pid % CARDS_PER_DECK for pid in deck]
    n = variant.seats
    hands: list[list[int]] = [[] for _ in range(n)]
    owner: list[int | None] = [None] * len(codes)
    if variant.bottom_size == 0:
        if landlord_seat is None:
            landlord_seat = _rng(seed, "landlord").randrange(n)
        if not 0 <= landlord_seat < n:
            raise EngineError(f"landlord_seat must be 0..{n - 1}")
        pos = 0
        for k in range(1, n):
            seat = (landlord_seat + k) % n
            for i in range(pos, pos + variant.hand_size):
                owner[i] = seat
            pos += variant.hand_size
        for i in range(pos, len(codes)):
            owner[i] = landlord_seat
        bottom: list[int] = []
    else:
        landlord_seat = None
        dealt = n * variant.hand_size
        for i in range(dealt):
            owner[i] = i // variant.hand_size
        bottom = codes[dealt:]
    for i, holder in enumerate(owner):
        if holder is not None:
            hands[holder].append(codes[i])
    face_up = face_seat = None
    if variant.bottom_size:
        candidates = [
            i
            for i, seat in enumerate(owner)
            if seat is not None and (variant.face_up_jokers or codes[i] < SJ_CODE)
        ]
        pick = _rng(seed, "face_up").choice(candidates)
        face_up, face_seat = codes[pick], owner[pick]
    return Deal(
        variant_key=variant.key,
        hands=tuple(tuple(sorted(h)) for h in hands),
        bottom=tuple(sorted(bottom)),
        face_up=face_up,
        face_up_seat=face_seat,
        landlord_seat=landlord_seat,
        seed=seed,
        hand_number=hand_number,
    )


def verify(
    seed: str, commitment: str, variant_key: str, *, landlord_seat: int | None = None
) -> dict[str, Any]:
    """Recompute a deal from its published seed: the JSON ``verify`` prints."""
    variant = find_variant(variant_key)
    d = deal(variant, seed, landlord_seat=landlord_seat)
    actual = seed_commitment(seed)
    return {
        "variant": variant.key,
        "seed": seed,
        "commitment": actual,
        "matches": actual == commitment.strip().lower(),
        "deal": d.to_json(),
    }


def next_landlord_seat(variant: Variant, previous: int | None) -> int | None:
    """The ``landlord_seat`` to pass to ``deal`` for a table's next hand.

    None for variants whose landlord comes from the deal (qq5, new5, classic3). For a rotating
    variant (fenzhou5, §6.2): None for the table's first hand (the seed draws the seat), then
    the previous hand's landlord + 1, win or lose.
    """
    if variant.bottom_size:
        return None
    return None if previous is None else (previous + 1) % variant.seats
