"""classify against an independent constructive encoding of the combination tables.

Every play the reference builds must classify to exactly the reference readings; every
multiset one card away from a reference play (a card removed, added or swapped) that the
reference does not build must classify to nothing.
"""

from __future__ import annotations

import random

import pytest

from games.engine.combos import classify
from games.engine.variants import find_variant
from tests.engine.reference_plays import BJ, NATURALS, SJ, reference_plays

pytestmark = pytest.mark.slow

CASES = [
    ("qq5", {}, False),
    ("new5", {}, False),
    ("classic3", {}, False),
    ("classic3", {"classic3_kicker_policy": "strict"}, False),
    ("fenzhou5", {}, False),
    ("fenzhou5", {}, True),
    ("fenzhou5", {"fenzhou_nuke": "big_plus_small"}, False),
    ("fenzhou5", {"fenzhou_bare_plane_last": False, "fenzhou_joker_kicker": False}, True),
]
IDS = [
    f"{key}-{'-'.join(f'{v}' for v in opts.values()) or 'default'}-{final}"
    for key, opts, final in CASES
]


def _readings(variant, ranks, final):
    return {(c.kind, c.key, c.length) for c in classify(variant, ranks, final=final)}


def _reference(key, options, final):
    return reference_plays(key, {**options, "final": final})


@pytest.mark.parametrize(("key", "options", "final"), CASES, ids=IDS)
def test_every_reference_play_classifies_exactly(key, options, final):
    variant = find_variant(key, **options)
    plays = _reference(key, options, final)
    wrong = []
    for ranks, readings in plays.items():
        got = _readings(variant, ranks, final)
        if got != readings:
            wrong.append((ranks, readings, got))
    assert not wrong, f"{len(wrong)} mismatches, e.g. {wrong[:5]}"


@pytest.mark.parametrize(("key", "options", "final"), CASES, ids=IDS)
def test_near_misses_are_illegal(key, options, final):
    variant = find_variant(key, **options)
    plays = _reference(key, options, final)
    per_rank, per_joker = 4 * variant.decks, variant.decks
    rng = random.Random(f"{key}{options}{final}")
    sample = rng.sample(sorted(plays), min(len(plays), 1500))
    everything = (*NATURALS, SJ, BJ)
    wrong = []
    checked = 0
    for ranks in sample:
        neighbours = set()
        for i in range(len(ranks)):
            rest = ranks[:i] + ranks[i + 1 :]
            neighbours.add(rest)
            for card in everything:
                neighbours.add(tuple(sorted((*rest, card))))
        for card in everything:
            neighbours.add(tuple(sorted((*ranks, card))))
        for cand in neighbours:
            if not cand or cand in plays or len(cand) > variant.landlord_hand_size:
                continue
            if any(cand.count(r) > (per_joker if r >= SJ else per_rank) for r in set(cand)):
                continue
            checked += 1
            got = _readings(variant, cand, final)
            if got:
                wrong.append((cand, got))
    assert checked > 1000
    assert not wrong, f"{len(wrong)} false readings, e.g. {wrong[:5]}"


@pytest.mark.parametrize(("key", "options", "final"), CASES, ids=IDS)
def test_random_multisets_agree(key, options, final):
    variant = find_variant(key, **options)
    plays = _reference(key, options, final)
    deck = [r for r in NATURALS for _ in range(4 * variant.decks)] + [SJ, BJ] * variant.decks
    rng = random.Random(key)
    for _ in range(3000):
        ranks = tuple(sorted(rng.sample(deck, rng.randint(1, 12))))
        assert _readings(variant, ranks, final) == plays.get(ranks, set()), ranks


def test_bj_constant():
    assert BJ == 17
