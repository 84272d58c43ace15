"""Duplicate (复式) rules (README "Duplicate events"): matchpoints and the seating of a round.

Pure (no Django). Every table of the event plays the same deals (boards) in a round. A board's
**seat-role** is the seat position of the deal: whoever held seat ``s`` of board ``b`` at any
table was dealt exactly the same cards, so the holders of seat ``s`` of one board form one
comparison group, whatever the bidding then made of the seat (landlord at one table, farmer at
another). Each is scored by his seat's result: the seat's signed units of the hand's
settlement (0 for every seat of a deal everyone passed). Within a group, a result earns 1
matchpoint for each other result it beats and ½ for each it ties; a group of ``n`` results
shares ``n(n-1)/2`` matchpoints, so a board shares ``seats × n(n-1)/2``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass
from fractions import Fraction

from competitions.grouping import PlayerId, even_sizes, group_fewest_repeats

MIN_TABLES = 2  # a section needs at least two tables to compare anything

Score = Fraction


def matchpoints(results: Sequence[Score]) -> list[Fraction]:
    """Matchpoints of each result of one comparison group (1 per result beaten, ½ per tie)."""
    return [
        sum(
            (
                Fraction(1) if mine > other else Fraction(1, 2) if mine == other else Fraction(0)
                for j, other in enumerate(results)
                if j != i
            ),
            Fraction(0),
        )
        for i, mine in enumerate(results)
    ]


def group_total(size: int) -> Fraction:
    return Fraction(size * (size - 1), 2)


def board_matchpoints(
    results: Mapping[int, Sequence[Score]],
) -> dict[tuple[int, int], Fraction]:
    """``results``: table -> each seat's result on the board. Returns (table, seat) ->
    matchpoints, comparing each seat with the same seat at the other tables."""
    tables = sorted(results)
    seats = {len(results[t]) for t in tables}
    if len(seats) > 1:
        raise ValueError("every table of a board has the same number of seats")
    out: dict[tuple[int, int], Fraction] = {}
    for seat in range(seats.pop() if seats else 0):
        points = matchpoints([Fraction(results[t][seat]) for t in tables])
        for table, mp in zip(tables, points, strict=True):
            out[(table, seat)] = mp
    return out


def percent(points: Fraction, top: Fraction) -> Fraction:
    """Matchpoints as a share of the most one could have earned (50 before any board)."""
    return Fraction(50) if top == 0 else points * 100 / top


class TooFewPlayers(ValueError):
    """Not enough players for two tables."""


@dataclass(frozen=True)
class Seating:
    tables: list[tuple[PlayerId | None, ...]]  # seat order; None: a bot
    sitting_out: list[PlayerId]


def seat_round(
    ranked: Sequence[PlayerId],
    *,
    seats: int,
    bots: bool,
    avoid: Mapping[PlayerId, Set[PlayerId]] | None = None,
    sat_out: Mapping[PlayerId, int] | None = None,
) -> Seating:
    """The tables of a round from the players ranked best first. With bots: at least two
    tables, the players spread evenly and bots on the free seats. Without: as many full tables
    as there are players for, the others sitting this round out (who sat out least, lowest
    ranked first). Tables repeat as few pairs of earlier tablemates as any seating can, then
    group the nearest ranks (``group_fewest_repeats``); table ``k`` rotates its seats by ``k``
    so that no rank keeps one seat."""
    players = len(ranked)
    count = max(MIN_TABLES, math.ceil(players / seats)) if bots else players // seats
    # without bots, two full tables need 2 × seats players: count < MIN_TABLES says so already
    if count < MIN_TABLES or players < MIN_TABLES:
        raise TooFewPlayers(f"{players} players cannot fill {MIN_TABLES} tables of {seats}")
    sat_out = sat_out or {}
    out: list[PlayerId] = []
    playing = list(ranked)
    if not bots:
        spare = players - count * seats
        order = {p: i for i, p in enumerate(ranked)}
        out = sorted(ranked, key=lambda p: (sat_out.get(p, 0), -order[p]))[:spare]
        playing = [p for p in ranked if p not in out]
    sizes = even_sizes(len(playing), count)
    groups = group_fewest_repeats(playing, sizes, avoid=avoid)
    tables = []
    for k, group in enumerate(groups):
        row: list[PlayerId | None] = [*group, *([None] * (seats - len(group)))]
        shift = k % seats
        tables.append(tuple(row[shift:] + row[:shift]))
    return Seating(tables=tables, sitting_out=out)
