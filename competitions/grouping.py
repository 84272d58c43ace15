"""Tables from a ranked list of players: nearest ranks together, avoiding recent tablemates.

Pure (no Django): both formats seat players with it, the arena from its waiting pool after
every hand, the duplicate event between rounds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set

PlayerId = int

# how far down the ranking a table may reach for a player who has not met its others
LOOK_AHEAD_TABLES = 2


def met(a: PlayerId, b: PlayerId, avoid: Mapping[PlayerId, Set[PlayerId]]) -> bool:
    return b in avoid.get(a, ()) or a in avoid.get(b, ())


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
