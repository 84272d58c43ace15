"""The pure rules of events: grouping, arena points and pairing, matchpoints and the seating
of a duplicate round, prize bands, schedules (no database)."""

from __future__ import annotations

import datetime
import zoneinfo
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from competitions import arena, duplicate, prizes, schedule
from competitions.grouping import group_by_rank, met

FAST = settings(max_examples=60, deadline=None)


# --------------------------------------------------------------------------- grouping


def test_group_by_rank_looks_two_tables_ahead_for_a_new_tablemate():
    """A table looks at most two tables' worth of players down the ranking (6 for tables of 3)
    for one its members have not met; when nobody there fits, it takes the next best. 1 met
    2..7: players 2..7 are the six ahead, so 1 sits with 2 (a repeat), and then with 8, the
    first of 3..8 who met neither 1 nor 2. Wrong rule caught: looking down the whole ranking,
    which seats the leader with 8 and 9, the last two."""
    avoid = {1: set(range(2, 8))}
    tables = group_by_rank(list(range(1, 10)), [3, 3, 3], avoid=avoid)
    assert tables == [[1, 2, 8], [3, 4, 5], [6, 7, 9]]


@FAST
@given(st.integers(1, 8), st.sampled_from([3, 5]), st.data())
def test_group_by_rank_seats_everyone_once(tables, size, data):
    ranked = list(range(100, 100 + tables * size))
    avoid = {p: frozenset(data.draw(st.sets(st.sampled_from(ranked), max_size=4))) for p in ranked}
    grouped = group_by_rank(ranked, [size] * tables, avoid=avoid)
    seated = [p for t in grouped for p in t]
    assert sorted(seated) == sorted(ranked)
    assert all(len(t) == size for t in grouped)


def test_group_by_rank_avoids_tablemates_when_it_can():
    ranked = list(range(9))
    # 0, 1 and 2 sat together last time: the nearest ranks that have not met are taken
    avoid = {0: {1, 2}, 1: {0, 2}, 2: {0, 1}}
    tables = group_by_rank(ranked, [3, 3, 3], avoid=avoid)
    for table in tables:
        assert not any(met(a, b, avoid) for a in table for b in table if a != b)
    assert tables[0][0] == 0  # the leader heads the first table


def no_repeated_pair(tables, avoid):
    return not any(met(a, b, avoid) for t in tables for a in t for b in t if a != b)


@pytest.mark.parametrize("avoid", [{0: {1}}, {1: {0}}], ids=["leader-remembers", "other-remembers"])
def test_group_by_rank_checks_a_meeting_in_both_directions(avoid):
    """Players 0 and 1 met, but only one of them lists the other: they are still kept apart
    (ranks 0..5 in two tables of 3: 0 sits without 1). Wrong rule caught: looking up only the
    newcomer's list, or only the seated player's."""
    tables = group_by_rank(list(range(6)), [3, 3], avoid=avoid)
    assert not any({0, 1} <= set(t) for t in tables)
    assert tables[0][0] == 0


def test_group_by_rank_checks_every_player_already_at_the_table():
    """Player 2 met player 1 (not the leader 0): at the table [0, 1] he does not fit, 3 does.
    Wrong rule caught: checking a newcomer against the table's first player only."""
    avoid = {2: {1}, 1: {2}}
    tables = group_by_rank(list(range(6)), [3, 3], avoid=avoid)
    assert not any({1, 2} <= set(t) for t in tables)
    assert no_repeated_pair(tables, avoid)


def test_group_by_rank_looks_two_tables_ahead_for_someone_new():
    """The leader 0 has met 1, 2 and 3 (a whole table's worth right below him): the look-ahead of
    two tables' worth finds 4 and 5, and ranks 0..8 make three tables with no repeated pair.
    Wrong rule caught: a look-ahead of one table's worth, which sees only 1, 2, 3 and seats the
    leader with two of them again."""
    avoid = {0: {1, 2, 3}, 1: {0}, 2: {0}, 3: {0}}
    tables = group_by_rank(list(range(9)), [3, 3, 3], avoid=avoid)
    assert sorted(p for t in tables for p in t) == list(range(9))
    assert no_repeated_pair(tables, avoid)
    assert tables[0][0] == 0


@pytest.mark.parametrize(
    ("ranked", "sizes"),
    [([0, 1, 2], [4]), ([0, 1, 2], [2]), ([0, 1, 2], [3, 0]), ([0, 1, 1], [3])],
    ids=["too-few-players", "too-many-players", "an-empty-table", "a-player-twice"],
)
def test_group_by_rank_refuses_sizes_that_do_not_seat_everyone_once(ranked, sizes):
    with pytest.raises(ValueError):
        group_by_rank(ranked, sizes)


def test_group_by_rank_falls_back_to_nearest_rank():
    avoid = {0: {1, 2}, 1: {0, 2}, 2: {0, 1}}
    assert group_by_rank([0, 1, 2], [3], avoid=avoid) == [[0, 1, 2]]


# --------------------------------------------------------------------------- arena


def test_arena_points_and_streak():
    line = arena.Line(user_id=1)
    for won in (True, True, True, True, False, True, None):
        line = line.after(won)
    # 2 + 2 + 4 + 4 (on a streak from the third win) + 0 + 2 + 0 (no result keeps the streak)
    assert (line.points, line.wins, line.played, line.streak) == (14, 5, 7, 1)


def test_arena_standings_tie_breaks():
    a = arena.Line(user_id=1, points=4, wins=2, played=3, joined=2)
    b = arena.Line(user_id=2, points=4, wins=2, played=2, joined=3)
    c = arena.Line(user_id=3, points=4, wins=2, played=2, joined=1)
    assert [line.user_id for line in arena.standings([a, b, c])] == [3, 2, 1]


def test_arena_standings_more_wins_before_fewer_hands():
    """Equal points, more wins first: A won 3 in a row (2 + 2 + 4 = 8 points in 3 hands), B won 4
    with a loss between each (2 × 4 = 8 points in 7 hands); B is ahead. Wrong rule caught:
    dropping the wins tie-break, so the fewer hands put A first."""
    a = arena.Line(user_id=1, joined=1)
    for won in (True, True, True):
        a = a.after(won)
    b = arena.Line(user_id=2, joined=2)
    for won in (True, False, True, False, True, False, True):
        b = b.after(won)
    assert (a.points, a.wins, a.played) == (8, 3, 3)
    assert (b.points, b.wins, b.played) == (8, 4, 7)
    assert [line.user_id for line in arena.standings([a, b])] == [2, 1]


def test_arena_tables_group_by_rank_not_by_waiting_time():
    """Six waiting players (ids 100 + rank), waits in an order unlike their ranks: the tables of 3
    are ranks 0-2 and 3-5. Wrong rule caught: forming tables in waiting order (the longest
    waiters together), which every test with equal waits let through."""
    waits = {0: 12.0, 1: 40.0, 2: 15.0, 3: 50.0, 4: 11.0, 5: 30.0}
    pool = [arena.Waiting(user_id=100 + r, rank=r, waited=w) for r, w in waits.items()]
    assert arena.pair(pool, arena.PoolRules(seats=3)) == [(100, 101, 102), (103, 104, 105)]


def test_arena_the_shortest_wait_sits_out_and_the_rest_group_by_rank():
    """Seven players for tables of 3: the six who waited longest play, grouped by rank; the
    leader, who waited least, waits for the next pairing: tables 1-3 and 4-6."""
    pool = [arena.Waiting(user_id=r, rank=r, waited=20.0 - r) for r in range(1, 7)]
    pool.append(arena.Waiting(user_id=0, rank=0, waited=1.0))
    assert arena.pair(pool, arena.PoolRules(seats=3)) == [(1, 2, 3), (4, 5, 6)]


pools = st.lists(
    st.tuples(st.integers(0, 60), st.floats(0, 120), st.sets(st.integers(0, 40), max_size=4)),
    max_size=30,
    unique_by=lambda t: t[0],
)


@FAST
@given(pools, st.sampled_from([3, 5]), st.booleans())
def test_arena_pairing_properties(raw, seats, bots):
    pool = [
        arena.Waiting(user_id=uid, rank=i, waited=w, last_mates=frozenset(m))
        for i, (uid, w, m) in enumerate(raw)
    ]
    rules = arena.PoolRules(seats=seats, bots=bots, gather_seconds=10, bot_wait_seconds=30)
    tables = arena.pair(pool, rules)
    humans = [p for t in tables for p in t if p is not None]
    assert len(humans) == len(set(humans)), "nobody at two tables"
    assert set(humans) <= {w.user_id for w in pool}
    assert all(len(t) == seats for t in tables)
    assert all(any(p is not None for p in t) for t in tables), "no table of bots alone"
    if not bots:
        assert None not in {p for t in tables for p in t}
    waited = max((w.waited for w in pool), default=0)
    if len(pool) >= seats and (len(pool) >= 2 * seats or waited >= 10):
        assert len(tables) >= len(pool) // seats


def test_arena_pairing_waits_to_gather_a_small_pool():
    pool = [arena.Waiting(user_id=i, rank=i, waited=1.0) for i in range(3)]
    assert arena.pair(pool, arena.PoolRules(seats=3)) == []
    late = [arena.Waiting(user_id=i, rank=i, waited=11.0) for i in range(3)]
    assert arena.pair(late, arena.PoolRules(seats=3)) == [(0, 1, 2)]


def test_arena_pairing_deals_a_pool_of_two_tables_at_once():
    """Six players for tables of 3 pair at once, nobody having waited (a pool of two tables
    mixes enough); three wait until one of them has waited the 10 gather seconds, then pair.
    Wrong rules caught: waiting for more than two tables, or for longer than 10 s."""
    rules = arena.PoolRules(seats=3, gather_seconds=10)
    six = [arena.Waiting(user_id=i, rank=i, waited=0.0) for i in range(6)]
    assert arena.pair(six, rules) == [(0, 1, 2), (3, 4, 5)]
    three = [arena.Waiting(user_id=i, rank=i, waited=9.5) for i in range(3)]
    assert arena.pair(three, rules) == []
    three = [arena.Waiting(user_id=i, rank=i, waited=10.0 if i == 2 else 0.0) for i in range(3)]
    assert arena.pair(three, rules) == [(0, 1, 2)]


def test_arena_pairing_bots_only_after_their_wait():
    pool = [arena.Waiting(user_id=i, rank=i, waited=20.0) for i in range(2)]
    rules = arena.PoolRules(seats=5, bots=True, bot_wait_seconds=30)
    assert arena.pair(pool, rules) == []
    pool = [arena.Waiting(user_id=i, rank=i, waited=30.0 if i else 29.0) for i in range(2)]
    assert arena.pair(pool, rules) == [(0, 1, None, None, None)]


def test_arena_pairing_avoids_last_tablemates():
    """Ranks 0..5 for tables of 3, and 0 sat with 1 at his last hand: they are not seated
    together again (without the memory: (0, 1, 2), (3, 4, 5))."""
    pool = [
        arena.Waiting(user_id=r, rank=r, waited=0.0, last_mates=frozenset({1 - r} if r < 2 else ()))
        for r in range(6)
    ]
    tables = arena.pair(pool, arena.PoolRules(seats=3))
    assert len(tables) == 2
    assert not any({0, 1} <= set(t) for t in tables)


@FAST
@given(st.lists(st.tuples(st.integers(0, 5), st.sampled_from([True, False, None])), max_size=40))
def test_arena_recount_is_the_fold_of_the_results(results):
    entrants = {u: u for u in range(4)}  # user 4 and 5 are bots or strangers: never scored
    lines = arena.recount(entrants, results)
    assert set(lines) == set(entrants)
    for user, line in lines.items():
        mine = [won for u, won in results if u == user]
        assert (line.user_id, line.joined) == (user, entrants[user])
        assert line.played == len(mine)
        assert line.wins == sum(1 for won in mine if won)
        assert line.points >= arena.WIN_POINTS * line.wins


# --------------------------------------------------------------------------- duplicate


@FAST
@given(
    st.integers(2, 8).flatmap(
        lambda tables: st.lists(
            st.lists(st.integers(-6, 6), min_size=3, max_size=3),
            min_size=tables,
            max_size=tables,
        )
    )
)
def test_matchpoints_sum_to_the_fixed_total_per_board(rows):
    results = {t: [Fraction(u) for u in row] for t, row in enumerate(rows)}
    points = duplicate.board_matchpoints(results)
    tables = len(rows)
    assert sum(points.values()) == 3 * duplicate.group_total(tables)
    for seat in range(3):
        group = [points[(t, seat)] for t in range(tables)]
        assert sum(group) == duplicate.group_total(tables)
        assert all(0 <= mp <= tables - 1 for mp in group)


def test_matchpoints_beats_and_ties():
    assert duplicate.matchpoints([Fraction(2), Fraction(-1), Fraction(2)]) == [
        Fraction(3, 2),
        Fraction(0),
        Fraction(3, 2),
    ]
    assert duplicate.percent(Fraction(3), Fraction(4)) == 75


def test_percent_is_50_before_any_board():
    """With no board played (top 0) everybody stands at 50 %, the middle, not 0 %."""
    assert duplicate.percent(Fraction(0), Fraction(0)) == 50
    assert duplicate.percent(Fraction(1), Fraction(4)) == 25


def test_seat_round_rotates_table_k_by_k_seats():
    """Nine players ranked 0..8, tables of 3: groups 0-2, 3-5, 6-8; table k turns its seats by k
    so that no rank keeps one seat: (0, 1, 2), (4, 5, 3), (8, 6, 7). Wrong rule caught: no
    rotation, or turning every table alike."""
    seating = duplicate.seat_round(list(range(9)), seats=3, bots=False)
    assert seating.tables == [(0, 1, 2), (4, 5, 3), (8, 6, 7)]
    assert seating.sitting_out == []


def test_seat_round_with_bots_needs_two_players():
    """Two players and bots make two tables of one player each (table 1 turned by one seat); one
    player is too few."""
    seating = duplicate.seat_round([0, 1], seats=3, bots=True)
    assert seating.tables == [(0, None, None), (None, None, 1)]
    with pytest.raises(duplicate.TooFewPlayers):
        duplicate.seat_round([0], seats=3, bots=True)


def test_seat_round_keeps_earlier_tablemates_apart():
    """Ranks 0..5 in tables of 3 where 0 and 1 sat together in an earlier round: they do not
    meet again (without the round's memory: (0, 1, 2))."""
    seating = duplicate.seat_round(list(range(6)), seats=3, bots=False, avoid={0: {1}, 1: {0}})
    assert not any({0, 1} <= set(t) for t in seating.tables)


def test_seat_round_rotates_the_bots_seats_too():
    """Four players with bots, tables of 3: two tables of 2 players and a bot; table 1 turns, so
    its bot takes seat 1: (0, 1, None), (3, None, 2)."""
    seating = duplicate.seat_round(list(range(4)), seats=3, bots=True)
    assert seating.tables == [(0, 1, None), (3, None, 2)]


def test_board_matchpoints_refuses_tables_of_different_sizes_and_takes_no_tables():
    with pytest.raises(ValueError):
        duplicate.board_matchpoints({0: [1, -1, 0], 1: [1, -1]})
    assert duplicate.board_matchpoints({}) == {}


@FAST
@given(st.integers(1, 24), st.sampled_from([3, 5]), st.booleans())
def test_seat_round_properties(players, seats, bots):
    ranked = list(range(players))
    try:
        seating = duplicate.seat_round(ranked, seats=seats, bots=bots)
    except duplicate.TooFewPlayers:
        assert players < (2 if bots else 2 * seats)
        return
    seated = [p for t in seating.tables for p in t if p is not None]
    assert sorted(seated + seating.sitting_out) == ranked
    assert len(seating.tables) >= duplicate.MIN_TABLES
    assert all(len(t) == seats for t in seating.tables)
    if bots:
        assert not seating.sitting_out
        counts = [sum(p is not None for p in t) for t in seating.tables]
        assert max(counts) - min(counts) <= 1
    else:
        assert all(None not in t for t in seating.tables)
        assert len(seating.sitting_out) < seats


def test_seat_round_sits_out_who_sat_out_least():
    seating = duplicate.seat_round(list(range(7)), seats=3, bots=False, sat_out={6: 1})
    assert seating.sitting_out == [5]


# --------------------------------------------------------------------------- prizes


def test_bands_round_trip_and_refusals():
    bands = prizes.parse_bands("1:50, 2:30, 3-4:10")
    assert prizes.format_bands(bands) == "1:50, 2:30, 3-4:10"
    assert prizes.parse_bands("") == ()
    for bad in ("1:50, 2:30", "2:100", "1:50, 3:50", "first:100", "1:0, 2:100"):
        with pytest.raises(prizes.BadBands):
            prizes.parse_bands(bad)


def test_bands_of_1_percent_are_allowed():
    assert prizes.parse_bands("1:97, 2-4:1") == (prizes.Band(1, 1, 97), prizes.Band(2, 4, 1))


@pytest.mark.parametrize(
    ("text", "refusal", "message"),
    [
        ("1:50, 2:thirty", prizes.NotABand, "not a band: '2:thirty'"),
        (
            "1:50, 3:50",
            prizes.BandsOutOfOrder,
            "bands run from rank 1 on, without gaps, each at least 1 %",
        ),
        ("1:50, 2:30", prizes.BandsNotWhole, "the bands' shares add up to 100 %"),
    ],
)
def test_bands_refusals_say_what_is_wrong(text, refusal, message):
    """The refusal's kind picks the words the admin's event form shows under the prize bands, in
    the reader's language (competitions/models.py ``bands_refusal``): "1:50, 3:50" skips rank 2,
    "1:50, 2:30" shares out 80 %."""
    with pytest.raises(refusal) as refused:
        prizes.parse_bands(text)
    assert str(refused.value) == message


def test_a_refused_band_names_the_part_it_could_not_read():
    """The admin's refusal quotes the part it could not read (competitions/models.py
    ``bands_refusal``): in "1:50, 2:thirty" that is "2:thirty", without the space after the
    comma."""
    with pytest.raises(prizes.NotABand) as refused:
        prizes.parse_bands("1:50, 2:thirty")
    assert refused.value.part == "2:thirty"


@pytest.mark.parametrize("text", ["1:50, 1:50", "1:40, 1-2:30", "1-2:25, 2-3:25"])
def test_overlapping_bands_are_refused(text):
    """Each text adds up to 100 % but names a rank twice (rank 1 in "1:50, 1:50"). Wrong rule
    caught: checking only that a band does not start after the next free rank (no gap), not
    that it starts exactly there (no overlap)."""
    with pytest.raises(prizes.BadBands):
        prizes.parse_bands(text)


def test_a_pool_of_0_pays_nobody():
    """An event without fees: no prize list at all, not a list of zeros for ranks 1..3."""
    bands = prizes.parse_bands("1:50, 2:30, 3:20")
    assert prizes.payouts(pool=0, bands=bands, ranked=3) == []
    assert prizes.payouts(pool=10, bands=bands, ranked=3) == [5, 3, 2]


@FAST
@given(st.integers(0, 10**7), st.integers(0, 12), st.sampled_from(["1:100", "1:50, 2:30, 3-4:10"]))
def test_payouts_add_up_to_the_pool(pool, ranked, text):
    bands = prizes.parse_bands(text)
    paid = prizes.payouts(pool=pool, bands=bands, ranked=ranked)
    if ranked and pool:
        assert sum(paid) == pool
        assert paid == sorted(paid, reverse=True)
        assert len(paid) == min(ranked, bands[-1].last)
    else:
        assert paid == []


def test_house_cut_rounds_down():
    assert prizes.house_cut(999, 10) == 99
    assert prizes.house_cut(0, 50) == 0
    assert prizes.house_cut(999, 0) == 0
    assert prizes.house_cut(999, 100) == 999


@pytest.mark.parametrize(("fees", "percent"), [(-1, 10), (100, -1), (100, 101)])
def test_house_cut_refuses_negative_fees_and_a_cut_outside_0_to_100(fees, percent):
    with pytest.raises(ValueError):
        prizes.house_cut(fees, percent)


# --------------------------------------------------------------------------- schedule


def test_weekly_and_daily_occurrences_keep_the_club_clock():
    tz = zoneinfo.ZoneInfo("Asia/Shanghai")
    after = datetime.datetime(2026, 12, 3, 21, 0, tzinfo=tz)  # a Thursday, 21:00
    until = after + datetime.timedelta(days=15)
    weekly = list(
        schedule.occurrences(
            cadence="weekly", at=datetime.time(20, 0), weekday=4, tz=tz, after=after, until=until
        )
    )
    assert [d.date().isoformat() for d in weekly] == ["2026-12-04", "2026-12-11", "2026-12-18"]
    daily = list(
        schedule.occurrences(
            cadence="daily", at=datetime.time(21, 0), weekday=None, tz=tz, after=after, until=until
        )
    )
    assert daily[0] == after + datetime.timedelta(days=1) and len(daily) == 15
    with pytest.raises(ValueError):
        next(
            schedule.occurrences(
                cadence="weekly", at=datetime.time(1), weekday=None, tz=tz, after=after, until=until
            )
        )


def daily(*, at, tz, after, days=3):
    return list(
        schedule.occurrences(
            cadence="daily",
            at=at,
            weekday=None,
            tz=tz,
            after=after,
            until=after + datetime.timedelta(days=days),
        )
    )


def test_daily_schedule_starts_later_the_same_day():
    """After 10:00 on 3 December, a daily 21:00 starts that very evening, then each day. Wrong
    rule caught: starting the search on the next day."""
    tz = zoneinfo.ZoneInfo("Asia/Shanghai")
    starts = daily(
        at=datetime.time(21, 0), tz=tz, after=datetime.datetime(2026, 12, 3, 10, tzinfo=tz)
    )
    assert [s.isoformat() for s in starts] == [
        "2026-12-03T21:00:00+08:00",
        "2026-12-04T21:00:00+08:00",
        "2026-12-05T21:00:00+08:00",
    ]


def test_daily_schedule_of_a_club_west_of_utc_keeps_its_own_date():
    """A Los Angeles club at 20:00 on 3 December (already 4 December, 04:00 UTC): its daily
    21:00 starts on 3 December, its own date. Wrong rule caught: taking the date from UTC (or
    the server's zone), one day late."""
    tz = zoneinfo.ZoneInfo("America/Los_Angeles")
    after = datetime.datetime(2026, 12, 4, 4, 0, tzinfo=datetime.UTC)  # 20:00 on 3 Dec there
    starts = daily(at=datetime.time(21, 0), tz=tz, after=after, days=1)
    assert [s.isoformat() for s in starts] == ["2026-12-03T21:00:00-08:00"]


@pytest.mark.parametrize("weekday", [0, 6])
def test_weekly_schedule_accepts_monday_to_sunday(weekday):
    """Weekdays run 0 (Monday) to 6 (Sunday), both ends included: 7 December 2026 is a Monday."""
    tz = zoneinfo.ZoneInfo("Asia/Shanghai")
    after = datetime.datetime(2026, 12, 6, 12, tzinfo=tz)  # a Sunday, noon
    starts = schedule.occurrences(
        cadence="weekly",
        at=datetime.time(20, 0),
        weekday=weekday,
        tz=tz,
        after=after,
        until=after + datetime.timedelta(days=7),
    )
    assert next(starts).date() == datetime.date(2026, 12, 6 if weekday == 6 else 7)


@pytest.mark.parametrize("weekday", [-1, 7])
def test_weekly_schedule_refuses_a_weekday_outside_0_to_6(weekday):
    tz = zoneinfo.ZoneInfo("Asia/Shanghai")
    after = datetime.datetime(2026, 12, 6, 12, tzinfo=tz)
    with pytest.raises(ValueError):
        next(
            schedule.occurrences(
                cadence="weekly",
                at=datetime.time(20, 0),
                weekday=weekday,
                tz=tz,
                after=after,
                until=after + datetime.timedelta(days=7),
            )
        )
