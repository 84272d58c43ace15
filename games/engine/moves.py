"""Every legal play from a hand: ``legal_plays(variant, hand_ranks, top)`` (docs/rules.md §2–§6,
§8.3).

The generator is structural: it works on the hand's rank counts and builds each kind of
combination directly (chains from runs of available positions, kickers as multisets over
the remaining rank counts), never by enumerating sub-multisets of the hand. Every multiset
of ranks is listed once. Where one multiset has several readings (classic3 333444555666 is a
4-triple chain or a 3-triple plane with kickers 666; 3333AAAA is four-with-two-pairs keyed on
3 or on A), the recorded reading is the one ``combos`` picks: the lead priority when
leading, the weakest reading that beats ``top`` when following (§2.4). new5's 13-card runs
A..K and 2..A hold the same ranks; only 2..A (the higher top, as ``combos`` reads it) is
generated.

Order (deterministic, pinned by tests/engine/snapshots/moves_*.txt): non-bombs first, by kind
in ``KIND_ORDER``, then chain length, then key, then the sorted ranks (so, for one body, by
kickers); bombs last, weakest first (by ``bomb_power``, then ranks).

Speed: ``Combo`` objects are immutable, so each generator interns them per variant (singles,
pairs, triple + kicker rows, chains, and per plane body or quad the plays by kicker tuple)
and a hand's answer is mostly ``compress`` over prebuilt rows; leading inlines the simple
kinds and skips the kinds the hand cannot hold. Nothing is cached per hand: the tables are
bounded by the variant's combinatorics (planes of 4+ triples are not interned), the
mask-keyed caches (chain runs, leading chains) start over past ``_MASK_CACHE_SIZE`` entries,
and ``classify`` (asked only for the rare multisets with two readings) has a bounded LRU.
See bench/engine_moves.py for the figures.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import combinations as _combinations
from itertools import combinations_with_replacement as _cwr
from itertools import compress
from typing import Any

from games.engine import combos as _combos
from games.engine.cards import BJ, SJ, Rank
from games.engine.combos import BOMB_KINDS, KINDS, Combo
from games.engine.errors import InvalidNotation
from games.engine.variants import ALWAYS, NEVER, Variant

__all__ = ["KIND_ORDER", "legal_plays", "play_order_key"]

# The order of non-bomb kinds in the output. Kinds a variant lacks are simply absent.
KIND_ORDER: tuple[str, ...] = tuple(kind for kind in KINDS if kind not in BOMB_KINDS)
_KIND_INDEX = {kind: i for i, kind in enumerate(KIND_ORDER)}
_NEEDS_OF_A_RANK = {
    "triple_single": 3,
    "triple_pair": 3,
    "triple_chain": 3,
    "plane_single": 3,
    "plane_pair": 3,
    "four_two_singles": 4,
    "four_two_pairs": 4,
}
_MAY_COLLIDE = frozenset({"triple_chain", "plane_single", "four_two_pairs"})


def play_order_key(combo: Combo) -> tuple[Any, ...]:
    """The sort key that ``legal_plays`` output follows (documented in the module docstring)."""
    if combo.is_bomb:
        return (1, combo.bomb_power, combo.ranks)
    return (0, _KIND_INDEX.get(combo.kind, len(KIND_ORDER)), combo.length, combo.key, combo.ranks)


def legal_plays(variant: Variant, hand_ranks: Iterable[Rank], top: Combo | None) -> list[Combo]:
    """Every distinct legal play from ``hand_ranks`` that leads (``top`` None) or beats ``top``.

    ``hand_ranks`` are rank values (3..17, repeated for copies); ``top`` is the current top
    play as ``combos`` read it. A play that uses the whole hand is classified as the player's
    final play (a fenzhou5 bare triple or bare plane). Passing is not listed. The hand is
    not checked against the variant's deck (the §8.3 CLI does that); a rank outside 3..17
    raises InvalidNotation.
    """
    hand = hand_ranks if isinstance(hand_ranks, (tuple, list)) else tuple(hand_ranks)
    # Counted into slots 0..35 so that every rank outside 3..17 (negative ones included)
    # lands outside slots 3..17 or raises IndexError; both are refused below.
    counts = [0] * 36
    try:
        for rank in hand:
            counts[rank] += 1
    except IndexError:
        counts[0] = 1
    n = len(hand)
    if counts[0] or counts[1] or counts[2] or sum(counts[BJ + 1 :]):
        bad = min(hand) if min(hand) < 3 else max(hand)
        raise InvalidNotation(f"{bad!r} is not a rank value (3..17)")
    del counts[BJ + 1 :]
    gen = _generator_for(variant)
    if top is None:
        return gen.lead(counts, n)
    return gen.follow(counts, n, top)


_GENERATORS: dict[Variant, _Generator] = {}


def _generator_for(variant: Variant) -> _Generator:
    gen = _GENERATORS.get(variant)
    if gen is None:
        gen = _GENERATORS[variant] = _Generator(variant)
    return gen


def _clear_caches() -> None:
    """Forget every per-variant table (a freshly started process); the benchmark uses it."""
    _GENERATORS.clear()


def _multisets(ranks: Sequence[int], caps: Sequence[int], size: int) -> list[tuple[int, ...]]:
    """Sorted ``size``-multisets of ``ranks`` (ascending), rank r at most ``caps[r]`` times,
    in lexicographic order (itertools yields them so)."""
    if size == 2:
        return [c for c in _cwr(ranks, 2) if c[0] != c[1] or caps[c[0]] >= 2]
    tight = [r for r in ranks if caps[r] < size]
    if not tight:
        return list(_cwr(ranks, size))
    return [c for c in _cwr(ranks, size) if all(c.count(r) <= caps[r] for r in tight)]


_NATURALS = tuple(range(3, 16))
_INDICES = range(64)
_AT_LEAST_2 = (2).__le__
_AT_LEAST_3 = (3).__le__
_AT_LEAST_4 = (4).__le__


def _sorted(a: int, na: int, b: int, nb: int) -> tuple[int, ...]:
    return tuple(sorted((a,) * na + (b,) * nb))


_NO_LIMIT = 1 << 30
# Entries per mask-keyed cache (chain runs, leading chains) before it starts over.
_MASK_CACHE_SIZE = 1 << 15
# Planes of up to this many triples keep their plays interned (see _Interned).
_INTERN_PLANES_UP_TO = 3


class _Interned(dict[tuple[int, ...], Combo]):
    """Combos of one body, keyed by kicker tuple, built on first use (immutable, so shared).

    With ``keep`` false nothing is stored: long planes (4+ triples) have tens of thousands
    of kicker sets, rarely met, and a long-running server should not hoard them.
    """

    def __init__(self, build: Callable[[tuple[int, ...]], Combo], *, keep: bool = True) -> None:
        super().__init__()
        self.build = build
        self.keep = keep
        # For two-kicker bodies: per first kicker, ([(a, a) play], [(a, b) plays, b > a]).
        self.rows: list[tuple[list[Combo], list[Combo]]] | None = None
        # For three-kicker bodies: [a][b] -> ((a, b, b) play, [(a, b, c) plays, c > b]),
        # built on first use (a <= b only).
        self.rows3: list[list[tuple[Combo, list[Combo]] | None]] | None = None

    def __missing__(self, wing: tuple[int, ...]) -> Combo:
        combo = self.build(wing)
        if self.keep:
            self[wing] = combo
        return combo


class _Generator:
    """The per-variant tables and generators behind ``legal_plays``.

    Everything variant-specific is read from the variant's combination flags and bomb hooks
    (the same ones ``combos.classify`` reads), so rule options apply here unchanged.
    """

    def __init__(self, variant: Variant) -> None:
        v = variant
        self.variant = v
        rank_at = {p: r for r, ps in v.chain_positions.items() for p in ps}
        positions = sorted(rank_at)
        if positions != list(range(positions[0], positions[-1] + 1)):
            raise ValueError(f"{v.key}: chain positions must be contiguous")
        self.pos_rank: tuple[int, ...] = tuple(rank_at[p] for p in positions)
        self.pos_key: tuple[int, ...] = tuple(positions)
        # A run may not use one rank twice (new5's A is position 1 and 14): the longest
        # chain has one position per distinct rank. A..K (positions 1..13) is never
        # generated: the same ranks read as 2..A with the higher top (combos._run_top).
        self.max_run = len(v.chain_positions)
        self.skip_low_full_run = len(self.pos_rank) > self.max_run
        self.limit = v.non_bomb_max_per_rank or _NO_LIMIT
        limit = self.limit
        self._cache: dict[Any, Combo] = {}
        # Leading chains of each kind by the mask of positions held often enough.
        self._lead_chains: dict[str, dict[int, tuple[Combo, ...]]] = {
            "straight": {},
            "pair_chain": {},
        }
        self._lead_straights = self._lead_chains["straight"]
        self._lead_pair_chains = self._lead_chains["pair_chain"]
        # Per plane body / quad: its plays interned by their kicker tuple.
        self._bodies: dict[tuple[str, int, int], _Interned] = {}
        self._runs_cache: dict[tuple[int, int, int], tuple[tuple[int, int], ...]] = {}
        self.singles: list[Combo | None] = [None] * 18
        self.pairs: list[Combo | None] = [None] * 18
        self.triples: list[Combo | None] = [None] * 18
        for r in range(3, 18):
            self.singles[r] = Combo("single", (r,), r)
        pair_ranks = list(_NATURALS) if limit >= 2 else []
        if v.joker_pairs:
            pair_ranks += [SJ, BJ]
        self.pair_ranks = tuple(pair_ranks)
        for r in self.pair_ranks:
            self.pairs[r] = Combo("pair", (r, r), r)
        self.triple_ranks = _NATURALS if limit >= 3 else ()
        for r in self.triple_ranks:
            self.triples[r] = Combo("triple", (r, r, r), r)
        # Wing pairs of triple_pair: natural pairs, plus joker pairs where allowed.
        tp_ranks = list(_NATURALS)
        if v.triple_pair_joker_pair:
            tp_ranks += [SJ, BJ]
        self.triple_pair_ranks = tuple(tp_ranks)
        self.kicker_ranks = tuple(range(3, 18)) if v.kicker_jokers else _NATURALS
        # Single kickers that may repeat a rank with no other limit (classic3 permissive).
        self.plain_repeats = (
            v.kicker_repeats
            and v.kicker_both_jokers
            and v.kicker_jokers
            and v.non_bomb_max_per_rank is None
        )
        # Pair wings that may repeat a rank, free of runs, refusals and extras (classic3).
        self.plain_pair_repeats = (
            v.wing_pair_repeats
            and not v.wings_consecutive
            and not v.forbidden_wings
            and not v.special_wings
            and v.non_bomb_max_per_rank is None
        )
        # Bombs: natural bombs by (rank, size), joker bombs by (SJ count, BJ count).
        max_copies = 4 * v.decks
        self.natural_bombs: list[list[Combo]] = [[] for _ in range(18)]
        for r in _NATURALS:
            for size in range(1, max_copies + 1):
                reading = v.natural_bomb(size, r)
                if reading is not None:
                    kind, key, power = reading
                    self.natural_bombs[r].append(Combo(kind, (r,) * size, key, 1, power))
        self.joker_bombs: dict[tuple[int, int], list[Combo]] = {}
        for (small, big), readings in v.joker_table.items():
            bombs = [
                Combo(kind, (SJ,) * small + (BJ,) * big, key, 1, power)
                for kind, key, power in readings
                if power is not None
            ]
            if bombs:
                self.joker_bombs[(small, big)] = bombs
        self.bare_triple = v.bare_triple
        self.bare_chain = v.bare_triple_chain
        self.forbidden_bare = v.forbidden_bare_triple_chains
        self.kinds = tuple(k for k in KIND_ORDER if self._has_kind(k))
        # Triple + kicker plays by [triple rank][kicker rank - 3]; the kicker's own slot (the
        # triple's rank) is never selected.
        self.single_kicker_end = 18 if v.kicker_jokers else 16
        self.pair_kicker_end = 18 if v.triple_pair_joker_pair else 16
        self.triple_single_rows: list[list[Combo]] = [[] for _ in range(18)]
        self.triple_pair_rows: list[list[Combo]] = [[] for _ in range(18)]
        for t in self.triple_ranks:
            self.triple_single_rows[t] = [
                Combo("triple_single", _sorted(t, 3, k, 1), t)
                for k in range(3, self.single_kicker_end)
            ]
            self.triple_pair_rows[t] = [
                Combo("triple_pair", _sorted(t, 3, k, 2), t) for k in range(3, self.pair_kicker_end)
            ]
        self._steps = {
            "single": self._singles,
            "pair": self._pairs,
            "triple": self._triples,
            "triple_single": self._triple_singles,
            "triple_pair": self._triple_pairs,
            "straight": self._straights,
            "pair_chain": self._pair_chains,
            "triple_chain": self._triple_chains,
            "plane_single": self._plane_singles,
            "plane_pair": self._plane_pairs,
            "four_two_singles": self._four_two_singles,
            "four_two_pairs": self._four_two_pairs,
        }
        # Kinds whose multisets can carry a second reading (see _resolve).
        self.colliding: frozenset[str] = frozenset()
        if v.kicker_repeats or v.wing_pair_repeats:
            self.colliding = _MAY_COLLIDE
        # Leading runs every kind in order; each step says what the hand must hold for it
        # (cards of one natural rank; two adjacent triples on chain positions) so that
        # hopeless kinds are skipped before any work.
        # Leading inlines the simple kinds (singles, pairs, triples, triple + kicker,
        # straights, pair chains) in ``lead``: ``compress`` over rows indexed by rank - 3,
        # chains from the per-mask cache. The plan holds the other kinds, each with what
        # the hand must hold for it (cards of one natural rank; two adjacent triples on
        # chain positions) so that hopeless kinds are skipped before any work.
        inlined = {"single", "pair", "triple", "triple_single", "triple_pair"}
        inlined |= {"straight", "pair_chain"}
        # every rank 3..17 has its single (set above)
        self.single_row: tuple[Combo, ...] = tuple(self.singles[3:18])  # type: ignore[arg-type]
        self.pair_row: tuple[Combo, ...] = (
            tuple(self.pairs[3 : self.pair_ranks[-1] + 1])  # type: ignore[arg-type]
            if self.pair_ranks
            else ()
        )
        if self.pair_row and None in self.pair_row:
            raise ValueError(f"{v.key}: pair ranks must be contiguous from 3")
        self.has_triple = "triple" in self.kinds
        self.triple_row: tuple[Combo, ...] = ()
        if self.has_triple and self.bare_triple == ALWAYS:
            self.triple_row = tuple(self.triples[3:16])  # type: ignore[arg-type]
        self.has_triple_single = "triple_single" in self.kinds
        self.has_triple_pair = "triple_pair" in self.kinds
        self.has_pair_chain = "pair_chain" in self.kinds
        for k in self.kinds:
            if k not in inlined and _NEEDS_OF_A_RANK[k] < 3:
                raise ValueError(f"{k}: leading assumes the planned kinds need 3+ of a rank")
        self._lead_plan = [
            (
                self._steps[k],
                _NEEDS_OF_A_RANK.get(k, 0),
                k in ("triple_chain", "plane_single", "plane_pair"),
                k in self.colliding,
            )
            for k in self.kinds
            if k not in inlined
        ]

    def _has_kind(self, kind: str) -> bool:
        v = self.variant
        return {
            "single": True,
            "pair": bool(self.pair_ranks),
            "triple": bool(self.triple_ranks) and self.bare_triple != NEVER,
            "triple_single": v.triple_single and self.limit >= 3,
            "triple_pair": v.triple_pair and self.limit >= 3,
            "straight": True,
            "pair_chain": self.limit >= 2,
            "triple_chain": self.limit >= 3 and self.bare_chain != NEVER,
            "plane_single": v.plane_single and self.limit >= 3,
            "plane_pair": v.plane_pair and self.limit >= 3,
            "four_two_singles": v.four_two and self.limit >= 4,
            "four_two_pairs": v.four_two and self.limit >= 4,
        }[kind]

    # -- chains ---------------------------------------------------------------------------
    def masks(self, counts: list[int]) -> list[int]:
        """Bitmasks over chain positions: bit i of masks[need] says position i's rank has at
        least ``need`` cards (need 1..4)."""
        m1 = m2 = m3 = m4 = 0
        bit = 1
        for r in self.pos_rank:
            c = counts[r]
            if c:
                m1 |= bit
                if c >= 2:
                    m2 |= bit
                    if c >= 3:
                        m3 |= bit
                        if c >= 4:
                            m4 |= bit
            bit <<= 1
        return [0, m1, m2, m3, m4]

    def _runs(self, mask: int, min_len: int, max_len: int) -> tuple[tuple[int, int], ...]:
        """(start index, length) of each run of positions whose bit is set in ``mask``,
        min_len ≤ length ≤ max_len, ordered by length then start (so by key)."""
        cache_key = (mask, min_len, max_len)
        hit = self._runs_cache.get(cache_key)
        if hit is not None:
            return hit
        max_len = min(max_len, self.max_run)
        # Maximal stretches of set bits, then every window of an allowed length inside one.
        stretches = []
        i = 0
        rest = mask
        while rest:
            if rest & 1:
                j = i
                while rest & 1:
                    rest >>= 1
                    j += 1
                if j - i >= min_len:
                    stretches.append((i, j - i))
                i = j
            else:
                rest >>= 1
                i += 1
        found = [
            (start, length)
            for lo, size in stretches
            for length in range(min_len, min(max_len, size) + 1)
            for start in range(lo, lo + size - length + 1)
        ]
        if self.skip_low_full_run:
            # new5 A..K (positions 1..13): the same ranks are read as 2..A (higher top).
            found = [(st, ln) for st, ln in found if not (st == 0 and ln == self.max_run)]
        found.sort(key=_by_length_then_start)
        if len(self._runs_cache) >= _MASK_CACHE_SIZE:
            self._runs_cache.clear()  # bounded: start over rather than grow
        result = self._runs_cache[cache_key] = tuple(found)
        return result

    def _chain(self, kind: str, need: int, start: int, length: int) -> Combo:
        cache_key = (kind, start, length)
        combo = self._cache.get(cache_key)
        if combo is None:
            body = self.pos_rank[start : start + length]
            ranks = tuple(sorted(body * need))
            combo = Combo(kind, ranks, self.pos_key[start + length - 1], length)
            self._cache[cache_key] = combo
        return combo

    # -- kinds ------------------------------------------------------------------------------
    def _gen_kind(
        self,
        kind: str,
        counts: list[int],
        n: int,
        masks: list[int],
        out: list[Combo],
        lo: int,
        ln: int,
    ) -> None:
        """Append every play of ``kind`` with key > lo (and chain length ln unless 0), in
        output order."""
        self._steps[kind](counts, n, masks, out, lo, ln)

    def _singles(
        self, counts: list[int], n: int, masks: list[int], out: list[Combo], lo: int, ln: int
    ) -> None:
        start = max(lo + 1, 3)
        out.extend(compress(self.singles[start:], counts[start:]))  # type: ignore[arg-type]

    def _pairs(
        self, counts: list[int], n: int, masks: list[int], out: list[Combo], lo: int, ln: int
    ) -> None:
        pairs = self.pairs
        out.extend([pairs[r] for r in self.pair_ranks if counts[r] >= 2 and r > lo])  # type: ignore[misc]

    def _triples(
        self, counts: list[int], n: int, masks: list[int], out: list[Combo], lo: int, ln: int
    ) -> None:
        if self.bare_triple != ALWAYS and n != 3:
            return  # FINAL: only a triple that empties the hand
        triples = self.triples
        out.extend([triples[r] for r in self.triple_ranks if counts[r] >= 3 and r > lo])  # type: ignore[misc]

    # Kicker rows are lists indexed by kicker rank - 3; ``compress`` picks the held ones.
    def _triple_singles(
        self, counts: list[int], n: int, masks: list[int], out: list[Combo], lo: int, ln: int
    ) -> None:
        rows = self.triple_single_rows
        held = counts[3 : self.single_kicker_end]
        for t in self.triple_ranks:
            if counts[t] >= 3 and t > lo:
                select = held.copy()
                select[t - 3] = 0
                out.extend(compress(rows[t], select))

    def _triple_pairs(
        self, counts: list[int], n: int, masks: list[int], out: list[Combo], lo: int, ln: int
    ) -> None:
        rows = self.triple_pair_rows
        held = list(map(_AT_LEAST_2, counts[3 : self.pair_kicker_end]))
        for t in self.triple_ranks:
            if counts[t] >= 3 and t > lo:
                select = held.copy()
                select[t - 3] = False
                out.extend(compress(rows[t], select))

    def _straights(
        self, counts: list[int], n: int, masks: list[int], out: list[Combo], lo: int, ln: int
    ) -> None:
        v = self.variant
        self._chains("straight", 1, v.min_straight, v.max_straight, masks, out, lo, ln)

    def _pair_chains(
        self, counts: list[int], n: int, masks: list[int], out: list[Combo], lo: int, ln: int
    ) -> None:
        v = self.variant
        max_len = getattr(v, "max_pair_chain", 99)
        self._chains("pair_chain", 2, v.min_pair_chain, max_len, masks, out, lo, ln)

    def _chains(
        self,
        kind: str,
        need: int,
        min_len: int,
        max_len: int,
        masks: list[int],
        out: list[Combo],
        lo: int,
        ln: int,
    ) -> None:
        mask = masks[need]
        if lo < 0 and not ln:  # leading: the whole answer depends on the mask alone
            by_mask = self._lead_chains[kind]
            hit = by_mask.get(mask)
            if hit is None:
                if len(by_mask) >= _MASK_CACHE_SIZE:
                    by_mask.clear()  # bounded: start over rather than grow
                hit = by_mask[mask] = tuple(
                    self._chain(kind, need, start, length)
                    for start, length in self._runs(mask, min_len, max_len)
                )
            out.extend(hit)
            return
        if ln:
            min_len = max_len = ln
        key_of = self.pos_key
        for start, length in self._runs(mask, min_len, max_len):
            if key_of[start + length - 1] > lo:
                out.append(self._chain(kind, need, start, length))

    def _triple_chains(
        self, counts: list[int], n: int, masks: list[int], out: list[Combo], lo: int, ln: int
    ) -> None:
        if self.bare_chain != ALWAYS and (n % 3 or n < 6):
            return  # FINAL: only a bare plane that empties the hand
        min_len = self.variant.min_triple_chain
        max_len = 99
        if ln:
            min_len = max_len = ln
        key_of = self.pos_key
        pos_rank = self.pos_rank
        for start, length in self._runs(masks[3], min_len, max_len):
            if key_of[start + length - 1] <= lo:
                continue
            if self.bare_chain != ALWAYS and 3 * length != n:
                continue
            if self.forbidden_bare and frozenset(pos_rank[start : start + length]) in (
                self.forbidden_bare
            ):
                continue
            out.append(self._chain("triple_chain", 3, start, length))

    def _single_kickers(
        self, counts: list[int], exclude: Sequence[int], size: int
    ) -> list[tuple[int, ...]]:
        """Single-kicker tuples (sorted, lexicographic) under the variant's kicker policy."""
        v = self.variant
        limit = self.limit
        if v.kicker_repeats:
            ranks = [r for r in self.kicker_ranks if counts[r] and r not in exclude]
            if limit < _NO_LIMIT:
                caps = [min(c, limit) if r < SJ else c for r, c in enumerate(counts)]
            else:
                caps = counts
            found = _multisets(ranks, caps, size)
        else:
            ranks = [r for r in self.kicker_ranks if counts[r] and r not in exclude]
            found = list(_combinations(ranks, size))
        if not v.kicker_both_jokers and counts[SJ] and counts[BJ]:
            found = [c for c in found if not (SJ in c and BJ in c)]
        return found

    def _pair_wings(
        self, counts: list[int], exclude: Sequence[int], size: int
    ) -> list[tuple[int, ...]]:
        """Natural pair wings (as card tuples, sorted, lexicographic) under the policy."""
        v = self.variant
        if v.wings_consecutive:
            pos_rank = self.pos_rank
            ok = [counts[r] >= 2 and r not in exclude for r in pos_rank]
            found = []
            for s in range(len(pos_rank) - size + 1):
                if all(ok[s : s + size]):
                    window = pos_rank[s : s + size]
                    if len(set(window)) == size:
                        found.append(tuple(sorted(window * 2)))
            found = sorted(set(found))
        elif v.wing_pair_repeats:
            cap = self.limit // 2
            ranks = [r for r in _NATURALS if counts[r] >= 2 and r not in exclude]
            caps = [min(c // 2, cap) for c in counts]
            found = [tuple(r for r in m for _ in (0, 1)) for m in _multisets(ranks, caps, size)]
        else:
            ranks = [r for r in _NATURALS if counts[r] >= 2 and r not in exclude]
            found = [tuple(r for r in c for _ in (0, 1)) for c in _combinations(ranks, size)]
        if v.forbidden_wings:
            found = [w for w in found if w not in v.forbidden_wings]
        return found

    def _plane_singles(
        self, counts: list[int], n: int, masks: list[int], out: list[Combo], lo: int, ln: int
    ) -> None:
        self._planes(counts, masks, out, lo, ln, "plane_single")

    def _plane_pairs(
        self, counts: list[int], n: int, masks: list[int], out: list[Combo], lo: int, ln: int
    ) -> None:
        self._planes(counts, masks, out, lo, ln, "plane_pair")

    def _planes(
        self, counts: list[int], masks: list[int], out: list[Combo], lo: int, ln: int, kind: str
    ) -> None:
        v = self.variant
        min_len = v.min_triple_chain
        max_len = 99
        if ln:
            min_len = max_len = ln
        pos_rank = self.pos_rank
        key_of = self.pos_key
        for start, k in self._runs(masks[3], min_len, max_len):
            key = key_of[start + k - 1]
            if key <= lo:
                continue
            body = pos_rank[start : start + k]
            if kind == "plane_single":
                if k <= 3 and self.plain_repeats:
                    # Fast path (classic3 permissive): any k held cards outside the body.
                    table = self._body_table(kind, start, k, key, body)
                    held = self._held_singles(counts, body)
                    if k == 2:
                        self._two_kickers(held, out, table)
                    else:
                        self._three_kickers(held, out, table)
                    continue
                wings = self._single_kickers(counts, body, k)
            else:
                if k <= 3 and self.plain_pair_repeats:
                    table = self._body_table(kind, start, k, key, body)
                    held = self._held_pairs(counts, body)
                    if k == 2:
                        self._two_kickers(held, out, table, pairs=True)
                    else:
                        self._three_kickers(held, out, table, pairs=True)
                    continue
                wings = self._pair_wings(counts, body, k)
                if k == 2 and v.special_wings:
                    extra = [w for w in v.special_wings if self._holds(counts, w, body)]
                    if extra:
                        wings = sorted([*wings, *extra])
            if wings:
                table = self._body_table(kind, start, k, key, body)
                out.extend([table[w] for w in wings])

    def _body_table(
        self, kind: str, start: int, k: int, key: int, body: tuple[int, ...]
    ) -> _Interned:
        table = self._bodies.get((kind, start, k))
        if table is None:
            body_cards = tuple(sorted(body * 3))
            table = self._bodies[(kind, start, k)] = _Interned(
                lambda w: Combo(kind, tuple(sorted((*body_cards, *w))), key, k),
                keep=k <= _INTERN_PLANES_UP_TO,
            )
        return table

    @staticmethod
    def _holds(counts: list[int], cards: tuple[int, ...], exclude: Sequence[int]) -> bool:
        need: dict[int, int] = {}
        for r in cards:
            if r in exclude:
                return False
            need[r] = need.get(r, 0) + 1
        return all(counts[r] >= c for r, c in need.items())

    def _four_two_singles(
        self, counts: list[int], n: int, masks: list[int], out: list[Combo], lo: int, ln: int
    ) -> None:
        self._four_two(counts, out, lo, "four_two_singles")

    def _four_two_pairs(
        self, counts: list[int], n: int, masks: list[int], out: list[Combo], lo: int, ln: int
    ) -> None:
        self._four_two(counts, out, lo, "four_two_pairs")

    def _four_two(self, counts: list[int], out: list[Combo], lo: int, kind: str) -> None:
        for q in _NATURALS:
            if counts[q] < 4 or q <= lo:
                continue
            excl = (q,)
            table = self._four_table(kind, q)
            if kind == "four_two_singles":
                if self.plain_repeats:
                    self._two_kickers(self._held_singles(counts, excl), out, table)
                    continue
                wings = self._single_kickers(counts, excl, 2)
            else:
                if self.plain_pair_repeats:
                    self._two_kickers(self._held_pairs(counts, excl), out, table, pairs=True)
                    continue
                wings = self._pair_wings_any(counts, excl)
            if wings:
                out.extend([table[w] for w in wings])

    def _four_table(self, kind: str, rank: int) -> _Interned:
        table = self._bodies.get((kind, rank, 1))
        if table is None:
            four = (rank,) * 4
            table = self._bodies[(kind, rank, 1)] = _Interned(
                lambda w: Combo(kind, tuple(sorted((*four, *w))), rank)
            )
        return table

    def _two_kickers(
        self, held: list[int], out: list[Combo], table: _Interned, *, pairs: bool = False
    ) -> None:
        """Two kickers, repeats allowed (no other limit), in lexicographic order.

        ``held[i]`` is how many kickers of rank i + 3 the hand can give (cards, or pairs when
        ``pairs``), with the body's ranks zeroed. Per first kicker a: (a, a) if held twice,
        then ``compress`` picks the held b > a from a prebuilt row of the body's plays.
        """
        rows = table.rows
        if rows is None:
            end = 3 + len(held)
            if pairs:
                rows = [
                    ([table[(a, a, a, a)]], [table[(a, a, b, b)] for b in range(a + 1, end)])
                    for a in range(3, end)
                ]
            else:
                rows = [
                    ([table[(a, a)]], [table[(a, b)] for b in range(a + 1, end)])
                    for a in range(3, end)
                ]
            table.rows = rows
        extend = out.extend
        for i in compress(_INDICES, held):  # the held first kickers
            same, row = rows[i]
            if held[i] >= 2:
                extend(same)
            extend(compress(row, held[i + 1 :]))

    def _three_kickers(
        self, held: list[int], out: list[Combo], table: _Interned, *, pairs: bool = False
    ) -> None:
        """Three kickers, repeats allowed (no other limit), in lexicographic order: per
        prefix (a, b), a <= b, the (a, b, b) play if held often enough, then ``compress``
        picks the held c > b from a prebuilt row. ``held`` as in ``_two_kickers``."""
        rows = table.rows3
        size = len(held)
        if rows is None:
            rows = table.rows3 = [[None] * size for _ in range(size)]
        for i, ca in enumerate(held):
            if not ca:
                continue
            row_a = rows[i]
            for j in range(i, size):
                cb = held[j]
                if not cb or (j == i and cb < 2):
                    continue
                pair = row_a[j]
                if pair is None:
                    pair = row_a[j] = self._kicker_row3(table, i + 3, j + 3, size + 3, pairs)
                same, row = pair
                # (a, b, b) needs b held once more than the prefix holds it.
                if cb >= 2 + (j == i):
                    out.append(same)
                out.extend(compress(row, held[j + 1 :]))

    @staticmethod
    def _kicker_row3(
        table: _Interned, a: int, b: int, end: int, pairs: bool
    ) -> tuple[Combo, list[Combo]]:
        if pairs:
            return (
                table[(a, a, b, b, b, b)],
                [table[(a, a, b, b, c, c)] for c in range(b + 1, end)],
            )
        return table[(a, b, b)], [table[(a, b, c)] for c in range(b + 1, end)]

    def _held_singles(self, counts: list[int], exclude: Sequence[int]) -> list[int]:
        held = counts[3 : self.single_kicker_end]
        for r in exclude:
            held[r - 3] = 0
        return held

    @staticmethod
    def _held_pairs(counts: list[int], exclude: Sequence[int]) -> list[int]:
        held = [c >> 1 for c in counts[3:16]]
        for r in exclude:
            held[r - 3] = 0
        return held

    def _pair_wings_any(self, counts: list[int], exclude: Sequence[int]) -> list[tuple[int, ...]]:
        """Two natural pairs for 四带两对 (never required to be consecutive)."""
        v = self.variant
        ranks = [r for r in _NATURALS if counts[r] >= 2 and r not in exclude]
        if v.wing_pair_repeats:
            return [(a, a, b, b) for a, b in _cwr(ranks, 2) if a != b or counts[a] >= 4]
        return [(a, a, b, b) for a, b in _combinations(ranks, 2)]

    # -- bombs ------------------------------------------------------------------------------
    def _bombs(self, counts: list[int], masks: list[int]) -> list[Combo]:
        """Every bomb-class play in the hand, weakest first (by bomb_power, then ranks)."""
        found: list[Combo] = []
        small, big = counts[SJ], counts[BJ]
        if masks[4] == 0 and small + big < 2 and max(counts[3:16]) < 4:
            return found
        natural_bombs = self.natural_bombs
        for r in _NATURALS:
            c = counts[r]
            if c >= 4:
                found.extend([b for b in natural_bombs[r] if len(b.ranks) <= c])
        if small + big >= 2:
            joker_bombs = self.joker_bombs
            for s in range(small + 1):
                for b in range(big + 1):
                    hit = joker_bombs.get((s, b))
                    if hit:
                        found.extend(hit)
        for start, length in self._runs(masks[4], 2, 99):
            combo = self._chain_bomb(start, length)
            if combo is not None:
                found.append(combo)
        if len(found) > 1:
            found.sort(key=_bomb_sort_key)
        return found

    def _chain_bomb(self, start: int, length: int) -> Combo | None:
        cache_key = ("chain_bomb", start, length)
        if cache_key in self._cache:
            return self._cache[cache_key]
        reading = self.variant.chain_bomb(length, self.pos_key[start + length - 1])
        combo = None
        if reading is not None:
            kind, key, power = reading
            body = self.pos_rank[start : start + length]
            combo = Combo(kind, tuple(sorted(body * 4)), key, length, power)
        self._cache[cache_key] = combo  # type: ignore[assignment]
        return combo

    # -- drivers ----------------------------------------------------------------------------
    def lead(self, counts: list[int], n: int) -> list[Combo]:
        masks = self.masks(counts)
        naturals = counts[3:16]
        most = max(naturals)  # most cards of one natural rank
        # Singles, pairs, bare triples: rows by rank - 3, compress keeps the held ones.
        out: list[Combo] = list(compress(self.single_row, counts[3:]))
        if most >= 2 or counts[SJ] >= 2 or counts[BJ] >= 2:
            pair_row = self.pair_row
            if pair_row:
                out.extend(compress(pair_row, map(_AT_LEAST_2, counts[3 : 3 + len(pair_row)])))
        if most >= 3:
            if self.triple_row:
                out.extend(compress(self.triple_row, map(_AT_LEAST_3, naturals)))
            elif self.has_triple:
                self._triples(counts, n, masks, out, -1, 0)
            # Triple + kicker: the triple's own rank is never its kicker.
            triples = [t for t in self.triple_ranks if counts[t] >= 3]
            if self.has_triple_single:
                rows = self.triple_single_rows
                held = counts[3 : self.single_kicker_end]
                for t in triples:
                    select = held.copy()
                    select[t - 3] = 0
                    out.extend(compress(rows[t], select))
            if self.has_triple_pair:
                rows = self.triple_pair_rows
                held = list(map(_AT_LEAST_2, counts[3 : self.pair_kicker_end]))
                for t in triples:
                    select = held.copy()
                    select[t - 3] = False
                    out.extend(compress(rows[t], select))
        hit = self._lead_straights.get(masks[1])
        if hit is None:
            self._straights(counts, n, masks, out, -1, 0)
        else:
            out.extend(hit)
        if self.has_pair_chain:
            hit = self._lead_pair_chains.get(masks[2])
            if hit is None:
                self._pair_chains(counts, n, masks, out, -1, 0)
            else:
                out.extend(hit)
        m3 = masks[3]
        adjacent_triples = m3 & (m3 >> 1)
        prone: list[tuple[int, int]] = []
        size = 0
        may_collide = (
            self.colliding and (most >= 4 or adjacent_triples) and self._may_collide(counts, masks)
        )
        # The planned kinds all need a quad or two adjacent triples (_NEEDS_OF_A_RANK).
        if most >= 4 or adjacent_triples:
            for step, need, chained, colliding in self._lead_plan:
                if need > most or (chained and not adjacent_triples):
                    continue  # the hand cannot hold this kind at all
                if colliding and may_collide:
                    before = len(out)
                    step(counts, n, masks, out, -1, 0)
                    if len(out) > before:
                        prone.append((before, len(out)))
                        size += len(out) - before
                else:
                    step(counts, n, masks, out, -1, 0)
        if most >= 4 or counts[SJ] + counts[BJ] >= 2:
            out.extend(self._bombs(counts, masks))
        if size < 2:
            return out
        return self._resolve(out, n, None, prone)

    @staticmethod
    def _may_collide(counts: list[int], masks: list[int]) -> bool:
        """Can two generated plays share one multiset (see ``_resolve``)? Only with four
        adjacent chain positions of 3+ cards (a plane or triple chain whose kickers or
        extra triple make another body) or two natural ranks of 4+ (四带两对 keyed on
        either quad)."""
        m3 = masks[3]
        if m3 & (m3 >> 1) & (m3 >> 2) & (m3 >> 3):
            return True
        return sum(map(_AT_LEAST_4, counts[3:16])) >= 2

    def follow(self, counts: list[int], n: int, top: Combo) -> list[Combo]:
        power = top.bomb_power
        masks = self.masks(counts)
        if power is not None:
            return [c for c in self._bombs(counts, masks) if c.bomb_power > power]  # type: ignore[operator]
        out: list[Combo] = []
        if top.kind in self.kinds:
            self._steps[top.kind](counts, n, masks, out, top.key, top.length)
            if out and len(out[0].ranks) != len(top.ranks):
                out = [c for c in out if len(c.ranks) == len(top.ranks)]
        colliding = top.kind in self.colliding and len(out) > 1 and self._may_collide(counts, masks)
        prone = [(0, len(out))]
        out.extend(self._bombs(counts, masks))
        return self._resolve(out, n, top, prone) if colliding else out

    def _resolve(
        self, out: list[Combo], n: int, top: Combo | None, prone: list[tuple[int, int]]
    ) -> list[Combo]:
        """List each multiset once, with the reading combos records for it (§2.4).

        Only kicker policies that let kickers repeat a rank (classic3 permissive) give one
        multiset several structural readings, and only in three ways: a plane whose single
        kickers hold a triple (so k ≥ 3) that extends the body, read with either body or as
        a bare triple chain (333444555+666); and 四带两对 whose two pairs are one quad
        (3333+4444, keyed on either). Pair wings have even counts and never make a body.
        Elsewhere every kicker rank differs from the body and no multiset is met twice.
        """
        seen: dict[tuple[int, ...], int] = {}
        dupes: set[tuple[int, ...]] = set()
        for lo, hi in prone:
            for i in range(lo, hi):
                combo = out[i]
                ranks = combo.ranks
                kind = combo.kind
                if kind == "plane_single":
                    if combo.length < 3:
                        continue
                elif kind == "triple_chain":
                    if len(ranks) % 4:
                        continue
                elif kind == "four_two_pairs" and ranks[4] != ranks[7]:
                    continue
                if ranks in seen:
                    dupes.add(ranks)
                else:
                    seen[ranks] = 1
        if not dupes:
            return out
        # One reading per duplicated multiset. ``out`` is already in output order, so when
        # the chosen reading is one of the generated ones (always, as far as the rules go)
        # keeping that occurrence and dropping the others keeps the order without a sort.
        chosen_of: dict[tuple[int, ...], Combo | None] = {}
        for ranks in dupes:
            final = len(ranks) == n
            if top is None:
                chosen_of[ranks] = _combos.reading_to_lead(self.variant, ranks, final=final)
            else:
                chosen_of[ranks] = _combos.reading_to_follow(self.variant, ranks, top, final=final)
        resolved: list[Combo] = []
        kept: set[tuple[int, ...]] = set()
        for combo in out:
            ranks = combo.ranks
            if ranks in dupes:
                chosen = chosen_of[ranks]
                if (
                    chosen is None
                    or chosen.kind != combo.kind
                    or chosen.key != combo.key
                    or chosen.length != combo.length
                    or ranks in kept
                ):
                    continue
                kept.add(ranks)
                combo = chosen
            resolved.append(combo)
        if len(kept) == len(dupes):
            return resolved
        # A chosen reading the generator did not produce (or none): place it by sorting.
        resolved = [c for c in out if c.ranks not in dupes]
        for ranks in dupes:
            chosen = chosen_of[ranks]
            resolved.append(
                chosen if chosen is not None else next(c for c in out if c.ranks == ranks)
            )
        resolved.sort(key=play_order_key)
        return resolved


def _by_length_then_start(run: tuple[int, int]) -> tuple[int, int]:
    return (run[1], run[0])


def _bomb_sort_key(combo: Combo) -> tuple[Any, ...]:
    return (combo.bomb_power, combo.ranks)
