"""The table aids as the screen renders them from the views (issue #34): the 记牌器 region, the
报牌 tag of every variant, 要不起 controls with Pass alone, and the 明牌 hand on the landlord's
seat panel for everyone from his show on."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from games.engine.hand import apply, autoplay_action, waiting_seats
from games.engine.state import Action, HandState
from games.engine.views import view_for
from tests.games.screen.test_rendering import render
from tests.support.scenarios import advance_to_play, start

VARIANTS = ["qq5", "new5", "classic3", "fenzhou5"]


def _play_states(key: str, seed: str = "aids-screen", **options) -> list[HandState]:
    state = advance_to_play(start(key, seed, **options))
    out = [state]
    while not state.finished:
        state = apply(state, autoplay_action(state, waiting_seats(state)[0]))
        out.append(state)
    return out


def _region(html: str, region_id: str) -> str:
    found = re.search(rf'<div id="{region_id}".*?(?=<div id="table-|\Z)', html, re.S)
    assert found, region_id
    return found[0]


def _render(state: HandState, seat: int | None, language: str = "en") -> str:
    with translation.override(language):
        return render(state, seat)[1]


class CounterRegionTests:
    def test_a_seat_sees_its_unseen_counts_by_rank_and_a_spectator_none(self) -> None:
        state = _play_states("qq5")[12]
        unseen = view_for(state, 1)["unseen"]
        counter = _region(_render(state, 1), "table-counter")
        cells = [int(n) for n in re.findall(r"<td[^>]*>(\d+)</td>", counter)]
        assert cells == unseen and len(cells) == 15
        heads = re.findall(r"<th [^>]*>([^<]+)</th>", counter)
        assert heads[:8] == ["3", "4", "5", "6", "7", "8", "9", "10"] and heads[-2:] == [
            "S.J.",
            "B.J.",
        ]
        zh = _region(_render(state, 1, "zh-hans"), "table-counter")
        assert re.findall(r"<th [^>]*>([^<]+)</th>", zh)[-2:] == ["小王", "大王"]
        assert "counter-grid" not in _region(_render(state, None), "table-counter")

    def test_a_room_without_the_counter_renders_an_empty_region(self) -> None:
        state = _play_states("classic3", card_counter=False)[3]
        assert "counter-grid" not in _region(_render(state, 0), "table-counter")


@pytest.mark.parametrize("key", VARIANTS)
def test_every_variant_announces_two_and_one_cards_left(key) -> None:
    shown: set[str] = set()
    for state in _play_states(key):
        if state.finished:
            break
        seats = _region(_render(state, None, "zh-hans"), "table-seats")
        for seat, count in enumerate(len(h) for h in state.hands):
            panel = re.search(rf'id="table-seat-{seat}".*?</section>', seats, re.S)[0]
            tag = re.search(r'data-report="(\d)"[^>]*>([^<]*)<', panel)
            if 0 < count <= 2:
                assert tag and tag[1] == str(count) and tag[2] == f"剩 {count} 张！", panel
                shown.add(tag[1])
            else:
                assert tag is None
    assert shown, "no seat went down to two cards or fewer"


class CantBeatTests:
    def test_a_seat_that_cannot_beat_is_told_so_with_pass_alone(self) -> None:
        cant = can = 0
        for state in _play_states("classic3"):
            if state.finished or state.top is None:
                continue
            seat = state.turn
            legal = view_for(state, seat)["legal"]
            controls = _region(_render(state, seat, "zh-hans"), "table-controls")
            if "play" not in legal:
                assert 'data-cant-beat="1"' in controls and "要不起" in controls
                assert 'id="pass-form"' in controls
                assert "hint-btn" not in controls and "play-form" not in controls
                cant += 1
            else:
                assert "data-cant-beat" not in controls and "要不起" not in controls
                hint = re.search(r'<button[^>]*id="hint-btn"[^>]*>', controls)[0]
                assert "disabled" not in hint  # Hint never greys out silently
                can += 1
        assert cant and can


class ShowCardsTests:
    def _at_show(self) -> HandState:
        state = start("classic3", "aids-show", classic3_show_cards=True)
        while state.phase != "show":
            seat = waiting_seats(state)[0]
            bid = Action(seat, "bid", 3) if state.phase == "bid" else None
            state = apply(state, bid or autoplay_action(state, seat))
        return state

    def test_the_landlord_is_offered_the_show_and_it_doubles_his_stakes(self) -> None:
        state = self._at_show()
        landlord = state.landlord
        controls = _region(_render(state, landlord, "zh-hans"), "table-controls")
        assert re.findall(r'name="act" value="(\w+)"', controls) == ["show", "show"]
        assert "明牌 ×2" in controls and "不明牌" in controls
        shown = apply(state, Action(landlord, "show", True))
        farmer = (landlord + 1) % 3
        assert "明牌 ×2" in _region(_render(shown, farmer, "zh-hans"), "table-hand")

    def test_his_hand_shows_on_his_panel_to_everyone_from_the_show_on(self) -> None:
        state = self._at_show()
        landlord = state.landlord
        for seat in (None, 0, 1, 2):
            assert "seat-shown" not in _region(_render(state, seat), "table-seats")
        shown = apply(state, Action(landlord, "show", True))
        hand = view_for(shown, landlord)["hand"].split()
        for seat in (None, 0, 1, 2):
            seats = _region(_render(shown, seat), "table-seats")
            panel = re.search(rf'id="table-seat-{landlord}".*?</section>', seats, re.S)[0]
            row = re.search(r'class="seat-shown".*?</p>', panel, re.S)[0]
            assert re.findall(r'data-c(?:ard)?="([^"]+)"', row) == hand
