"""Combo API, reading choice (docs/rules.md §2.4) and the bomb ladders (§3.3, §4.3, §5.3, §6.4)."""

from __future__ import annotations

import pytest

from games.engine import (
    Combo,
    InvalidNotation,
    UnknownOption,
    UnknownVariant,
    beats,
    classify,
    find_variant,
    parse_ranks,
    reading_to_follow,
    reading_to_lead,
)


def lead(key, text, **kw):
    options = kw.pop("options", {})
    return reading_to_lead(find_variant(key, **options), parse_ranks(text), **kw)


def ladder_holds(key, texts, **options):
    """Each play in `texts` (ascending) beats all before it and none after it."""
    variant = find_variant(key, **options)
    combos = [reading_to_lead(variant, parse_ranks(t)) for t in texts]
    assert all(c is not None and c.is_bomb for c in combos), list(zip(texts, combos, strict=True))
    for i, lower in enumerate(combos):
        for higher in combos[i + 1 :]:
            assert beats(variant, higher, lower), (higher, lower)
            assert not beats(variant, lower, higher), (lower, higher)


class TestBombLadders:
    def test_qq5(self):
        ladder_holds(
            "qq5",
            ["3333", "2222", "SJSJ", "BJBJ", "33333", "22222", "333333", "222222",
             "SJSJBJ", "SJBJBJ", "3333333", "2222222", "33333333", "22222222", "SJSJBJBJ"],
        )  # fmt: skip

    def test_new5(self):
        ladder_holds(
            "new5",
            ["3333", "2222", "SJSJSJ", "BJBJBJ", "SJSJSJBJ", "SJSJBJBJ", "SJBJBJBJ",
             "SJSJSJBJBJ", "SJSJBJBJBJ", "SJSJSJBJBJBJ", "33333", "22222", "333333",
             "2" * 11, "3" * 12, "2" * 12],
        )  # fmt: skip

    def test_classic3(self):
        ladder_holds("classic3", ["3333", "AAAA", "2222", "SJBJ"])

    def test_fenzhou5(self):
        ladder_holds(
            "fenzhou5",
            ["3333", "2222", "SJSJ", "BJBJ", "33334444", "KKKKAAAA", "33333333", "22222222",
             "333344445555", "QQQQKKKKAAAA", "3333444455556666", "SJSJBJBJ"],
        )  # fmt: skip

    def test_fenzhou5_big_plus_small(self):
        ladder_holds(
            "fenzhou5",
            ["2222", "SJSJ", "BJBJ", "QQQQKKKKAAAA", "SJBJ"],
            fenzhou_nuke="big_plus_small",
        )


class TestReadings:
    def test_combo_basics(self):
        combo = lead("classic3", "333444+57")
        assert combo == Combo("plane_single", (3, 3, 3, 4, 4, 4, 5, 7), 4, 2)
        assert combo.shape == ("plane_single", 8, 2)
        assert not combo.is_bomb
        assert str(combo) == "33344457"
        assert repr(combo) == "Combo('plane_single', '33344457', key=4, length=2)"
        bomb = lead("qq5", "33333")
        assert bomb.is_bomb and bomb.bomb_power == (2, 3)

    def test_all_readings(self):
        variant = find_variant("classic3")
        got = {(c.kind, c.key, c.length) for c in classify(variant, parse_ranks("888999TTTJJJ"))}
        assert got == {("triple_chain", 11, 4), ("plane_single", 10, 3), ("plane_single", 11, 3)}
        got = {(c.kind, c.key) for c in classify(variant, parse_ranks("3333AAAA"))}
        assert got == {("four_two_pairs", 3), ("four_two_pairs", 14)}

    def test_lead_priority_longest_chain_then_highest_key(self):
        assert lead("classic3", "888999TTTJJJ").kind == "triple_chain"
        assert lead("classic3", "3333AAAA").key == 14

    def test_declared_kind(self):
        combo = lead("classic3", "888999TTTJJJ", declared_kind="plane_single")
        assert (combo.kind, combo.key) == ("plane_single", 11)
        # a kind no reading has is ignored
        assert lead("classic3", "888999TTTJJJ", declared_kind="bomb").kind == "triple_chain"
        assert lead("classic3", "34", declared_kind="pair") is None

    def test_follow_picks_the_weakest_reading_that_beats(self):
        variant = find_variant("classic3")
        top = lead("classic3", "333444555+678")
        follow = reading_to_follow(variant, parse_ranks("888999TTTJJJ"), top)
        assert (follow.kind, follow.key) == ("plane_single", 10)
        top = lead("classic3", "4444+55+77")
        follow = reading_to_follow(variant, parse_ranks("3333AAAA"), top)
        assert follow.key == 14
        assert reading_to_follow(variant, parse_ranks("3333AAAA"), lead("classic3", "3")) is None

    def test_final_only_matters_where_the_rules_say(self):
        fz = find_variant("fenzhou5")
        assert classify(fz, parse_ranks("333")) == ()
        assert classify(fz, parse_ranks("333"), final=True)[0].kind == "triple"
        assert classify(find_variant("qq5"), parse_ranks("333"), final=True) == classify(
            find_variant("qq5"), parse_ranks("333")
        )

    def test_new5_positions(self):
        assert lead("new5", "A2345").key == 5
        assert lead("new5", "AA2233").key == 3
        assert lead("new5", "AAA222+8899").key == 2
        assert lead("new5", "A23456789TJQK").key == 14  # the higher reading of A..K = 2..A

    def test_empty_and_bad_ranks(self):
        variant = find_variant("qq5")
        assert classify(variant, ()) == ()
        with pytest.raises(InvalidNotation):
            classify(variant, (2, 3))
        with pytest.raises(InvalidNotation):
            classify(variant, (18,))


class TestVariants:
    def test_options(self):
        assert find_variant("classic3", classic3_kicker_policy="strict").kicker_repeats is False
        assert find_variant("classic3").kicker_repeats is True
        with pytest.raises(UnknownOption):
            find_variant("classic3", fenzhou_nuke="four_jokers")
        with pytest.raises(UnknownOption):
            find_variant("fenzhou5", fenzhou_nuke="three_jokers")
        with pytest.raises(UnknownVariant):
            find_variant("doudizhu")

    def test_equality_and_hash(self):
        assert find_variant("qq5") == find_variant("qq5")
        assert hash(find_variant("qq5")) == hash(find_variant("qq5"))
        assert find_variant("fenzhou5") != find_variant("fenzhou5", fenzhou_nuke="big_plus_small")
        assert repr(find_variant("fenzhou5", fenzhou_nuke="big_plus_small")) == (
            "find_variant('fenzhou5', fenzhou_nuke='big_plus_small')"
        )

    @pytest.mark.parametrize(
        ("key", "text", "bonus"),
        [
            ("qq5", "3333", 0),
            ("qq5", "BJBJ", 0),
            ("qq5", "33333", 1),
            ("qq5", "SJSJBJ", 1),
            ("qq5", "SJSJBJBJ", 1),
            ("classic3", "3333", 1),
            ("classic3", "SJBJ", 1),
            ("classic3", "3333 4 5", 0),
            ("new5", "33333", 0),
            ("fenzhou5", "3333", 1),
            ("fenzhou5", "SJSJ", 1),
            ("fenzhou5", "33334444", 3),
            ("fenzhou5", "33333333", 4),
            ("fenzhou5", "333344445555", 5),
            ("fenzhou5", "SJSJBJBJ", 7),
            ("fenzhou5", "33", 0),
        ],
    )
    def test_bomb_bonus(self, key, text, bonus):
        variant = find_variant(key)
        assert variant.bomb_bonus(reading_to_lead(variant, parse_ranks(text))) == bonus
