"""legal_plays and the §8.3 moves command: inputs, errors and documented choices."""

from __future__ import annotations

import io
import json

import pytest

from games.engine.cards import parse_ranks
from games.engine.cli_moves import moves_line, run
from games.engine.combos import reading_to_lead
from games.engine.errors import InvalidNotation
from games.engine.moves import legal_plays
from games.engine.variants import find_variant


def notations(key, hand, prev=None, **options):
    variant = find_variant(key, **options)
    top = reading_to_lead(variant, parse_ranks(prev)) if prev else None
    return [c.notation for c in legal_plays(variant, parse_ranks(hand), top)]


def test_empty_hand_and_any_iterable():
    classic3 = find_variant("classic3")
    assert legal_plays(classic3, [], None) == []
    assert legal_plays(classic3, iter([3, 3]), None) == legal_plays(classic3, (3, 3), None)


@pytest.mark.parametrize("bad", [[2], [18], [-1], [3, 3, 0]])
def test_rank_outside_3_to_17_raises(bad):
    with pytest.raises(InvalidNotation):
        legal_plays(find_variant("qq5"), bad, None)


def test_final_play_rule_fenzhou5():
    # A bare triple or plane only as the play that empties the hand (docs/rules.md §6.3).
    assert "333" in notations("fenzhou5", "333")
    assert "333" not in notations("fenzhou5", "3334")
    assert "333444" in notations("fenzhou5", "333444")
    assert "333444" not in notations("fenzhou5", "333444", fenzhou_bare_plane_last=False)
    assert "333444" not in notations("fenzhou5", "3334445")


def test_bombs_come_last_weakest_first():
    plays = notations("qq5", "3333344445SJSJBJ")
    bombs = ["3333", "4444", "SJSJ", "33333", "SJSJBJ"]
    assert plays[-len(bombs) :] == bombs


def test_reading_recorded_when_leading_and_following():
    classic3 = find_variant("classic3")
    hand = parse_ranks("333444555666")
    lead = {c.notation: c for c in legal_plays(classic3, hand, None)}
    assert lead["333444555666"].kind == "triple_chain"  # longest body wins when leading
    top = reading_to_lead(classic3, parse_ranks("333444555+789"))
    follow = {c.notation: c for c in legal_plays(classic3, hand, top)}
    # The weakest reading that beats: a 3-plane keyed on 5 (body 333444555, kickers 666)
    # would not beat; keyed on 6 (body 444555666, kickers 333) it does.
    assert (follow["333444555666"].kind, follow["333444555666"].key) == ("plane_single", 6)


def test_moves_line_answers_and_errors():
    answer = moves_line(json.dumps({"variant": "classic3", "hand": "33 4", "prev": None}))
    assert answer == {"count": 3, "plays": ["3", "4", "33"]}
    assert moves_line('{"variant": "classic3", "hand": "334", "prev": "3"}') == {
        "count": 1,
        "plays": ["4"],
    }
    assert moves_line('{"variant": "classic3", "hand": "334", "prev": ""}')["count"] == 3
    for bad in (
        "{",
        "[]",
        '{"variant": "nope", "hand": "3"}',
        '{"variant": "classic3", "hand": 3}',
        '{"variant": "classic3", "hand": "3X"}',
        '{"variant": "classic3", "hand": "33333"}',  # more 3s than one deck holds
        '{"variant": "classic3", "hand": "34", "prev": "34"}',  # prev is no combination
        '{"variant": "classic3", "hand": "34", "options": {"nope": 1}}',
        '{"variant": "classic3", "hand": "34", "options": []}',
    ):
        assert set(moves_line(bad)) == {"error"}, bad


def test_options_are_honoured():
    line = {"variant": "classic3", "hand": "3333SJBJ", "prev": None}
    permissive = moves_line(json.dumps(line))
    strict = moves_line(json.dumps({**line, "options": {"classic3_kicker_policy": "strict"}}))
    assert "3333SJBJ" in permissive["plays"]
    assert "3333SJBJ" not in strict["plays"]


def test_run_answers_every_line_in_order():
    stdin = io.StringIO('{"variant": "qq5", "hand": "SJSJ"}\nnot json\n{"variant": "qq5"}\n')
    stdout = io.StringIO()
    assert run(None, stdin, stdout) == 0  # type: ignore[arg-type]
    answers = [json.loads(line) for line in stdout.getvalue().splitlines()]
    assert answers[0] == {"count": 2, "plays": ["SJ", "SJSJ"]}
    assert "error" in answers[1] and "error" in answers[2]
