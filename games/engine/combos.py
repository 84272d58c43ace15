"""Combinations: every reading of a multiset of ranks, and the beat relation (docs/rules.md
§2.3, §2.4).

A play is a multiset of rank values (see ``games.engine.cards``). ``classify`` returns every
way the variant can read it (``()`` when it is no combination). Readings compare with
``beats``: a bomb-class reading beats every non-bomb, bombs compare by ``bomb_power`` (a tuple
from the variant's bomb table), and non-bombs only within one kind and shape (card count and
chain length) by ``key``. The variant object carries the rule flags and bomb hooks, so this
module never branches on which variant it is.

Kinds: single, pair, triple, triple_single, triple_pair, straight, pair_chain, triple_chain,
plane_single, plane_pair, four_two_singles, four_two_pairs (non-bombs); bomb, joker_bomb,
rocket, chain_bomb, missile, multi_chain_bomb, nuke (bomb-class). ``Variant.kinds`` lists
the ones a variant can produce. A bare plane (fenzhou5, final play) is a ``triple_chain``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from games.engine.cards import BJ, RANK_THREE, SJ, format_ranks
from games.engine.errors import InvalidNotation
from games.engine.variants import ALWAYS, FINAL, Variant

KINDS: tuple[str, ...] = (
    "single",
    "pair",
    "triple",
    "triple_single",
    "triple_pair",
    "straight",
    "pair_chain",
    "triple_chain",
    "plane_single",
    "plane_pair",
    "four_two_singles",
    "four_two_pairs",
    "bomb",
    "joker_bomb",
    "rocket",
    "chain_bomb",
    "missile",
    "multi_chain_bomb",
    "nuke",
)
BOMB_KINDS: frozenset[str] = frozenset(
    {"bomb", "joker_bomb", "rocket", "chain_bomb", "missile", "multi_chain_bomb", "nuke"}
)
CHAIN_KINDS: frozenset[str] = frozenset(
    {"straight", "pair_chain", "triple_chain", "plane_single", "plane_pair"}
)


@dataclass(frozen=True, slots=True)
class Combo:
    """One reading of a play.

    ``key`` is the rank (or, for chains, the top sequence position) of the main group;
    ``length`` the chain length (triples in a plane, quads in a 连炸; 1 otherwise);
    ``bomb_power`` orders bombs within the variant and is None for every non-bomb.
    In new5 sequence positions put a low A at 1 and a low 2 at 2, so A2345 has key 5.
    """

    kind: str
    ranks: tuple[int, ...]
    key: int
    length: int = 1
    bomb_power: tuple[int, ...] | None = None

    @property
    def is_bomb(self) -> bool:
        return self.bomb_power is not None

    @property
    def shape(self) -> tuple[str, int, int]:
        """Non-bombs compare only within one shape: (kind, card count, chain length)."""
        return (self.kind, len(self.ranks), self.length)

    @property
    def notation(self) -> str:
        return format_ranks(self.ranks)

    def __str__(self) -> str:
        return self.notation

    def __repr__(self) -> str:
        extra = f", length={self.length}" if self.length != 1 else ""
        if self.bomb_power is not None:
            extra += f", bomb_power={self.bomb_power!r}"
        return f"Combo({self.kind!r}, {self.notation!r}, key={self.key}{extra})"


def beats(variant: Variant, candidate: Combo, top: Combo) -> bool:
    """docs/rules.md §2.3: does `candidate` beat the current top play `top`?"""
    cand_power = candidate.bomb_power
    top_power = top.bomb_power
    if cand_power is not None:
        return top_power is None or cand_power > top_power
    if top_power is not None:
        return False
    return (
        candidate.kind == top.kind
        and candidate.length == top.length
        and len(candidate.ranks) == len(top.ranks)
        and candidate.key > top.key
    )


def classify(variant: Variant, ranks: Iterable[int], *, final: bool = False) -> tuple[Combo, ...]:
    """Every reading of the multiset `ranks` under `variant`; ``()`` if it is no combination.

    `final` says the play empties the player's hand (fenzhou5 bare triples and planes).
    Readings are distinct and ordered by (kind order, key, length).
    """
    key = tuple(sorted(ranks))
    if key and (key[0] < RANK_THREE or key[-1] > BJ):
        bad = key[0] if key[0] < RANK_THREE else key[-1]
        raise InvalidNotation(f"{bad!r} is not a rank value (3..17)")
    if final and not _final_matters(variant):
        final = False
    return _classify_cached(variant, key, final)


def reading_to_follow(
    variant: Variant, ranks: Iterable[int], top: Combo, *, final: bool = False
) -> Combo | None:
    """The weakest reading of `ranks` that beats `top` (docs/rules.md §2.4), or None."""
    best: Combo | None = None
    for combo in classify(variant, ranks, final=final):
        if beats(variant, combo, top) and (best is None or _strength(combo) < _strength(best)):
            best = combo
    return best


def reading_to_lead(
    variant: Variant,
    ranks: Iterable[int],
    *,
    final: bool = False,
    declared_kind: str | None = None,
) -> Combo | None:
    """The reading shown when `ranks` leads a trick (docs/rules.md §2.4), or None if illegal.

    Priority: bomb-class > longest chain body > highest key. A `declared_kind` that some
    reading has narrows the choice to those readings; one no reading has is ignored.
    """
    readings = classify(variant, ranks, final=final)
    if declared_kind is not None:
        declared = tuple(combo for combo in readings if combo.kind == declared_kind)
        readings = declared or readings
    if not readings:
        return None
    return max(readings, key=_lead_priority)


def _strength(combo: Combo) -> tuple[int, tuple[int, ...], int]:
    # Spending a bomb reading is stronger than any non-bomb one.
    if combo.bomb_power is not None:
        return (1, combo.bomb_power, 0)
    return (0, (), combo.key)


def _lead_priority(combo: Combo) -> tuple[int, tuple[int, ...], int, int]:
    if combo.bomb_power is not None:
        return (1, combo.bomb_power, 0, 0)
    return (0, (), combo.length, combo.key)


def _final_matters(variant: Variant) -> bool:
    return variant.bare_triple == FINAL or variant.bare_triple_chain == FINAL


def _allowed(rule: str, final: bool) -> bool:
    return rule == ALWAYS or (rule == FINAL and final)


_KIND_ORDER = {kind: i for i, kind in enumerate(KINDS)}


# Readings per variant, then per ``final`` (False, True), then per sorted ranks. Keyed so, an
# entry holds nothing the garbage collector tracks but its Combos (most ranks have none):
# an lru_cache keyed (variant, ranks, final) held a tracked tuple per entry, 65 536 of them
# walked by every full collection, inside the strong bot's decisions (issue #36). A pure
# function's cache: each table is emptied when full, and the answers stay the same.
Readings = dict[tuple[int, ...], tuple[Combo, ...]]
_READINGS: dict[Variant, tuple[Readings, Readings]] = {}
READINGS_CACHE_SIZE = 1 << 15


def _classify_cached(variant: Variant, ranks: tuple[int, ...], final: bool) -> tuple[Combo, ...]:
    tables = _READINGS.get(variant)
    if tables is None:
        tables = _READINGS[variant] = ({}, {})
    table = tables[final]
    readings = table.get(ranks)
    if readings is None:
        if len(table) >= READINGS_CACHE_SIZE:
            table.clear()
        readings = table[ranks] = _distinct_readings(variant, ranks, final)
    return readings


def clear_caches() -> None:
    """Forget every cached reading (benchmarks measure a cold start)."""
    _READINGS.clear()


def _distinct_readings(variant: Variant, ranks: tuple[int, ...], final: bool) -> tuple[Combo, ...]:
    readings = _readings(variant, ranks, final)
    if len(readings) > 1:
        unique = {(c.kind, c.key, c.length): c for c in readings}
        readings = sorted(unique.values(), key=lambda c: (_KIND_ORDER[c.kind], c.key, c.length))
    return tuple(readings)


def _readings(v: Variant, ranks: tuple[int, ...], final: bool) -> list[Combo]:
    n = len(ranks)
    if n == 0:
        return []
    if n == 1:
        return [Combo("single", ranks, ranks[0])]
    counts: dict[int, int] = {}
    for rank in ranks:
        counts[rank] = counts.get(rank, 0) + 1
    small = counts.pop(SJ, 0)
    big = counts.pop(BJ, 0)
    jokers = small + big
    if jokers == n:
        return [
            Combo(kind, ranks, key, 1, power)
            for kind, key, power in v.joker_table.get((small, big), ())
        ]
    out: list[Combo] = []
    # counts now holds the natural ranks only.
    if jokers == 0:
        if len(counts) == 1:
            bomb = v.natural_bomb(n, ranks[0])
            if bomb is not None:
                out.append(Combo(bomb[0], ranks, bomb[1], 1, bomb[2]))
        elif n >= 8 and n % 4 == 0 and all(c == 4 for c in counts.values()):
            top = _run_top(v.chain_positions, counts)
            if top is not None:
                bomb = v.chain_bomb(len(counts), top)
                if bomb is not None:
                    out.append(Combo(bomb[0], ranks, bomb[1], len(counts), bomb[2]))
    limit = v.non_bomb_max_per_rank
    if limit is not None and max(counts.values()) > limit:
        return out
    if n == 2:
        if jokers == 0 and len(counts) == 1:
            out.append(Combo("pair", ranks, ranks[0]))
        return out
    if jokers == 0:
        _sequences(v, ranks, counts, n, final, out)
    if n == 3:
        if jokers == 0 and len(counts) == 1 and _allowed(v.bare_triple, final):
            out.append(Combo("triple", ranks, ranks[0]))
        return out
    if n == 4 and v.triple_single:
        _triple_single(v, counts, ranks, jokers, out)
    elif n == 5 and v.triple_pair:
        _triple_pair(v, counts, ranks, small, big, out)
    if v.four_two and (n == 6 or n == 8):
        _four_two(v, counts, ranks, small, big, n, out)
    if n >= 8 and n % 4 == 0 and v.plane_single:
        _planes(v, counts, ranks, small, big, n // 4, "plane_single", out)
    if n >= 10 and n % 5 == 0 and v.plane_pair:
        _planes(v, counts, ranks, small, big, n // 5, "plane_pair", out)
    return out


def _run_top(positions: Mapping[int, tuple[int, ...]], counts: Mapping[int, int]) -> int | None:
    """The top position if the distinct ranks of `counts` form one consecutive run."""
    fixed: list[int] = []
    flexible: tuple[int, ...] = ()
    for rank in counts:
        options = positions.get(rank)
        if options is None:
            return None
        if len(options) == 1:
            fixed.append(options[0])
        else:
            flexible = options
    size = len(counts)
    best: int | None = None
    for extra in flexible or (None,):
        ps = fixed if extra is None else [*fixed, extra]
        lo, hi = min(ps), max(ps)
        if hi - lo + 1 == size and (best is None or hi > best):
            best = hi
    return best


def _sequences(
    v: Variant,
    ranks: tuple[int, ...],
    counts: dict[int, int],
    n: int,
    final: bool,
    out: list[Combo],
) -> None:
    distinct = len(counts)
    per = n // distinct
    if per * distinct != n or per > 3:
        return
    if any(c != per for c in counts.values()):
        return
    if per == 1:
        if not v.min_straight <= n <= v.max_straight:
            return
        kind = "straight"
    elif per == 2:
        if not v.min_pair_chain <= distinct <= v.max_pair_chain:
            return
        kind = "pair_chain"
    else:
        if distinct < v.min_triple_chain or not _allowed(v.bare_triple_chain, final):
            return
        if frozenset(counts) in v.forbidden_bare_triple_chains:
            return
        kind = "triple_chain"
    top = _run_top(v.chain_positions, counts)
    if top is not None:
        out.append(Combo(kind, ranks, top, distinct))


def _kickers_ok(v: Variant, kickers: Mapping[int, int], small: int, big: int) -> bool:
    """Single kickers (not body ranks; the caller guarantees that) under the variant's policy."""
    if (small or big) and not v.kicker_jokers:
        return False
    if small and big and not v.kicker_both_jokers:
        return False
    repeated = small > 1 or big > 1 or any(c > 1 for c in kickers.values())
    return v.kicker_repeats or not repeated


def _triple_single(
    v: Variant, counts: dict[int, int], ranks: tuple[int, ...], jokers: int, out: list[Combo]
) -> None:
    if len(counts) + (1 if jokers else 0) != 2 or jokers > 1:
        return
    for rank, c in counts.items():
        if c == 3:
            if jokers and not v.kicker_jokers:
                return
            out.append(Combo("triple_single", ranks, rank))


def _triple_pair(
    v: Variant,
    counts: dict[int, int],
    ranks: tuple[int, ...],
    small: int,
    big: int,
    out: list[Combo],
) -> None:
    jokers = small + big
    if jokers:
        if not (v.triple_pair_joker_pair and (small == 2 or big == 2) and jokers == 2):
            return
        if len(counts) == 1:
            (rank,) = counts
            out.append(Combo("triple_pair", ranks, rank))
        return
    if len(counts) != 2:
        return
    triple = [rank for rank, c in counts.items() if c == 3]
    if triple:
        out.append(Combo("triple_pair", ranks, triple[0]))


def _four_two(
    v: Variant,
    counts: dict[int, int],
    ranks: tuple[int, ...],
    small: int,
    big: int,
    n: int,
    out: list[Combo],
) -> None:
    for quad, c in counts.items():
        if c < 4:
            continue
        rest = {r: k for r, k in counts.items() if r != quad}
        if c > 4:  # four plus kickers of its own rank: never (kicker ranks differ from the body)
            continue
        if n == 6:
            if _kickers_ok(v, rest, small, big):
                out.append(Combo("four_two_singles", ranks, quad))
        elif not (small or big) and _pairs_ok(v, rest):
            out.append(Combo("four_two_pairs", ranks, quad))


def _planes(
    v: Variant,
    counts: dict[int, int],
    ranks: tuple[int, ...],
    small: int,
    big: int,
    k: int,
    kind: str,
    out: list[Combo],
) -> None:
    if k < v.min_triple_chain:
        return
    # Body ranks hold exactly 3 cards: a kicker never shares a rank with the body.
    position_to_rank: dict[int, int] = {}
    for rank, c in counts.items():
        if c == 3:
            for p in v.chain_positions.get(rank, ()):
                position_to_rank[p] = rank
    if len(position_to_rank) < k:
        return
    for top in sorted(position_to_rank):
        body = []
        for p in range(top - k + 1, top + 1):
            at = position_to_rank.get(p)
            if at is None or at in body:
                break
            body.append(at)
        else:
            rest = {r: c for r, c in counts.items() if r not in body}
            if kind == "plane_single":
                ok = _kickers_ok(v, rest, small, big)
            else:
                ok = _wings_ok(v, rest, small, big, k)
            if ok:
                out.append(Combo(kind, ranks, top, k))


def _wings_ok(v: Variant, rest: dict[int, int], small: int, big: int, k: int) -> bool:
    """k pair wings (ranks differ from the body; the caller guarantees it)."""
    if small or big:
        wing = tuple(
            sorted([*(r for r, c in rest.items() for _ in range(c)), *[SJ] * small, *[BJ] * big])
        )
        return k == 2 and wing in v.special_wings
    if not _pairs_ok(v, rest):
        return False
    if v.wings_consecutive and _run_top(v.chain_positions, rest) is None:
        return False
    if v.forbidden_wings:
        wing = tuple(sorted(r for r, c in rest.items() for _ in range(c)))
        if wing in v.forbidden_wings:
            return False
    return True


def _pairs_ok(v: Variant, rest: Mapping[int, int]) -> bool:
    """Natural pair wings: every rank an even count, and exactly 2 unless repeats are allowed."""
    if v.wing_pair_repeats:
        return all(c % 2 == 0 for c in rest.values())
    return all(c == 2 for c in rest.values())
