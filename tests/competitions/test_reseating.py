"""Re-seating between duplicate rounds repeats the fewest pairs of earlier tablemates that any
seating can (issue #35): checked against a brute force over every seating of small groups."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from competitions import duplicate
from competitions.grouping import group_fewest_repeats, repeats


def _fewest_by_brute_force(players, sizes, avoid):
    """The fewest repeated pairs over every way to seat ``players`` at tables of ``sizes``."""
    if not sizes:
        return 0
    best = None
    for table in itertools.combinations(players, sizes[0]):
        rest = [p for p in players if p not in table]
        cost = repeats([table], avoid) + _fewest_by_brute_force(rest, sizes[1:], avoid)
        best = cost if best is None else min(best, cost)
    return best


@st.composite
def groups(draw):
    sizes = draw(st.sampled_from([[3, 3], [3, 3, 3], [5, 5], [4, 3], [2, 2, 2, 2], [3, 3, 2]]))
    players = list(range(100, 100 + sum(sizes)))
    pairs = list(itertools.combinations(players, 2))
    met = draw(st.sets(st.sampled_from(pairs), max_size=len(pairs)))
    avoid: dict[int, set[int]] = {}
    for a, b in met:
        avoid.setdefault(a, set()).add(b)
    ranked = draw(st.permutations(players))
    return list(ranked), sizes, avoid


@settings(max_examples=150, deadline=None)
@given(groups())
def test_the_seating_found_repeats_no_more_pairs_than_the_best(case):
    ranked, sizes, avoid = case
    tables = group_fewest_repeats(ranked, sizes, avoid=avoid)
    assert [len(t) for t in tables] == list(sizes)
    assert sorted(p for t in tables for p in t) == sorted(ranked)
    assert repeats(tables, avoid) == _fewest_by_brute_force(ranked, sizes, avoid)


def _round_one_mates(tables):
    avoid: dict[int, set[int]] = {}
    for table in tables:
        for a, b in itertools.permutations([p for p in table if p is not None], 2):
            avoid.setdefault(a, set()).add(b)
    return avoid


def test_ten_fenzhou5_players_repeat_eight_pairs_not_twelve():
    """Two tables of five met in round 1; any round 2 repeats at least 8 pairs (3 + 2 of one
    table against 2 + 3 of the other). With these standings the nearest ranks within a short
    look ahead repeated 12 (issue #35)."""
    ranked = list(range(1, 11))
    first = duplicate.seat_round(ranked, seats=5, bots=False)
    avoid = _round_one_mates(first.tables)
    standings = [7, 9, 10, 8, 6, 4, 1, 5, 2, 3]
    second = duplicate.seat_round(standings, seats=5, bots=False, avoid=avoid)
    assert repeats(second.tables, avoid) == 8


def test_ten_classic3_players_meet_nobody_again_when_nobody_must():
    ranked = list(range(1, 11))
    first = duplicate.seat_round(ranked, seats=3, bots=False)
    avoid = _round_one_mates(first.tables)
    sat_out = dict.fromkeys(ranked, 0) | dict.fromkeys(first.sitting_out, 1)
    standings = [2, 10, 8, 1, 6, 3, 7, 4, 5, 9]  # a look ahead repeated one pair here
    second = duplicate.seat_round(standings, seats=3, bots=False, avoid=avoid, sat_out=sat_out)
    playing = [p for t in second.tables for p in t]
    assert repeats(second.tables, avoid) == _fewest_by_brute_force(playing, [3, 3, 3], avoid) == 0
