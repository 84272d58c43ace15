"""Hypothesis properties of classify and beats over generated plays of every variant."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.combos import BOMB_KINDS, beats, classify, reading_to_follow, reading_to_lead
from games.engine.variants import find_variant
from tests.engine.reference_plays import BJ, NATURALS, SJ, reference_plays

pytestmark = pytest.mark.slow

VARIANT_KEYS = ("qq5", "new5", "classic3", "fenzhou5")


@cache
def _plays(key: str) -> list[tuple[int, ...]]:
    return sorted(reference_plays(key, {"final": True}))


@st.composite
def plays(draw, key: str):
    """A multiset of ranks: mostly legal plays, sometimes any cards from the variant's deck."""
    variant = find_variant(key)
    if draw(st.integers(0, 4)) == 0:
        deck = [r for r in NATURALS for _ in range(4 * variant.decks)] + [SJ, BJ] * variant.decks
        return tuple(sorted(draw(st.lists(st.sampled_from(deck), min_size=1, max_size=12))))
    return draw(st.sampled_from(_plays(key)))


@st.composite
def variant_and_plays(draw, n: int = 3):
    key = draw(st.sampled_from(VARIANT_KEYS))
    final = draw(st.booleans())
    return find_variant(key), final, [draw(plays(key)) for _ in range(n)]


@settings(max_examples=400, deadline=None)
@given(variant_and_plays(1))
def test_readings_keep_the_cards_and_name_known_kinds(case):
    variant, final, (ranks,) = case
    readings = classify(variant, ranks, final=final)
    assert len({(c.kind, c.key, c.length) for c in readings}) == len(readings)
    for combo in readings:
        assert combo.ranks == tuple(sorted(ranks))
        assert combo.kind in variant.kinds
        assert combo.is_bomb == (combo.kind in BOMB_KINDS)
        if not combo.is_bomb and variant.non_bomb_max_per_rank is not None:
            assert max(ranks.count(r) for r in set(ranks)) <= variant.non_bomb_max_per_rank


@settings(max_examples=400, deadline=None)
@given(variant_and_plays(3))
def test_beats_is_a_strict_order_with_bombs_on_top(case):
    variant, final, groups = case
    combos = [c for ranks in groups for c in classify(variant, ranks, final=final)]
    for a in combos:
        assert not beats(variant, a, a)
        for b in combos:
            if beats(variant, a, b):
                assert not beats(variant, b, a)
                for c in combos:
                    if beats(variant, b, c):
                        assert beats(variant, a, c)
            if a.is_bomb and not b.is_bomb:
                assert beats(variant, a, b)
                assert not beats(variant, b, a)


@settings(max_examples=400, deadline=None)
@given(variant_and_plays(2))
def test_follow_and_lead_readings(case):
    variant, final, (ranks, top_ranks) = case
    readings = classify(variant, ranks, final=final)
    lead = reading_to_lead(variant, ranks, final=final)
    assert (lead is None) == (not readings)
    if lead is not None:
        assert lead in readings
    for top in classify(variant, top_ranks, final=final):
        follow = reading_to_follow(variant, ranks, top, final=final)
        beating = [c for c in readings if beats(variant, c, top)]
        assert (follow is None) == (not beating)
        if follow is not None:
            assert follow in beating
            # the weakest: nothing else that beats top is beaten by it
            assert not any(beats(variant, follow, c) for c in beating)
