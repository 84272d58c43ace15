"""legal_plays against a brute-force oracle (completeness and soundness) and its properties.

The oracle takes every distinct sub-multiset of a small hand (≤ 10 cards, drawn from the
variant's real deck) and asks ``combos`` about each one alone: the lead-priority reading when
leading, the weakest beating reading when following (a sub-multiset that empties the hand is
the final play). ``legal_plays`` must list exactly those multisets, each once, with exactly
those readings, in the documented order.
"""

from __future__ import annotations

from collections import Counter
from itertools import product

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine.cards import BJ, SJ
from games.engine.combos import Combo, beats, classify, reading_to_follow, reading_to_lead
from games.engine.moves import legal_plays, play_order_key
from games.engine.variants import find_variant

pytestmark = pytest.mark.slow

CASES = [
    ("qq5", {}),
    ("new5", {}),
    ("classic3", {}),
    ("classic3", {"classic3_kicker_policy": "strict"}),
    ("fenzhou5", {}),
    ("fenzhou5", {"fenzhou_nuke": "big_plus_small"}),
    ("fenzhou5", {"fenzhou_bare_plane_last": False, "fenzhou_joker_kicker": False}),
]
IDS = [key + "".join(f"-{v}" for v in opts.values()) for key, opts in CASES]


def deck(variant) -> list[int]:
    """The variant's real deck as rank values (each natural ×4 per deck, each joker ×1)."""
    return [r for r in range(3, 16) for _ in range(4 * variant.decks)] + [SJ, BJ] * variant.decks


def sub_multisets(hand: list[int]):
    counts = sorted(Counter(hand).items())
    for picks in product(*(range(c + 1) for _, c in counts)):
        sub = tuple(r for (r, _), k in zip(counts, picks, strict=True) for _ in range(k))
        if sub:
            yield sub


def oracle(variant, hand: list[int], top: Combo | None) -> dict[tuple[int, ...], Combo]:
    found = {}
    for sub in sub_multisets(hand):
        final = len(sub) == len(hand)
        if top is None:
            combo = reading_to_lead(variant, sub, final=final)
        else:
            combo = reading_to_follow(variant, sub, top, final=final)
        if combo is not None:
            found[sub] = combo
    return found


@st.composite
def hands(draw, variant, max_size: int):
    """A hand from the real deck, often from a narrow window of ranks so that triples,
    chains, planes and bombs actually occur."""
    cards = deck(variant)
    shape = draw(st.integers(0, 4))
    if shape == 4:
        # Structured: a run of ranks holding mostly 2-4 cards each (planes, wings, 四带二).
        lo = draw(st.integers(3, 13))
        hand: list[int] = []
        for r in range(lo, min(lo + draw(st.integers(2, 5)), 16)):
            hand += [r] * draw(st.sampled_from([0, 1, 2, 2, 2, 3, 3, 3, 4]))
        for _ in range(draw(st.integers(0, 2))):
            hand.append(draw(st.sampled_from([3, 9, 14, 15, SJ, BJ])))
        held = Counter(hand)
        hand = [r for r in sorted(held) for _ in range(min(held[r], deck(variant).count(r)))]
        return hand[:max_size] or [3]
    if shape:
        lo = draw(st.integers(3, 14))
        width = draw(st.integers(2, 6))
        keep_jokers = draw(st.booleans())
        cards = [r for r in cards if lo <= r < lo + width or (keep_jokers and r >= SJ)]
    size = draw(st.integers(1, min(max_size, len(cards))))
    picks = draw(
        st.lists(st.integers(0, len(cards) - 1), unique=True, min_size=size, max_size=size)
    )
    return sorted(cards[i] for i in picks)


def pick_play(draw, plays):
    """A play chosen kind first, so that rare kinds (planes, chains, bombs) get their turn."""
    by_kind: dict[str, list[Combo]] = {}
    for combo in sorted(plays, key=play_order_key):
        by_kind.setdefault(combo.kind, []).append(combo)
    kind = draw(st.sampled_from(sorted(by_kind)))
    return draw(st.sampled_from(by_kind[kind]))


def draw_top(draw, variant, hand):
    """None (leading), a play of the same shape as one the hand can lead (so following is
    not trivially empty), a play led from another small hand, or one of the variant's bombs."""
    choice = draw(st.sampled_from(["lead", "own", "own", "other", "bomb"]))
    if choice == "lead":
        return None
    if choice == "bomb":
        bombs = [c for c in legal_plays(variant, deck(variant), None) if c.is_bomb]
        return draw(st.sampled_from(bombs))
    source = hand if choice == "own" else draw(hands(variant, 8))
    plays = list(oracle(variant, source, None).values())
    return pick_play(draw, plays) if plays else None


def check_against_oracle(variant, hand, top):
    plays = legal_plays(variant, hand, top)
    got = {c.ranks: c for c in plays}
    assert len(got) == len(plays), "a multiset is listed twice"
    expected = oracle(variant, hand, top)
    missing = sorted(set(expected) - set(got))
    extra = sorted(set(got) - set(expected))
    assert not missing and not extra, f"missing {missing[:5]}, extra {extra[:5]}"
    wrong = [(got[r], expected[r]) for r in got if got[r] != expected[r]]
    assert not wrong, f"readings differ (ours, combos): {wrong[:5]}"
    assert plays == sorted(plays, key=play_order_key), "not in the documented order"


@pytest.mark.parametrize(("key", "options"), CASES, ids=IDS)
def test_matches_brute_force_oracle(key, options):
    variant = find_variant(key, **options)

    @settings(
        max_examples=300,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(data=st.data())
    def run(data):
        hand = data.draw(hands(variant, 12))
        check_against_oracle(variant, hand, draw_top(data.draw, variant, hand))

    run()


@pytest.mark.parametrize(
    ("key", "hand", "prev"),
    [
        # Several readings of one multiset (§2.4), and the final-play rule.
        ("classic3", "333444555666", None),
        ("classic3", "333444555666", "333444555+789"),
        ("classic3", "888999TTTJJJ", "333444555+678"),
        ("classic3", "33334444", None),
        ("classic3", "33334444", "5555+6677"),
        ("classic3", "3333AAAA", "2222+3344"),
        ("fenzhou5", "333444", None),
        ("fenzhou5", "333", None),
        ("fenzhou5", "3334", None),
        ("new5", "A23456789TJQK", None),
        ("new5", "AA22334455", None),
        ("new5", "SJSJSJBJBJBJ", None),
        ("qq5", "SJSJBJBJ", None),
        ("fenzhou5", "SJSJBJBJ", None),
        # Planes and wings of every flavour, leading and following.
        ("classic3", "333444555666777SJBJ", None),
        ("classic3", "444555666778899", "333444+5566"),
        ("classic3", "4445556667777", "333444555+678"),
        ("qq5", "444555666778899TT", "333444+5566"),
        ("qq5", "3334445556677", None),
        ("new5", "333444555667788SJSJBJBJ", None),
        ("new5", "444555667788SJSJBJBJ", "333444+5566"),
        ("new5", "AAA222333445566", None),
        ("new5", "AAAA2222", "AAA222+3344"),
        ("fenzhou5", "3334445556789SJ", "333444+56"),
        ("fenzhou5", "333344445555", "8888"),
    ],
)
def test_known_hands_match_oracle(key, hand, prev):
    from games.engine.cards import parse_ranks

    variant = find_variant(key)
    top = reading_to_lead(variant, parse_ranks(prev)) if prev else None
    check_against_oracle(variant, list(parse_ranks(hand)), top)


def check_properties(variant, hand, top):
    plays = legal_plays(variant, hand, top)
    held = Counter(hand)
    for combo in plays:
        assert not Counter(combo.ranks) - held, f"{combo} uses a card the hand lacks"
        final = len(combo.ranks) == len(hand)
        assert combo in classify(variant, combo.ranks, final=final)
        if top is not None:
            assert beats(variant, combo, top)
            assert combo == reading_to_follow(variant, combo.ranks, top, final=final)
        else:
            assert combo == reading_to_lead(variant, combo.ranks, final=final)
    assert plays == sorted(plays, key=play_order_key)


@pytest.mark.parametrize(("key", "options"), CASES, ids=IDS)
def test_properties_on_full_size_hands(key, options):
    """Landlord-size hands (24, 20, 38 cards): every play is held, classifies and beats."""
    variant = find_variant(key, **options)
    size = variant.landlord_hand_size

    @settings(max_examples=40, deadline=None, derandomize=True)
    @given(data=st.data())
    def run(data):
        cards = deck(variant)
        picks = data.draw(st.lists(st.integers(0, len(cards) - 1), unique=True, max_size=size))
        hand = sorted(cards[i] for i in picks)
        other = sorted(cards[i] for i in range(len(cards)) if i not in set(picks))[:size]
        leads = legal_plays(variant, hand, None)
        check_properties(variant, hand, None)
        options = legal_plays(variant, other, None) if other else []
        if options:
            check_properties(variant, hand, data.draw(st.sampled_from(options)))
        if leads:
            check_properties(variant, hand, data.draw(st.sampled_from(leads)))

    run()
