"""Card codes and notation (docs/rules.md §2.1, §8.1)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine.cards import (
    BJ,
    BJ_CODE,
    RANK_TWO,
    SJ,
    SJ_CODE,
    card_code,
    card_rank,
    card_suit,
    cards_for_ranks,
    format_cards,
    format_ranks,
    lowest_suits,
    parse_cards,
    parse_ranks,
)
from games.engine.errors import CardsNotHeld, EngineError, InvalidNotation


class TestCardCode:
    def test_layout(self):
        assert card_rank(0) == 3 and card_suit(0) == "d"
        assert card_rank(3) == 3 and card_suit(3) == "s"
        assert card_rank(51) == RANK_TWO and card_suit(51) == "s"
        assert card_rank(SJ_CODE) == SJ and card_suit(SJ_CODE) is None
        assert card_rank(BJ_CODE) == BJ and card_suit(BJ_CODE) is None

    def test_card_code_inverse(self):
        for code in range(54):
            assert card_code(card_rank(code), card_suit(code)) == code

    @pytest.mark.parametrize("code", [-1, 54])
    def test_out_of_range(self, code):
        with pytest.raises(InvalidNotation):
            card_rank(code)


class TestParseRanks:
    @pytest.mark.parametrize(
        ("text", "ranks"),
        [
            ("333 44", (3, 3, 3, 4, 4)),
            ("333444+5566", (3, 3, 3, 4, 4, 4, 5, 5, 6, 6)),
            ("SJ SJ BJ", (16, 16, 17)),
            ("2SJSJBJ", (15, 16, 16, 17)),
            ("10 T", (10, 10)),
            ("TJQKA2", (10, 11, 12, 13, 14, 15)),
            ("9h Ts SJ", (9, 10, 16)),
            ("", ()),
            ("BJ3", (3, 17)),
        ],
    )
    def test_parse(self, text, ranks):
        assert parse_ranks(text) == ranks

    @pytest.mark.parametrize("text", ["1", "0", "x", "S", "SK", "B", "t", "SJh", "3x", "9hh", "11"])
    def test_invalid(self, text):
        with pytest.raises(InvalidNotation):
            parse_ranks(text)

    def test_invalid_is_value_error(self):
        with pytest.raises(ValueError):
            parse_ranks("Z")
        assert issubclass(InvalidNotation, EngineError)

    def test_format(self):
        assert format_ranks((3, 3, 3, 4, 4)) == "33344"
        assert format_ranks((17, 16, 16, 15)) == "2SJSJBJ"
        assert format_ranks((10,)) == "T"


class TestParseCards:
    def test_parse_and_format(self):
        codes = parse_cards("9h Ts SJ 3s 3d")
        assert format_cards(codes) == "3d 3s 9h Ts SJ"
        assert parse_cards("10h") == parse_cards("Th")

    def test_natural_needs_suit(self):
        with pytest.raises(InvalidNotation, match="suit"):
            parse_cards("9h T")

    def test_copies_repeat(self):
        assert parse_cards("9h 9h") == (26, 26)


ranks_lists = st.lists(st.integers(min_value=3, max_value=17), max_size=40)
codes_lists = st.lists(st.integers(min_value=0, max_value=53), max_size=40)


@given(ranks_lists)
def test_ranks_round_trip(ranks):
    assert parse_ranks(format_ranks(ranks)) == tuple(sorted(ranks))
    assert format_ranks(parse_ranks(format_ranks(ranks))) == format_ranks(ranks)


@given(codes_lists)
def test_cards_round_trip(codes):
    text = format_cards(codes)
    assert parse_cards(text) == tuple(sorted(codes))
    assert parse_ranks(text) == tuple(sorted(card_rank(c) for c in codes))


class TestCardsForRanks:
    def test_the_lowest_suit_of_each_rank(self):
        hand = parse_cards("3s 3d 3h 9h 9c SJ 2s")
        assert format_cards(cards_for_ranks(hand, parse_ranks("339"))) == "3d 3h 9c"
        assert format_cards(cards_for_ranks(hand, parse_ranks("SJ 2"))) == "2s SJ"
        assert cards_for_ranks(hand, ()) == ()

    def test_copies_of_a_card_in_several_decks(self):
        hand = parse_cards("9h 9h 9s")
        assert format_cards(cards_for_ranks(hand, parse_ranks("99"))) == "9h 9h"

    def test_a_rank_the_hand_lacks_or_holds_too_few_of(self):
        hand = parse_cards("3d 3s 4h")
        with pytest.raises(CardsNotHeld, match="5"):
            cards_for_ranks(hand, parse_ranks("5"))
        with pytest.raises(CardsNotHeld):
            cards_for_ranks(hand, parse_ranks("333"))

    def test_one_grouping_serves_many_plays(self):
        hand = parse_cards("3d 3s 4h 4c 5d")
        pick = lowest_suits(hand)
        assert format_cards(pick(parse_ranks("34"))) == "3d 4c"
        assert format_cards(pick(parse_ranks("3344"))) == "3d 3s 4c 4h"  # nothing used up


@given(codes_lists, st.data())
def test_cards_for_ranks_takes_the_lowest_cards_of_each_rank(hand, data):
    ranks = data.draw(st.lists(st.sampled_from(sorted({card_rank(c) for c in hand} or {3}))))
    held = sorted(hand)
    wanted = {rank: ranks.count(rank) for rank in ranks}
    if any(sum(card_rank(c) == rank for c in held) < n for rank, n in wanted.items()):
        with pytest.raises(CardsNotHeld):
            cards_for_ranks(hand, ranks)
        return
    expected = sorted(
        code for rank, n in wanted.items() for code in [c for c in held if card_rank(c) == rank][:n]
    )
    assert cards_for_ranks(hand, ranks) == tuple(expected)
