"""Re-seating between duplicate rounds repeats the fewest pairs of earlier tablemates that any
seating can (issue #35): checked against a brute force over every seating of small groups."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from competitions import duplicate, grouping
from competitions.grouping import group_by_rank, group_fewest_repeats, repeats


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


def _seatings_in_rank_order(players, sizes, previous_head=None, previous_size=None):
    """Every seating of ``players`` (best first) at tables of ``sizes``, each table's players in
    rank order, a table's best player ranked below the one before it when both are the same
    size (the same seating otherwise), in rank order of the seatings."""
    if not sizes:
        yield []
        return
    for table in itertools.combinations(players, sizes[0]):
        if sizes[0] == previous_size and players.index(table[0]) < previous_head:
            continue
        rest = [p for p in players if p not in table]
        for tables in _seatings_in_rank_order(rest, sizes[1:], 0, sizes[0]):
            yield [list(table), *tables]


def _first_of_the_fewest(ranked, sizes, avoid):
    greedy = group_by_rank(ranked, sizes, avoid=avoid)
    seatings = list(_seatings_in_rank_order(list(ranked), list(sizes)))
    fewest = min(repeats(tables, avoid) for tables in seatings)
    if repeats(greedy, avoid) == fewest:
        return greedy
    return next(tables for tables in seatings if repeats(tables, avoid) == fewest)


# any order of sizes: a smaller table before a larger one too ([3, 3, 4])
SMALL_SIZES = [[3, 3], [3, 3, 3], [4, 3], [3, 4], [2, 2, 2, 2], [3, 3, 2], [2, 3, 2], [3, 3, 4]]
SMALL_SIZES += [[2, 2, 3], [4, 4, 3]]


@st.composite
def small_groups(draw):
    sizes = draw(st.sampled_from(SMALL_SIZES))
    players = list(range(100, 100 + sum(sizes)))
    pairs = list(itertools.combinations(players, 2))
    met = draw(st.sets(st.sampled_from(pairs), max_size=len(pairs)))
    avoid: dict[int, set[int]] = {}
    for a, b in met:
        avoid.setdefault(a, set()).add(b)
    return list(draw(st.permutations(players))), sizes, avoid


@settings(max_examples=120, deadline=None)
@given(small_groups())
@example(  # a smaller table first: a search that seats a table's players out of rank order errs
    (
        [5, 6, 1, 4, 3, 7, 9, 2, 10, 8],
        [3, 3, 4],
        {1: {2, 3, 4, 5, 6, 7, 8, 9, 10}, 2: {3, 4, 5, 6, 7, 9, 10}, 3: {4, 5, 7, 8, 9, 10}}
        | {4: {5, 6, 7, 8, 9, 10}, 5: {8, 9, 10}, 6: {7, 8, 9, 10}, 7: {8, 9, 10}, 8: {9, 10}},
    )
)
def test_of_the_seatings_that_repeat_the_fewest_the_one_in_rank_order_is_chosen(case):
    """Which of the seatings that repeat the fewest pairs: ``group_by_rank``'s if it is one, else
    the first in rank order (each table's players by rank, tables of one size by their best
    player), checked against every seating. E.g. 1..6 at two tables of 3, where 2 and 5 met:
    ``group_by_rank`` gives [1, 2, 3], [4, 5, 6] (no repeat). Wrong rules caught: the last such
    seating the search meets, or one whose tables are not in rank order."""
    ranked, sizes, avoid = case
    assert group_fewest_repeats(ranked, sizes, avoid=avoid) == _first_of_the_fewest(
        ranked, sizes, avoid
    )


def test_group_by_ranks_seating_stays_when_none_repeats_fewer():
    """1, 2 and 6 all met: any two tables of three seat two of them together again. The nearest
    ranks avoiding tablemates seat [1, 3, 4], [2, 5, 6] (one repeat, 2 and 6); [1, 2, 3],
    [4, 5, 6] comes first in rank order and also repeats one (1 and 2), but it is no better, so
    ``group_by_rank``'s seating stays. Wrong rules caught: starting the search from the plain
    rank order, or taking a seating that only ties."""
    avoid = {1: {2, 6}, 2: {6}}
    assert group_fewest_repeats([1, 2, 3, 4, 5, 6], [3, 3], avoid=avoid) == [
        [1, 3, 4],
        [2, 5, 6],
    ]


@pytest.mark.parametrize(
    ("budget", "tables"), [(10, [[1, 3, 4], [2, 5, 6]]), (11, [[1, 3, 5], [2, 4, 6]])]
)
def test_the_search_stops_after_its_budget_of_placed_players(monkeypatch, budget, tables):
    """1 and 2 met, so did 5 and 6. ``group_by_rank`` seats [1, 3, 4], [2, 5, 6] (one repeat,
    5 and 6). The search places one player a step: 1, 3, 4 | 2, 5 (6 after 5 pruned), 6 after
    2; then 5 after 1, 3 | 2, 4, 6: its 10th step completes [1, 3, 5], [2, 4, 6] (no repeat).
    With a budget of 10 it stops on making its 10th step, before it looks at the seating that one
    completed, and keeps ``group_by_rank``'s; with 11 it takes the better one. Wrong rules
    caught: a budget counted from 1, counted twice per placement, or never reached."""
    monkeypatch.setattr(grouping, "SEARCH_STEPS", budget)
    avoid = {1: {2}, 5: {6}}
    assert group_fewest_repeats([1, 2, 3, 4, 5, 6], [3, 3], avoid=avoid) == tables


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
