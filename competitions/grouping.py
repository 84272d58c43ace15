"""Tables from a ranked list of players: nearest ranks together, avoiding recent tablemates.

Pure (no Django): both formats seat players with it, the arena from its waiting pool after
every hand (``group_by_rank``: nearest ranks first, a tablemate avoided within a short look
ahead), the duplicate event between rounds (``group_fewest_repeats``: the fewest earlier pairs
again, then the nearest ranks).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set

PlayerId = int

# how far down the ranking a table may reach for a player who has not met its others
LOOK_AHEAD_TABLES = 2
# the most players the fewest-repeats search places before it settles for the best seating it
# has found (an event's groups are small: 10 players search in a few hundred steps)
SEARCH_STEPS = 200_000


def met(a: PlayerId, b: PlayerId, avoid: Mapping[PlayerId, Set[PlayerId]]) -> bool:
    return b in avoid.get(a, ()) or a in avoid.get(b, ())


def repeats(tables: Sequence[Sequence[PlayerId]], avoid: Mapping[PlayerId, Set[PlayerId]]) -> int:
    """How many pairs of tablemates in ``tables`` met before."""
    return sum(
        met(a, b, avoid) for table in tables for i, a in enumerate(table) for b in table[i + 1 :]
    )


def group_by_rank(
    ranked: Sequence[PlayerId],
    sizes: Sequence[int],
    *,
    avoid: Mapping[PlayerId, Set[PlayerId]] | None = None,
) -> list[list[PlayerId]]:
    """Split ``ranked`` (best first) into tables of the given ``sizes`` (their sum must be the
    number of players). Each table starts with the best player not yet seated and takes, one by
    one, the next best who has met nobody already at it (``avoid``), looking at most
    ``LOOK_AHEAD_TABLES`` tables' worth of players ahead; when nobody there fits, simply the
    next best. Every player is seated exactly once."""
    if sum(sizes) != len(ranked) or any(size < 1 for size in sizes):
        raise ValueError("the table sizes must add up to the number of players")
    if len(set(ranked)) != len(ranked):
        raise ValueError("a player is listed twice")
    avoid = avoid or {}
    left = list(ranked)
    tables: list[list[PlayerId]] = []
    for size in sizes:
        table = [left.pop(0)]
        window = LOOK_AHEAD_TABLES * size
        while len(table) < size:
            fits = (
                i
                for i, player in enumerate(left[:window])
                if not any(met(player, other, avoid) for other in table)
            )
            table.append(left.pop(next(fits, 0)))
        tables.append(table)
    return tables


def even_sizes(players: int, tables: int) -> list[int]:
    """``players`` spread over ``tables`` as evenly as possible, the fuller tables first."""
    base, extra = divmod(players, tables)
    return [base + 1] * extra + [base] * (tables - extra)


def group_fewest_repeats(
    ranked: Sequence[PlayerId],
    sizes: Sequence[int],
    *,
    avoid: Mapping[PlayerId, Set[PlayerId]] | None = None,
) -> list[list[PlayerId]]:
    """Split ``ranked`` (best first) into tables of the given ``sizes`` so that as few pairs of
    tablemates as possible met before (``avoid``); among the seatings that repeat the fewest,
    ``group_by_rank``'s if it is one, else the first in rank order (each table's players in
    rank order, the tables by their best player: nearest ranks together).

    An exact branch-and-bound search: tables filled in rank order, a branch dropped as soon as
    it repeats as many pairs as the best seating found (``group_by_rank``'s to begin with).
    It stops after ``SEARCH_STEPS`` placed players with the best found so far (never worse than
    ``group_by_rank``); an event's groups are far smaller than that."""
    best = group_by_rank(ranked, sizes, avoid=avoid)
    avoid = avoid or {}
    if not avoid:
        return best
    order = list(ranked)
    n = len(order)
    # clash[i][j]: players i and j (by rank) met before
    clash = [[met(a, b, avoid) for b in order] for a in order]
    best_cost = repeats(best, avoid)
    found: list[list[int]] | None = None
    seated = [False] * n
    tables: list[list[int]] = []
    steps = 0

    def place(k: int, start: int, cost: int) -> None:
        # fill table k from rank index ``start`` on; ``cost``: pairs repeated so far
        nonlocal best_cost, found, steps
        if steps >= SEARCH_STEPS:
            return
        table = tables[k]
        if len(table) == sizes[k]:
            if k + 1 == len(sizes):
                best_cost, found = cost, [list(t) for t in tables]
                return
            # tables of one size are alike: the next one's best player ranks below this one's
            head = table[0] + 1 if sizes[k + 1] == sizes[k] else 0
            tables.append([])
            place(k + 1, head, cost)
            tables.pop()
            return
        if not table and all(size == sizes[k] for size in sizes[k:]):
            # the best unseated player heads this table (or a later one of the same size)
            first = seated.index(False)
            start = max(start, first)
            stop = first + 1
        else:
            stop = n
        for i in range(start, stop):
            if seated[i]:
                continue
            added = cost + sum(clash[i][j] for j in table)
            if added >= best_cost:
                continue
            steps += 1
            seated[i] = True
            table.append(i)
            place(k, i + 1, added)
            table.pop()
            seated[i] = False
            if best_cost == 0 or steps >= SEARCH_STEPS:
                return

    tables.append([])
    place(0, 0, 0)
    if found is None:
        return best
    return [[order[i] for i in table] for table in found]
