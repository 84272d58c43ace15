"""Cards, ranks and the notation of docs/rules.md §8.1.

A *rank value* is an int: 3..14 = 3..A, 15 = 2, 16 = SJ (小王), 17 = BJ (大王).
A *card code* is a card identity 0..53: code < 52 is rank ``3 + code // 4`` and suit
``"dchs"[code % 4]`` (♦ ♣ ♥ ♠, ascending); 52 = SJ, 53 = BJ. Copies from several decks are
the same code repeated. Combinations only ever look at ranks; suits matter for identity.

Notation: ranks ``3456789TJQKA2`` (``10`` is accepted for ``T``), jokers ``SJ`` and ``BJ``,
an optional lowercase suit letter ``s h c d`` after a natural rank. Spaces and ``+`` are
ignored. Output is sorted ascending: ``format_ranks`` writes ``"33344"``, ``"2SJSJBJ"``;
``format_cards`` writes ``"3d 3s 9h SJ"``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from typing import TypeAlias

from games.engine.errors import CardsNotHeld, InvalidNotation

Rank: TypeAlias = int
CardCode: TypeAlias = int

RANK_THREE = 3
RANK_ACE = 14
RANK_TWO = 15
SJ = 16  # 小王, small (black) joker
BJ = 17  # 大王, big (red) joker
NATURAL_RANKS: tuple[Rank, ...] = tuple(range(RANK_THREE, RANK_TWO + 1))
ALL_RANKS: tuple[Rank, ...] = tuple(range(RANK_THREE, BJ + 1))

SUITS = "dchs"  # ascending suit order ♦ < ♣ < ♥ < ♠ (docs/rules.md §2.1)
SJ_CODE = 52
BJ_CODE = 53
CARDS_PER_DECK = 54

_RANK_CHARS = "3456789TJQKA2"
_CHAR_TO_RANK = {ch: RANK_THREE + i for i, ch in enumerate(_RANK_CHARS)}
_RANK_NAMES: dict[Rank, str] = {RANK_THREE + i: ch for i, ch in enumerate(_RANK_CHARS)}
_RANK_NAMES[SJ] = "SJ"
_RANK_NAMES[BJ] = "BJ"
_IGNORED = frozenset(" +\t\n\r")


def rank_name(rank: Rank) -> str:
    """``"T"`` for 10, ``"SJ"``/``"BJ"`` for the jokers."""
    try:
        return _RANK_NAMES[rank]
    except KeyError:
        raise InvalidNotation(f"{rank!r} is not a rank value (3..17)") from None


def card_rank(code: CardCode) -> Rank:
    if not 0 <= code < CARDS_PER_DECK:
        raise InvalidNotation(f"{code!r} is not a card code (0..53)")
    if code == SJ_CODE:
        return SJ
    if code == BJ_CODE:
        return BJ
    return RANK_THREE + code // 4


def card_suit(code: CardCode) -> str | None:
    """The suit letter of a natural card, None for a joker."""
    if not 0 <= code < CARDS_PER_DECK:
        raise InvalidNotation(f"{code!r} is not a card code (0..53)")
    return SUITS[code % 4] if code < SJ_CODE else None


def card_code(rank: Rank, suit: str | None = None) -> CardCode:
    """The identity of a natural card (rank, suit letter) or of a joker (suit None)."""
    if rank == SJ and suit is None:
        return SJ_CODE
    if rank == BJ and suit is None:
        return BJ_CODE
    if rank not in _RANK_NAMES or rank >= SJ:
        raise InvalidNotation(f"{rank!r} is not a natural rank value (3..15)")
    if suit is None or len(suit) != 1 or suit not in SUITS:
        raise InvalidNotation(f"{suit!r} is not a suit (one of s h c d)")
    return (rank - RANK_THREE) * 4 + SUITS.index(suit)


def _tokens(text: str) -> list[tuple[Rank, str | None, int]]:
    """(rank, suit or None, position) for every card in ``text``."""
    if not isinstance(text, str):
        raise InvalidNotation(f"card notation must be a string, not {type(text).__name__}")
    out: list[tuple[Rank, str | None, int]] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in _IGNORED:
            i += 1
            continue
        start = i
        if ch in "SB":
            if i + 1 < n and text[i + 1] == "J":
                out.append((SJ if ch == "S" else BJ, None, start))
                i += 2
                if i < n and text[i] in SUITS:
                    raise InvalidNotation(
                        f"a joker has no suit: {text[start : i + 1]!r} at position {start}"
                    )
                continue
            raise InvalidNotation(
                f"{ch!r} at position {start} must start SJ or BJ "
                "(jokers are SJ and BJ; suits are lower case s h c d)"
            )
        if ch == "1":
            if i + 1 < n and text[i + 1] == "0":
                rank = 10
                i += 2
            else:
                raise InvalidNotation(f"'1' at position {start} is not a rank (write T or 10)")
        elif ch in _CHAR_TO_RANK:
            rank = _CHAR_TO_RANK[ch]
            i += 1
        else:
            hint = " (ranks are upper case: T J Q K A)" if ch.upper() in _CHAR_TO_RANK else ""
            raise InvalidNotation(f"unexpected {ch!r} at position {start} in {text!r}{hint}")
        suit = None
        if i < n and text[i] in SUITS:
            suit = text[i]
            i += 1
        out.append((rank, suit, start))
    return out


def parse_ranks(text: str) -> tuple[Rank, ...]:
    """Rank values of rank-only or suited notation, sorted ascending: ``"333 44"`` → (3,3,3,4,4)."""
    return tuple(sorted(rank for rank, _suit, _pos in _tokens(text)))


def parse_cards(text: str) -> tuple[CardCode, ...]:
    """Card codes of suited notation, sorted ascending: ``"9h Ts SJ"``. Naturals need a suit."""
    codes = []
    for rank, suit, pos in _tokens(text):
        if rank >= SJ:
            codes.append(SJ_CODE if rank == SJ else BJ_CODE)
        elif suit is None:
            raise InvalidNotation(
                f"{rank_name(rank)!r} at position {pos} needs a suit letter (s h c d)"
            )
        else:
            codes.append((rank - RANK_THREE) * 4 + SUITS.index(suit))
    return tuple(sorted(codes))


def format_ranks(ranks: Iterable[Rank]) -> str:
    """Ascending, no separators: ``"33344"``, ``"2SJSJBJ"``."""
    return "".join(rank_name(rank) for rank in sorted(ranks))


@cache  # a few hundred codes at most; every view and record formats them again and again
def format_card(code: CardCode) -> str:
    rank = card_rank(code)
    suit = card_suit(code)
    return rank_name(rank) + (suit or "")


def format_cards(codes: Iterable[CardCode]) -> str:
    """Space separated, ascending by (rank, suit): ``"3d 3s 9h SJ"``."""
    return " ".join(format_card(code) for code in sorted(codes))


def ranks_of(codes: Iterable[CardCode]) -> tuple[Rank, ...]:
    """Sorted rank values of some card codes."""
    return tuple(sorted(card_rank(code) for code in codes))


def cards_for_ranks(hand: Iterable[CardCode], ranks: Iterable[Rank]) -> tuple[CardCode, ...]:
    """The cards of ``hand`` that play the rank multiset ``ranks``: the lowest suit of each rank.

    Suits never change a play's strength (§2.1), so this is the canonical physical choice for
    a play named by ranks (托管, bots, hints). A rank the hand lacks raises CardsNotHeld.
    """
    return lowest_suits(hand)(ranks)


def lowest_suits(hand: Iterable[CardCode]) -> Callable[[Iterable[Rank]], tuple[CardCode, ...]]:
    """``cards_for_ranks`` of one hand for many plays: the hand is sorted and grouped by rank
    once (every legal play of a hand is named by its ranks: 40 of them a hint list)."""
    by_rank: dict[Rank, list[CardCode]] = {}
    for code in sorted(hand):
        by_rank.setdefault(card_rank(code), []).append(code)

    def pick(ranks: Iterable[Rank]) -> tuple[CardCode, ...]:
        taken: dict[Rank, int] = {}
        out = []
        for rank in ranks:
            held = by_rank.get(rank, ())
            used = taken.get(rank, 0)
            if used == len(held):
                raise CardsNotHeld(f"the hand holds no more {rank_name(rank)}")
            out.append(held[used])
            taken[rank] = used + 1
        return tuple(sorted(out))

    return pick


def rank_counts(ranks: Iterable[Rank]) -> list[int]:
    """Counts indexed by rank value (length 18; indices 0..2 unused)."""
    counts = [0] * (BJ + 1)
    for rank in ranks:
        counts[rank] += 1
    return counts
