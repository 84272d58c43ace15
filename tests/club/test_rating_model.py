"""The rating model (club/skill.py) without a database: equal players stay equal over 10,000
simulated hands per variant whatever roles they are dealt (and without the role baseline
they would not), which hands are rated, and the update's direction."""

from __future__ import annotations

import random
import statistics
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from club import skill
from club.skill import Game, SeatRecord, Shape, Skill, rate, rated_game, shapes_for
from games.engine.variants import VARIANTS

HANDS = 10_000
PLAYERS = 20
START = skill.MODEL.mu
# Where equal players may end: every ordinal within one beta (the model's width of a class of
# skill, 4.2) of their mean; the rating's own noise (tau keeps every sigma near 1.4) spreads a
# snapshot by up to about 3.6. Averaged over the second half of the run that noise is gone:
# the mean skills stay within LEVEL of the start and within SPREAD of each other, and the
# often-landlord half within ROLE_DRIFT of the rarely-landlord half.
SNAPSHOT = skill.MODEL.beta
LEVEL = 1.0
SPREAD = 3.0
ROLE_DRIFT = 0.5


@dataclass
class Outcome:
    ordinals: list[float]
    late_mus: list[float]  # each player's mean mu over the second half of the run
    often: float  # mean ordinal of the players dealt the landlord side four times as often
    rarely: float
    landlord_share: tuple[float, float]  # of the hands each half played
    baselines: dict[str, Skill]


def simulate(seats: int, *, seed: int, hands: int = HANDS, learn_role: bool = True) -> Outcome:
    """Equal players at tables of ``seats``; the first half is dealt the landlord side four
    times as often; each shape of the sides wins with its own chance, the same for all, well
    off an even game (a landlord side wins 28-38 % or 62-72 % of its hands)."""
    rng = random.Random(seed)
    shapes = shapes_for(seats)
    chance = {s.key: rng.choice([0.33, 0.67]) + rng.uniform(-0.05, 0.05) for s in shapes}
    weight = [4 if p < PLAYERS // 2 else 1 for p in range(PLAYERS)]
    players = {p: skill.default_skill() for p in range(PLAYERS)}
    baselines = {s.key: s.baseline_start() for s in shapes}
    played = [0] * PLAYERS
    led = [0] * PLAYERS
    # each player's mu summed over the second half of the run, and how many hands it sums
    late = [0.0] * PLAYERS
    late_hands = [0] * PLAYERS
    for number in range(hands):
        table = rng.sample(range(PLAYERS), seats)
        shape = rng.choice(shapes)
        landlords: list[int] = []
        for _ in range(shape.landlords):
            pool = [p for p in table if p not in landlords]
            landlords += rng.choices(pool, weights=[weight[p] for p in pool])
        farmers = tuple(p for p in table if p not in landlords)
        for p in table:
            played[p] += 1
        for p in landlords:
            led[p] += 1
        game = Game(tuple(landlords), farmers, rng.random() < chance[shape.key])
        after, baseline = rate(game, players=players, baseline=baselines[shape.key])
        players.update(after)
        if number >= hands // 2:
            for p in table:
                late[p] += players[p].mu
                late_hands[p] += 1
        if learn_role:
            baselines[shape.key] = baseline
    ordinals = [players[p].ordinal for p in range(PLAYERS)]
    half = PLAYERS // 2

    def share(group: range) -> float:
        return sum(led[p] for p in group) / sum(played[p] for p in group)

    return Outcome(
        ordinals,
        [late[p] / late_hands[p] for p in range(PLAYERS)],
        statistics.mean(ordinals[:half]),
        statistics.mean(ordinals[half:]),
        (share(range(half)), share(range(half, PLAYERS))),
        baselines,
    )


def failed_checks(out: Outcome) -> set[str]:
    half = PLAYERS // 2
    late = out.late_mus
    failed = set()
    mean = statistics.mean(out.ordinals)
    if max(abs(o - mean) for o in out.ordinals) >= SNAPSHOT:
        failed.add("snapshot")
    if abs(statistics.mean(late) - START) >= LEVEL:
        failed.add("level")
    if max(late) - min(late) >= SPREAD:
        failed.add("spread")
    if abs(statistics.mean(late[:half]) - statistics.mean(late[half:])) >= ROLE_DRIFT:
        failed.add("drift")
    return failed


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_equal_players_stay_equal_whatever_their_roles(variant):
    out = simulate(VARIANTS[variant].seats, seed=sum(map(ord, variant)))
    often, rarely = out.landlord_share
    assert often > 2 * rarely  # the roles really were dealt unevenly
    assert failed_checks(out) == set(), (out.ordinals, out.late_mus)
    # the baselines learned something: each moved off its level start and settled
    for key, learned in out.baselines.items():
        assert learned.sigma < 2 and learned != Shape.from_key(key).baseline_start()


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_without_learning_the_role_the_same_checks_fail(variant):
    """The control: the same simulation, shorter, with the baselines held at their level
    start: the role's advantage leaks into everyone's level, or into the people who hold the
    role most."""
    seats = VARIANTS[variant].seats
    out = simulate(seats, seed=sum(map(ord, variant)), hands=3_000, learn_role=False)
    assert failed_checks(out) & {"level", "drift"}, out.late_mus


@pytest.mark.parametrize("seats, shapes", [(3, ["1v2"]), (5, ["1v4", "2v3"])])
def test_shapes_of_a_table(seats, shapes):
    assert [s.key for s in shapes_for(seats)] == shapes
    assert all(Shape.from_key(k).key == k for k in shapes)


seat_records = st.lists(
    st.builds(
        SeatRecord,
        user_id=st.one_of(st.none(), st.integers(1, 10_000)),
        landlord_side=st.booleans(),
        decided=st.booleans(),
    ),
    min_size=3,
    max_size=5,
    unique_by=lambda s: s.user_id if s.user_id is not None else object(),
)


@settings(max_examples=200, deadline=None)
@given(seats=seat_records, landlord_won=st.booleans())
def test_a_hand_is_rated_only_between_people_who_played_it(seats, landlord_won):
    game = rated_game(seats, landlord_won=landlord_won)
    all_people = all(s.user_id is not None and s.decided for s in seats)
    both_sides = {s.landlord_side for s in seats} == {True, False}
    assert (game is not None) == (all_people and both_sides)
    if game is not None:
        assert set(game.landlords) == {s.user_id for s in seats if s.landlord_side}
        assert set(game.farmers) == {s.user_id for s in seats if not s.landlord_side}
        assert game.landlord_won == landlord_won


skills = st.builds(Skill, mu=st.floats(0, 50), sigma=st.floats(0.5, 25 / 3))


@settings(max_examples=200, deadline=None)
@given(
    shape=st.sampled_from([Shape(1, 2), Shape(1, 4), Shape(2, 3)]),
    ratings=st.lists(skills, min_size=5, max_size=5),
    baseline=skills,
    landlord_won=st.booleans(),
)
def test_winners_go_up_losers_go_down_and_the_same_input_gives_the_same_output(
    shape, ratings, baseline, landlord_won
):
    ids = list(range(1, shape.landlords + shape.farmers + 1))
    game = Game(tuple(ids[: shape.landlords]), tuple(ids[shape.landlords :]), landlord_won)
    players = dict(zip(ids, ratings, strict=False))
    after, new_baseline = rate(game, players=players, baseline=baseline)
    for p in game.players:
        won = (p in game.landlords) == landlord_won
        assert (after[p].mu >= players[p].mu) if won else (after[p].mu <= players[p].mu)
    assert (new_baseline.mu >= baseline.mu) == landlord_won or new_baseline.mu == baseline.mu
    assert rate(game, players=players, baseline=baseline) == (after, new_baseline)


def test_provisional_and_the_shown_number():
    fresh = skill.default_skill()
    assert fresh.provisional and fresh.shown == skill.DISPLAY_OFFSET
    settled = Skill(30.0, 2.0)
    assert not settled.provisional
    assert settled.shown == round(skill.DISPLAY_OFFSET + skill.DISPLAY_SCALE * 24.0)


@pytest.mark.parametrize(
    ("mu", "sigma", "shown"),
    [
        (25.0, 8.0, 1040),  # ordinal 1: 1000 + 40 × 1
        (10.0, 5.0, 800),  # ordinal -5: 1000 − 200
        (0.02, 0.0, 1001),  # 1000.8 rounds up: truncating would show 1000
        (-0.02, 0.0, 999),  # 999.2 rounds down: rounding toward zero or up would show 1000
    ],
)
def test_the_shown_number_is_1000_plus_40_ordinals_rounded_to_the_nearest(mu, sigma, shown):
    """The displayed rating is round(1000 + 40 × (mu − 3 sigma)). Wrong rules caught: another
    offset or scale, 3 sigma read as another multiple, truncation instead of rounding."""
    assert Skill(mu, sigma).shown == shown


def test_a_rated_hand_puts_each_person_on_his_final_side():
    """Seat 0 the landlord (user 1) against two farmers (users 2 and 3): one landlord, two
    farmers, nobody on both sides or missing."""
    seats = [
        SeatRecord(user_id=1, landlord_side=True, decided=True),
        SeatRecord(user_id=2, landlord_side=False, decided=True),
        SeatRecord(user_id=3, landlord_side=False, decided=True),
    ]
    assert rated_game(seats, landlord_won=True) == Game((1,), (2, 3), True)


def test_the_role_baseline_starts_level_and_keeps_its_own_uncertainty():
    """1 v 4: the baseline starts at 3 × 25 (the farmers' three extra default skills) with the
    default sigma 25/3; after a 2 v 3 game between sure players (sigma 2) it is still far less
    sure than they are (it is rated as the landlord side's last member, not as one of them)."""
    assert Shape(1, 4).baseline_start() == Skill(75.0, 25 / 3)
    assert shapes_for(4) == [Shape(1, 3)]  # 2 v 2 is no smaller landlord side
    players = {p: Skill(25.0, 2.0) for p in range(1, 6)}
    game = Game((1, 2), (3, 4, 5), landlord_won=True)
    after, baseline = rate(game, players=players, baseline=Shape(2, 3).baseline_start())
    assert baseline.sigma > 7 > 2.5 > max(s.sigma for s in after.values())
