"""Arena rules (adapted from lichess arenas; README "Arena events"): points per hand with a
win streak, standings, and the tables formed from the waiting pool.

Pure (no Django). A hand's result for a player is ``True`` (his side won), ``False`` (lost)
or ``None`` (no result: everyone passed a classic3 deal).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from competitions.grouping import PlayerId, group_by_rank

WIN_POINTS = 2
# after this many wins in a row, each further win counts double (lichess's "on fire")
STREAK_AFTER = 2


def hand_points(won: bool | None, streak: int) -> tuple[int, int]:
    """(points for the hand, the streak after it) for a player whose streak was ``streak``."""
    if won is None:
        return 0, streak
    if not won:
        return 0, 0
    points = WIN_POINTS * 2 if streak >= STREAK_AFTER else WIN_POINTS
    return points, streak + 1


@dataclass(frozen=True)
class Line:
    """One player's standing: what the hands he finished gave him."""

    user_id: PlayerId
    points: int = 0
    wins: int = 0
    played: int = 0
    streak: int = 0
    joined: int = 0  # registration order, the last tie-break

    def after(self, won: bool | None) -> Line:
        points, streak = hand_points(won, self.streak)
        return replace(
            self,
            points=self.points + points,
            wins=self.wins + (1 if won else 0),
            played=self.played + 1,
            streak=streak,
        )

    @property
    def key(self) -> tuple[int, int, int, int]:
        # more points, then more wins, then fewer hands (the same points in fewer hands),
        # then who registered first
        return (-self.points, -self.wins, self.played, self.joined)


def standings(lines: Iterable[Line]) -> list[Line]:
    """Best first; a total order (no two players share a rank)."""
    return sorted(lines, key=lambda line: line.key)


def recount(
    entrants: Mapping[PlayerId, int], results: Iterable[tuple[PlayerId, bool | None]]
) -> dict[PlayerId, Line]:
    """Every entrant's line from his results in the order the hands finished (``entrants``:
    user id -> registration order). Results of non-entrants (bots) are ignored."""
    lines = {user: Line(user_id=user, joined=order) for user, order in entrants.items()}
    for user, won in results:
        if user in lines:
            lines[user] = lines[user].after(won)
    return lines


@dataclass(frozen=True)
class Waiting:
    """A player in the pool: his rank (0 = leader), how long he has waited, and the humans he
    sat with at his last hand."""

    user_id: PlayerId
    rank: int
    waited: float
    last_mates: frozenset[PlayerId] = field(default_factory=frozenset)


@dataclass(frozen=True)
class PoolRules:
    seats: int
    bots: bool = False  # the event lets bots fill a table
    gather_seconds: float = 10.0  # a small pool waits this long for more players
    bot_wait_seconds: float = 30.0  # a player waits this long before bots fill his table


Table = tuple[PlayerId | None, ...]  # None: a bot's seat


def pair(pool: Sequence[Waiting], rules: PoolRules) -> list[Table]:
    """The tables to deal now. Nothing while the pool is smaller than two tables and nobody has
    waited ``gather_seconds`` (a bigger pool mixes more). Then as many full tables as the pool
    makes, of those who waited longest, grouped by rank avoiding last tablemates; the others
    wait for the next pairing, except that where bots may play, players who waited
    ``bot_wait_seconds`` get a table filled with bots."""
    if not pool:
        return []
    seats = rules.seats
    if len(pool) < 2 * seats and max(w.waited for w in pool) < rules.gather_seconds:
        return []
    by_wait = sorted(pool, key=lambda w: (-w.waited, w.rank))
    full = len(pool) // seats
    chosen, rest = by_wait[: full * seats], by_wait[full * seats :]
    ranked = [w.user_id for w in sorted(chosen, key=lambda w: w.rank)]
    avoid = {w.user_id: w.last_mates for w in pool}
    tables: list[Table] = [tuple(t) for t in group_by_rank(ranked, [seats] * full, avoid=avoid)]
    if rules.bots and rest and max(w.waited for w in rest) >= rules.bot_wait_seconds:
        humans = [w.user_id for w in sorted(rest, key=lambda w: w.rank)]
        tables.append((*humans, *([None] * (seats - len(humans)))))
    return tables
