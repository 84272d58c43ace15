"""Hand planning for the house bot: split a hand into combinations and price the split.

``Planner(variant).plan(counts)`` returns the cheapest decomposition it finds of a hand given
as rank counts (a tuple indexed by rank value, see ``games.engine.cards``). The price of a
decomposition is the sum of one price per play: 1 for a play nobody will want to beat, less
for a high play that will likely win its trick (it gives the lead back), below zero for a
bomb (it takes the lead when it matters). Fewer, stronger plays make a cheaper hand.

The search: straights and pair chains are chosen by a small memoised search over the rank
counts (candidate chains end on ranks they use up, so they do not leave remnants behind);
what remains is grouped by count (bombs, triples and planes, pairs, singles), and triples
and planes take the weakest singles or pairs as kickers where the variant allows. The search
has a fixed budget per call, so a call's answer depends only on its input.

Pure and standard library only, like the rest of the engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from games.engine.cards import BJ, RANK_TWO, SJ
from games.engine.combos import classify
from games.engine.memo import interned
from games.engine.variants import ALWAYS, Variant

__all__ = [
    "CompactPlan",
    "Group",
    "Plan",
    "PlannedGroup",
    "Planner",
    "clear_caches",
    "counts_of",
    "planner_for",
]

Counts = tuple[int, ...]  # length 18, index = rank value (3..17)

SINGLE, PAIR, TRIPLE, CHAIN1, CHAIN2, PLANE, BOMB = (
    "single",
    "pair",
    "triple",
    "straight",
    "pair_chain",
    "plane",
    "bomb",
)

# How much of a play's price its strength takes off (a sure winner costs 1 - STRENGTH_WEIGHT).
STRENGTH_WEIGHT = 0.8
# A bomb's price: below zero, a bomb is worth keeping.
BOMB_PRICE = -0.4
# A fenzhou5 triple that finds no single kicker can only go as the final play.
STRANDED_TRIPLE = 0.6
# Plans, leaf groupings and chain candidates a planner keeps
PLAN_CACHE_SIZE = 1 << 14
LEAF_CACHE_SIZE = 1 << 12


@dataclass(frozen=True, slots=True)
class Group:
    """One planned play: its shape, its main rank (or chain top rank) and all its ranks."""

    kind: str
    key: int
    ranks: tuple[int, ...]
    price: float

    @property
    def is_bomb(self) -> bool:
        return self.kind == BOMB


# A plan as the caches keep it: its price and its groups, each (kind, key, ranks, price) as in
# ``Group``. Tuples of strings, ints and floats only, which CPython's collector stops tracking:
# Plan and Group instances stay tracked, and with the strong bot's rollouts planning tens of
# thousands of hands, every full collection walked them all inside a decision (issue #36).
PlannedGroup = tuple[str, int, tuple[int, ...], float]
CompactPlan = tuple[float, tuple[PlannedGroup, ...]]


def _planned_group(g: Group) -> PlannedGroup:
    return g.kind, g.key, g.ranks, g.price


# The Groups made of PlannedGroups, kept: a plan is made of its compact form at every ``plan``
# call. Few (the groups hands hold).
_group = interned(lambda planned: Group(*planned), limit=1 << 14)


@dataclass(frozen=True, slots=True)
class Plan:
    price: float
    groups: tuple[Group, ...]

    @property
    def plays(self) -> int:
        return len(self.groups)

    @classmethod
    def of(cls, compact: CompactPlan) -> Plan:
        price, groups = compact
        return cls(price, tuple(_group(g) for g in groups))

    def compact(self) -> CompactPlan:
        return self.price, tuple(_planned_group(g) for g in self.groups)


def counts_of(ranks: tuple[int, ...] | list[int]) -> Counts:
    c = [0] * 18
    for r in ranks:
        c[r] += 1
    return tuple(c)


def _single_strength(rank: int) -> float:
    return {17: 1.0, 16: 0.9, 15: 0.75, 14: 0.5, 13: 0.3, 12: 0.15}.get(rank, 0.0)


def _pair_strength(rank: int) -> float:
    return {17: 1.0, 16: 1.0, 15: 0.9, 14: 0.65, 13: 0.4, 12: 0.2, 11: 0.1}.get(rank, 0.0)


def _triple_strength(rank: int) -> float:
    return {15: 0.9, 14: 0.7, 13: 0.5, 12: 0.35, 11: 0.25, 10: 0.15}.get(rank, 0.05)


def _price(strength: float) -> float:
    return 1.0 - STRENGTH_WEIGHT * strength


class Planner:
    """The decomposition search of one variant (build once: ``planner_for(variant)``)."""

    # chain choices tried per plan: bounds the time of one call (38-card hands included)
    budget = 300

    def __init__(self, variant: Variant) -> None:
        self.v = variant
        # chain positions in order, and the rank at each
        pos_rank: dict[int, int] = {}
        for rank, positions in variant.chain_positions.items():
            for p in positions:
                pos_rank[p] = rank
        self.positions = tuple(sorted(pos_rank))
        self.pos_rank = tuple(pos_rank[p] for p in self.positions)
        self.chain_specs = (
            (1, variant.min_straight, variant.max_straight, CHAIN1),
            (2, variant.min_pair_chain, variant.max_pair_chain, CHAIN2),
        )
        self.single_kickers = variant.triple_single
        self.pair_kickers = variant.triple_pair
        self.bare_triple_ok = variant.bare_triple == ALWAYS
        self.plane_singles = variant.plane_single
        self.plane_pairs = variant.plane_pair
        self.bare_plane_ok = variant.bare_triple_chain == ALWAYS
        self.joker_groups = {
            (s, b): self._joker_split(s, b)
            for s in range(variant.decks + 1)
            for b in range(variant.decks + 1)
        }
        # Plans, leaf groupings and chain candidates depend on the counts alone: cached per
        # counts (untracked values, see CompactPlan), shared by every plan that meets the same
        # counts, each cache forgotten once full (a bound, not an eviction policy).
        self.plans: dict[tuple[Counts, int], CompactPlan] = {}  # per (counts, budget)
        self.leaves: dict[Counts, CompactPlan] = {}
        self.chain_choices: dict[Counts, tuple[tuple[PlannedGroup, Counts], ...]] = {}

    # ------------------------------------------------------------------ jokers
    def _joker_split(self, small: int, big: int) -> tuple[Group, ...]:
        """The fewest legal groups for these jokers, bombs preferred."""
        cards = (SJ,) * small + (BJ,) * big
        best: tuple[float, tuple[Group, ...]] | None = None
        for split in _partitions(cards):
            groups = []
            for part in split:
                readings = classify(self.v, part)
                if not readings:
                    break
                combo = max(readings, key=lambda c: c.bomb_power or ())
                if combo.is_bomb:
                    groups.append(Group(BOMB, combo.key, part, BOMB_PRICE - 0.1 * len(part)))
                elif combo.kind == "pair":
                    groups.append(Group(PAIR, combo.key, part, _price(_pair_strength(combo.key))))
                else:
                    groups.append(
                        Group(SINGLE, combo.key, part, _price(_single_strength(combo.key)))
                    )
            else:
                price = sum(g.price for g in groups)
                if best is None or price < best[0]:
                    best = (price, tuple(groups))
        assert best is not None
        return best[1]

    # ------------------------------------------------------------------ search
    def plan(self, counts: Counts, budget: int | None = None) -> Plan:
        key = (counts, self.budget if budget is None else budget)
        plan = self.plans.get(key)
        if plan is None:
            if len(self.plans) >= PLAN_CACHE_SIZE:
                self.plans.clear()
            plan = self.plans[key] = self.compact_search(*key)
        return Plan.of(plan)

    def price(self, counts: Counts, budget: int | None = None) -> float:
        return self.plan(counts, budget).price

    def search(self, counts: Counts, budget_limit: int | None = None) -> Plan:
        return Plan.of(self.compact_search(counts, budget_limit))

    def compact_search(self, counts: Counts, budget_limit: int | None = None) -> CompactPlan:
        """``search``'s plan as the caches keep it (the rollouts' hands, issue #36)."""
        memo: dict[Counts, tuple[float, PlannedGroup | None, Counts | None]] = {}
        budget = [self.budget if budget_limit is None else budget_limit]

        def best(c: Counts) -> float:
            hit = memo.get(c)
            if hit is not None:
                return hit[0]
            value, chain, rest = self.leaf_cached(c)[0], None, None
            if budget[0] > 0:
                for group, remaining in self.chains_cached(c):
                    budget[0] -= 1
                    sub = group[3] + best(remaining)
                    if sub < value - 1e-9:
                        value, chain, rest = sub, group, remaining
                    if budget[0] <= 0:
                        break
            memo[c] = (value, chain, rest)
            return value

        total = best(counts)
        groups: list[PlannedGroup] = []
        c: Counts | None = counts
        while c is not None:
            _, chain, rest = memo[c]
            if chain is None:
                groups.extend(self.leaf_cached(c)[1])
                break
            groups.append(chain)
            c = rest
        return total, tuple(groups)

    def leaf_cached(self, c: Counts) -> CompactPlan:
        leaf = self.leaves.get(c)
        if leaf is None:
            if len(self.leaves) >= LEAF_CACHE_SIZE:
                self.leaves.clear()
            leaf = self.leaves[c] = self.leaf(c).compact()
        return leaf

    def chains_cached(self, c: Counts) -> tuple[tuple[PlannedGroup, Counts], ...]:
        chains = self.chain_choices.get(c)
        if chains is None:
            if len(self.chain_choices) >= LEAF_CACHE_SIZE:
                self.chain_choices.clear()
            chains = tuple((_planned_group(g), rest) for g, rest in self.chains(c))
            self.chain_choices[c] = chains
        return chains

    def chains(self, c: Counts) -> list[tuple[Group, Counts]]:
        """Candidate straights and pair chains of ``c``, the most promising first."""
        out: list[tuple[float, Group, Counts]] = []
        pos_rank = self.pos_rank
        n = len(pos_rank)
        for per, lo, hi, kind in self.chain_specs:
            usable = [c[r] >= per and not self._bomb_broken(c[r], r, per) for r in pos_rank]
            for s in range(n):
                if not usable[s]:
                    continue
                seen: set[int] = set()
                for e in range(s, min(n, s + hi)):
                    r = pos_rank[e]
                    if not usable[e] or r in seen:
                        break
                    seen.add(r)
                    length = e - s + 1
                    if length < lo:
                        continue
                    clean_ends = c[pos_rank[s]] == per and c[r] == per
                    if length > lo and not clean_ends:
                        continue
                    ranks_used = pos_rank[s : e + 1]
                    rest = list(c)
                    for rr in ranks_used:
                        rest[rr] -= per
                    clean = sum(1 for rr in ranks_used if c[rr] == per)
                    strength = min(0.6, 0.25 + 0.05 * length + 0.02 * (e - s))
                    ranks = tuple(sorted(rr for rr in ranks_used for _ in range(per)))
                    group = Group(kind, self.positions[e], ranks, _price(strength))
                    out.append((-clean, group, tuple(rest)))
        out.sort(key=lambda t: (t[0], t[1].kind, t[1].key, len(t[1].ranks)))
        return [(g, rest) for _, g, rest in out]

    def _bomb_broken(self, n: int, rank: int, per: int) -> bool:
        """Would taking ``per`` cards of a rank held ``n`` times spoil a bomb?"""
        return 4 <= n < 4 + per and self.v.natural_bomb(n, rank) is not None

    # ------------------------------------------------------------------ the rest
    def leaf(self, c: Counts) -> Plan:
        """Group what is left without straights or pair chains."""
        v = self.v
        groups: list[Group] = list(self.joker_groups.get((c[SJ], c[BJ]), ()))
        singles: list[int] = [g.key for g in groups if g.kind == SINGLE]
        pairs: list[int] = [g.key for g in groups if g.kind == PAIR]
        groups = [g for g in groups if g.kind == BOMB]
        triples: list[int] = []
        quads: list[int] = []
        for r in range(3, RANK_TWO + 1):
            n = c[r]
            if n == 0:
                continue
            if n >= 4:
                if v.natural_bomb(n, r) is not None:
                    if n == 4:
                        quads.append(r)
                    else:
                        groups.append(Group(BOMB, r, (r,) * n, BOMB_PRICE - 0.1 * (n - 4)))
                    continue
                # fenzhou5: 5-7 of a kind is a bomb of four and the rest
                quads.append(r)
                n -= 4
            if n == 3:
                triples.append(r)
            elif n == 2:
                pairs.append(r)
            elif n == 1:
                singles.append(r)
        # four-card bombs, joined into chain bombs where the variant has them
        if quads:
            run: list[int] = []
            for r in [*quads, 99]:
                if run and (r != run[-1] + 1 or r > 14 or v.chain_bomb(2, r) is None):
                    if len(run) >= 2 and v.chain_bomb(len(run), run[-1]) is not None:
                        groups.append(
                            Group(BOMB, run[-1], tuple(x for x in run for _ in range(4)), -0.8)
                        )
                    else:
                        groups.extend(Group(BOMB, x, (x,) * 4, BOMB_PRICE) for x in run)
                    run = []
                if r != 99:
                    run.append(r)
        singles.sort()
        pairs.sort()
        # triples into planes along the chain positions
        units: list[list[int]] = []  # each a run of triple ranks (length 1 = a triple)
        if triples:
            tset = set(triples)
            used: set[int] = set()
            run_pos: list[int] = []
            for p, r in zip(self.positions, self.pos_rank, strict=True):
                if r in tset and r not in used and (not run_pos or run_pos[-1] == p - 1):
                    run_pos.append(p)
                    used.add(r)
                    continue
                if run_pos:
                    units.append([self._rank_at(x) for x in run_pos])
                    run_pos = []
                if r in tset and r not in used:
                    run_pos = [p]
                    used.add(r)
            if run_pos:
                units.append([self._rank_at(x) for x in run_pos])
            for r in triples:
                if r not in used:
                    units.append([r])
        # kickers: weakest first; planes before triples
        units.sort(key=lambda u: (-len(u), u[0]))
        for unit in units:
            k = len(unit)
            top = max(unit)
            body = tuple(r for r in unit for _ in range(3))
            kick = self._kickers(unit, singles, pairs)
            if kick is None:
                ok = self.bare_plane_ok if k > 1 else self.bare_triple_ok
                if not ok and k > 1:
                    # a plane that cannot fly: separate triples (they may find kickers later)
                    for r in unit:
                        kick1 = self._kickers([r], singles, pairs)
                        ranks1 = (r, r, r) + (kick1 or ())
                        price = _price(_triple_strength(r)) + (0 if kick1 else STRANDED_TRIPLE)
                        groups.append(Group(TRIPLE, r, tuple(sorted(ranks1)), price))
                    continue
                price = _price(_triple_strength(top) if k == 1 else 0.6)
                if not ok:
                    price += STRANDED_TRIPLE
                groups.append(Group(TRIPLE if k == 1 else PLANE, top, body, price))
            else:
                price = _price(_triple_strength(top) if k == 1 else 0.6)
                kind = TRIPLE if k == 1 else PLANE
                groups.append(Group(kind, top, tuple(sorted(body + kick)), price))
        for r in pairs:
            groups.append(Group(PAIR, r, (r, r), _price(_pair_strength(r))))
        for r in singles:
            groups.append(Group(SINGLE, r, (r,), _price(_single_strength(r))))
        return Plan(sum(g.price for g in groups), tuple(groups))

    def _rank_at(self, position: int) -> int:
        return self.pos_rank[self.positions.index(position)]

    def _kickers(
        self, unit: list[int], singles: list[int], pairs: list[int]
    ) -> tuple[int, ...] | None:
        """Take kickers for a triple or plane from the weakest singles or pairs (mutates)."""
        k = len(unit)
        can_single = self.single_kickers if k == 1 else self.plane_singles
        can_pair = self.pair_kickers if k == 1 else self.plane_pairs
        weak_s = [r for r in singles if _single_strength(r) < 0.5]
        weak_p = [r for r in pairs if _pair_strength(r) < 0.5]
        use_single = can_single and len(weak_s) >= k
        use_pair = can_pair and len(weak_p) >= k
        if use_single and use_pair:
            use_pair = weak_p[0] < weak_s[0] and len(weak_s) < len(weak_p) + k
            use_single = not use_pair
        if use_pair:
            chosen = self._pair_wings(unit, weak_p)
            if chosen is not None:
                for r in chosen:
                    pairs.remove(r)
                return tuple(r for r in chosen for _ in range(2))
            if not use_single:
                use_single = can_single and len(weak_s) >= k
        if use_single:
            chosen_s = tuple(weak_s[:k])
            for r in chosen_s:
                singles.remove(r)
            return chosen_s
        bare_ok = self.bare_triple_ok if k == 1 else self.bare_plane_ok
        if can_single and not bare_ok and len(singles) >= k:
            # fenzhou5: a kicker is required, take any singles left
            chosen_s = tuple(singles[:k])
            for r in chosen_s:
                singles.remove(r)
            return chosen_s
        return None

    def _pair_wings(self, unit: list[int], weak_p: list[int]) -> tuple[int, ...] | None:
        k = len(unit)
        if k == 1 or not self.v.wings_consecutive:
            return tuple(weak_p[:k])
        # new5: k pairs on consecutive chain positions
        have = set(weak_p)
        for start in range(len(self.positions) - k + 1):
            ranks = self.pos_rank[start : start + k]
            if len(set(ranks)) == k and all(r in have for r in ranks):
                wing = tuple(sorted(r for r in ranks for _ in range(2)))
                if wing not in self.v.forbidden_wings:
                    return tuple(ranks)
        return None


def _partitions(cards: tuple[int, ...]) -> list[tuple[tuple[int, ...], ...]]:
    """Every split of a small multiset into non-empty sorted parts (duplicates removed)."""
    if not cards:
        return [()]
    first, rest = cards[0], cards[1:]
    out: set[tuple[tuple[int, ...], ...]] = set()
    for size in range(len(rest) + 1):
        for idx in combinations(range(len(rest)), size):
            part = tuple(sorted((first, *(rest[i] for i in idx))))
            remaining = tuple(x for i, x in enumerate(rest) if i not in idx)
            for tail in _partitions(remaining):
                out.add(tuple(sorted((part, *tail))))
    return sorted(out)


_PLANNERS: dict[Variant, Planner] = {}


def planner_for(variant: Variant) -> Planner:
    planner = _PLANNERS.get(variant)
    if planner is None:
        planner = _PLANNERS[variant] = Planner(variant)
    return planner


def clear_caches() -> None:
    """Forget every cached plan (benchmarks measure a cold start with it)."""
    for planner in _PLANNERS.values():
        planner.plans.clear()
        planner.leaves.clear()
        planner.chain_choices.clear()
