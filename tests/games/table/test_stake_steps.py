"""Stakes a player can follow (issue #19): each seat's stake shown as the steps the rules take
(base × coefficient × bid/grabs × doublings × the bombs that count × spring, capped), in the
hand as the viewer's own and in the result for every seat, adding up to what was settled."""

from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction

import pytest
from django.utils import translation

from games.engine.cards import format_cards, parse_cards, ranks_of
from games.engine.combos import classify
from games.engine.hand import apply, waiting_seats
from games.engine.state import Action, PlayRecord
from games.engine.views import public_view, view_for
from games.screen import context, regions
from tests.support.scenarios import advance_to_play, finish, seat_infos, start

SEEDS = [f"stakes-{i}" for i in range(12)]
STEPS = re.compile(r'<span class="stake-steps">([^<]*) = ([0-9.]+)</span>')


def _page(state, seat):
    view = view_for(state, seat) if seat is not None else public_view(state)
    with translation.override("en"):
        ctx = context.screen_context(view=view, seats=seat_infos(state.seats), state=state)
        return view, regions.render_regions(ctx)


@pytest.mark.parametrize("variant", ["qq5", "new5", "classic3", "fenzhou5"])
def test_each_result_row_adds_up_to_the_settled_units(variant) -> None:
    seen_terms = set()
    for seed in SEEDS:
        state = finish(start(variant, seed))
        view, page = _page(state, None)
        rows = STEPS.findall(page)
        assert len(rows) == state.seats, seed
        for seat, (steps, units) in enumerate(rows):
            assert Fraction(units) == abs(Fraction(view["result"]["units"][seat])), (seed, seat)
            assert steps
        seen_terms.update(t["key"] for terms in view["stakes"] for t in terms)
    assert len(seen_terms) >= 2  # several kinds of steps, not one constant


def test_a_doubling_classic3_farmer_sees_his_own_stake_not_the_tables_multiplier() -> None:
    """The case of the issue: the status line's multiplier is ×1 while a farmer who doubled
    stakes ×2 of the bid."""
    state = start("classic3", "stakes-double")
    while state.phase != "double":
        seat = waiting_seats(state)[0]
        state = apply(state, Action(seat, "bid", 3))
    farmer = waiting_seats(state)[0]
    state = apply(state, Action(farmer, "double", True))
    state = advance_to_play(state)
    view, page = _page(state, farmer)
    assert view["multiplier"] == 1
    mine = re.search(r'<p class="my-stake small">(.*?)</p>', page, re.S).group(1)
    assert "doubled ×2" in mine and "bid 3" in mine
    assert "<b>6</b>" in mine
    # nobody else is shown his stake during the hand
    for other in [s for s in range(3) if s != farmer] + [None]:
        _v, page = _page(state, other)
        assert "doubled ×2" not in (re.search(r'id="table-hand".*?</div>\n', page, re.S).group(0))


def test_a_qq5_farmer_per_player_sees_no_stake_that_would_name_the_hidden_landlord() -> None:
    state = next(
        s
        for s in (start("qq5", seed, qq5_double_scope="per_player") for seed in SEEDS)
        if s.partner is not None
    )
    while state.phase == "reveal":  # nobody reveals: the partner stays hidden
        state = apply(state, Action(waiting_seats(state)[0], "reveal", False))
    while state.phase == "double":
        state = apply(state, Action(waiting_seats(state)[0], "double", True))
    assert state.partner is not None and not state.revealed
    farmer = next(s for s in range(state.seats) if s not in state.landlord_side())
    assert "stake" not in view_for(state, farmer)
    assert "stake" in view_for(state, state.partner)  # he knows his side


def test_the_result_names_only_the_bombs_that_changed_the_stakes() -> None:
    """qq5: a 4炸 does not double, a 5炸 does (§3.5); new5: bombs change nothing (§4.5)."""
    for variant, counted in (("qq5", ["5s 5h 5c 5d 5s"]), ("new5", [])):
        state = finish(start(variant, "stakes-bombs"))
        plays = []
        for text in ("4s 4h 4c 4d", "5s 5h 5c 5d 5s"):
            cards = parse_cards(text)
            (combo,) = [c for c in classify(state.variant, ranks_of(cards)) if c.is_bomb]
            plays.append(PlayRecord(seat=0, cards=cards, combo=combo))
        state = replace(state, plays=(*state.plays, *plays))
        _view, page = _page(state, None)
        bombs = re.search(r'<details class="result-bombs">.*?</details>', page, re.S).group(0)
        shown = sorted(re.findall(r'data-c="([^"]+)"', bombs))
        assert shown == sorted(c for t in counted for c in format_cards(parse_cards(t)).split())
        idle = sum(1 for p in state.plays if p.combo.is_bomb) - len(counted)
        assert f"{idle} more that do" in page or (idle == 1 and "1 more that does not" in page)
