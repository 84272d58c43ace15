"""An independent, constructive encoding of the combination tables (docs/rules.md §3.2, §4.2, §5.2,
§6.3): it *builds* every legal play of a variant from the table rows, with the reading(s)
each one has. ``classify`` analyses a multiset instead; the tests check the two agree.

Written straight from docs/rules.md, branching on the variant key on purpose (it must not share
structure with ``games.engine.combos``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from itertools import combinations, combinations_with_replacement

SJ, BJ = 16, 17
NATURALS = tuple(range(3, 16))  # 3..A, 2
STD_SEQ = tuple(range(3, 15))  # 3..A

Reading = tuple[str, int, int]  # kind, key, length
Plays = dict[tuple[int, ...], set[Reading]]


def _std_runs(min_len: int, max_len: int) -> Iterator[tuple[tuple[int, ...], int]]:
    """(ranks, top) for consecutive runs inside 3..A."""
    for length in range(min_len, max_len + 1):
        for start in range(3, 15 - length + 1):
            run = tuple(range(start, start + length))
            yield run, run[-1]


def _new5_runs(min_len: int, max_len: int) -> Iterator[tuple[tuple[int, ...], int]]:
    """(ranks, top position) for runs on positions A(1) 2(2) 3..K(3..13) A(14)."""
    to_rank = {1: 14, 2: 15, **{p: p for p in range(3, 14)}, 14: 14}
    for length in range(min_len, max_len + 1):
        for start in range(1, 14 - length + 2):
            positions = range(start, start + length)
            ranks = [to_rank[p] for p in positions]
            if len(set(ranks)) != length:
                continue  # both A's
            yield tuple(sorted(ranks)), start + length - 1


def _highest(runs: Iterator[tuple[tuple[int, ...], int]]) -> dict[tuple[int, ...], int]:
    """Each rank set once, at its highest top (A..K and 2..A are the same 13 ranks)."""
    tops: dict[tuple[int, ...], int] = {}
    for run, top in runs:
        tops[run] = max(top, tops.get(run, 0))
    return tops


class _Builder:
    def __init__(self, max_cards: int, per_rank: int, per_joker: int) -> None:
        self.plays: Plays = defaultdict(set)
        self.max_cards = max_cards
        self.per_rank = per_rank
        self.per_joker = per_joker

    def add(self, cards: list[int] | tuple[int, ...], kind: str, key: int, length: int = 1) -> None:
        if len(cards) > self.max_cards:
            return
        for rank in set(cards):
            limit = self.per_joker if rank >= SJ else self.per_rank
            if cards.count(rank) > limit:
                return
        self.plays[tuple(sorted(cards))].add((kind, key, length))


def _times(ranks: tuple[int, ...] | list[int], n: int) -> list[int]:
    return [r for r in ranks for _ in range(n)]


def reference_plays(variant: str, options: dict[str, object] | None = None) -> Plays:
    options = options or {}
    if variant == "qq5":
        return _qq5()
    if variant == "new5":
        return _new5()
    if variant == "classic3":
        return _classic3(strict=options.get("classic3_kicker_policy") == "strict")
    if variant == "fenzhou5":
        return _fenzhou5(
            final=bool(options.get("final")),
            nuke=str(options.get("fenzhou_nuke", "four_jokers")),
            bare_plane=bool(options.get("fenzhou_bare_plane_last", True)),
            joker_kicker=bool(options.get("fenzhou_joker_kicker", True)),
        )
    raise ValueError(variant)


def _singles_pairs_triples(b: _Builder, *, joker_pairs: bool, triples: bool) -> None:
    for r in (*NATURALS, SJ, BJ):
        b.add([r], "single", r)
    for r in NATURALS:
        b.add([r, r], "pair", r)
        if triples:
            b.add([r, r, r], "triple", r)
    if joker_pairs:
        b.add([SJ, SJ], "pair", SJ)
        b.add([BJ, BJ], "pair", BJ)


def _qq5() -> Plays:
    b = _Builder(24, 8, 2)
    _singles_pairs_triples(b, joker_pairs=False, triples=True)
    for r in NATURALS:
        for s in NATURALS:
            if s != r:
                b.add([r, r, r, s, s], "triple_pair", r)
        for n in range(4, 9):
            b.add([r] * n, "bomb", r)
    for run, top in _std_runs(5, 12):
        b.add(run, "straight", top, len(run))
    for run, top in _std_runs(3, 12):
        b.add(_times(run, 2), "pair_chain", top, len(run))
    for run, top in _std_runs(2, 8):
        b.add(_times(run, 3), "triple_chain", top, len(run))
        others = [r for r in NATURALS if r not in run]
        for wings in combinations(others, len(run)):
            b.add(_times(run, 3) + _times(wings, 2), "plane_pair", top, len(run))
    b.add([SJ, SJ], "joker_bomb", SJ)
    b.add([BJ, BJ], "joker_bomb", BJ)
    b.add([SJ, SJ, BJ], "joker_bomb", BJ)
    b.add([SJ, BJ, BJ], "joker_bomb", BJ)
    b.add([SJ, SJ, BJ, BJ], "nuke", BJ)
    return b.plays


def _new5() -> Plays:
    b = _Builder(38, 12, 3)
    _singles_pairs_triples(b, joker_pairs=True, triples=True)
    for r in NATURALS:
        for s in (*NATURALS, SJ, BJ):
            if s != r:
                b.add([r, r, r, s, s], "triple_pair", r)
        for n in range(4, 13):
            b.add([r] * n, "bomb", r)
    for run, top in _highest(_new5_runs(5, 13)).items():
        b.add(run, "straight", top, len(run))
    # A 13-long run (A..K = 2..A) is read at its higher top, as §4.2 says for straights.
    for run, top in _highest(_new5_runs(3, 13)).items():
        b.add(_times(run, 2), "pair_chain", top, len(run))
    for run, top in _new5_runs(2, 12):
        k = len(run)
        if set(run) != {14, 15}:
            b.add(_times(run, 3), "triple_chain", top, k)
        for wings, _ in _new5_runs(k, k):
            if set(wings) & set(run):
                continue
            if k == 2 and set(wings) == {14, 15}:
                continue
            b.add(_times(run, 3) + _times(wings, 2), "plane_pair", top, k)
        if k == 2:
            b.add([*_times(run, 3), SJ, SJ, BJ, BJ], "plane_pair", top, k)
    b.add([SJ] * 3, "joker_bomb", SJ)
    b.add([BJ] * 3, "joker_bomb", BJ)
    for small in range(4):
        for big in range(4):
            if 4 <= small + big <= 6:
                b.add([SJ] * small + [BJ] * big, "joker_bomb", BJ if big else SJ)
    return b.plays


def _classic3(*, strict: bool) -> Plays:
    b = _Builder(20, 4, 1)
    _singles_pairs_triples(b, joker_pairs=False, triples=True)
    cards = (*NATURALS, SJ, BJ)

    def singles_ok(kickers: tuple[int, ...]) -> bool:
        if not strict:
            return True
        return len(set(kickers)) == len(kickers) and not {SJ, BJ} <= set(kickers)

    def pairs_ok(pairs: tuple[int, ...]) -> bool:
        return not strict or len(set(pairs)) == len(pairs)

    for r in NATURALS:
        for s in cards:
            if s != r:
                b.add([r, r, r, s], "triple_single", r)
        for s in NATURALS:
            if s != r:
                b.add([r, r, r, s, s], "triple_pair", r)
        b.add([r] * 4, "bomb", r)
        others = [c for c in cards if c != r]
        for kick in combinations_with_replacement(others, 2):
            if singles_ok(kick):
                b.add([r] * 4 + list(kick), "four_two_singles", r)
        for pairs in combinations_with_replacement([s for s in NATURALS if s != r], 2):
            if pairs_ok(pairs):
                b.add([r] * 4 + _times(pairs, 2), "four_two_pairs", r)
    b.add([SJ, BJ], "rocket", BJ)
    for run, top in _std_runs(5, 12):
        b.add(run, "straight", top, len(run))
    for run, top in _std_runs(3, 10):
        b.add(_times(run, 2), "pair_chain", top, len(run))
    for run, top in _std_runs(2, 6):
        k = len(run)
        body = _times(run, 3)
        b.add(body, "triple_chain", top, k)
        others = [c for c in cards if c not in run]
        for kick in combinations_with_replacement(others, k):
            if singles_ok(kick):
                b.add(body + list(kick), "plane_single", top, k)
        for pairs in combinations_with_replacement([c for c in NATURALS if c not in run], k):
            if pairs_ok(pairs):
                b.add(body + _times(pairs, 2), "plane_pair", top, k)
    return b.plays


def _fenzhou5(*, final: bool, nuke: str, bare_plane: bool, joker_kicker: bool) -> Plays:
    b = _Builder(24, 8, 2)
    _singles_pairs_triples(b, joker_pairs=False, triples=final)
    kicker_cards = (*NATURALS, SJ, BJ) if joker_kicker else NATURALS
    for r in NATURALS:
        for s in kicker_cards:
            if s != r:
                b.add([r, r, r, s], "triple_single", r)
        b.add([r] * 4, "bomb", r)
        b.add([r] * 8, "missile", r)
    b.add([SJ, SJ], "joker_bomb", SJ)
    b.add([BJ, BJ], "joker_bomb", BJ)
    if nuke == "four_jokers":
        b.add([SJ, SJ, BJ, BJ], "nuke", BJ)
    else:
        b.add([SJ, BJ], "nuke", BJ)
    for run, top in _std_runs(5, 12):
        b.add(run, "straight", top, len(run))
    for run, top in _std_runs(3, 12):
        b.add(_times(run, 2), "pair_chain", top, len(run))
    for run, top in _std_runs(2, 6):
        k = len(run)
        b.add(_times(run, 4), "chain_bomb" if k == 2 else "multi_chain_bomb", top, k)
    for run, top in _std_runs(2, 8):
        k = len(run)
        body = _times(run, 3)
        if final and bare_plane:
            b.add(body, "triple_chain", top, k)
        for kick in combinations([c for c in kicker_cards if c not in run], k):
            b.add(body + list(kick), "plane_single", top, k)
    return b.plays
