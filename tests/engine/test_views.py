"""Per-audience views at chosen moments of the example hands (the random-hand leak property is in
test_hand_properties.py)."""

from __future__ import annotations

import json
from pathlib import Path

from games.engine.record import replay
from games.engine.views import public_view, view_for
from tests.engine.hand_helpers import check_all_views

RECORDS = Path(__file__).parent / "records"


def at(name: str, upto: int | None = None):
    record = json.loads((RECORDS / f"{name}.json").read_text())
    if upto is not None:
        record["actions"] = record["actions"][:upto]
    return replay(record)


class TestClassic3Views:
    def test_bottom_is_public_only_once_the_landlord_is_fixed_and_doubling_done(self) -> None:
        bidding = at("classic3_C1_landlord_wins", 0)
        doubling = at("classic3_C1_landlord_wins", 1)
        playing = at("classic3_C1_landlord_wins", 3)
        for state in (bidding, doubling):
            check_all_views(state)
            assert "bottom" not in public_view(state)
            assert all("bottom" not in view_for(state, s) for s in range(3))
        assert public_view(playing)["bottom"] == "Ks Ah As"
        assert public_view(playing)["teams"]["complete"] is True
        assert public_view(doubling)["waiting"] == [1]
        assert view_for(doubling, 1)["legal"] == ["double"]
        assert view_for(doubling, 2)["legal"] == []
        assert public_view(bidding)["face_up"] == {"card": "3s", "seat": 0}

    def test_views_are_json(self) -> None:
        state = at("classic3_C4_cap_with_spring")
        json.dumps(public_view(state))
        assert public_view(state)["result"]["beans"] == [864, -480, -480]
        assert public_view(state)["result"]["spring"] is True


class TestQQ5Views:
    def test_hidden_landlord_before_and_after_reveal(self) -> None:
        start = at("qq5_A1_two_landlords_win", 0)
        check_all_views(start)
        assert public_view(start)["landlord"] == 0
        assert public_view(start)["waiting"] == [0]  # the 暗地主 is asked too, secretly
        assert view_for(start, 3)["waiting"] == [0, 3]
        assert view_for(start, 3)["role"] == "partner"
        assert view_for(start, 0)["partner"] is None
        assert view_for(start, 0)["bottom"] == "Ts Js Qs"
        assert "bottom" not in view_for(start, 1)
        revealed = at("qq5_A1_two_landlords_win", 2)
        check_all_views(revealed)
        assert public_view(revealed)["partner"] == 3
        assert public_view(revealed)["reveals"] == [3]
        assert view_for(revealed, 0)["partner_hand"] == view_for(revealed, 3)["hand"]
        assert "partner_hand" not in view_for(revealed, 1)


class TestNew5Views:
    def test_grab_window(self) -> None:
        state = at("new5_B1_call_friend_scheme_a", 3)
        check_all_views(state)
        pv = public_view(state)
        # the window is open: the grabs show to their grabbers only until it closes
        assert pv["grabs"] == [] and pv["grab_count"] == 0 and pv["multiplier"] == 1
        assert view_for(state, 1)["grabs"] == [{"seat": 1, "card": "9h"}] * 2
        assert view_for(state, 1)["multiplier"] == 2
        assert pv["waiting"] == [] and pv["landlord"] is None
        assert view_for(state, 4)["waiting"] == [4]
        assert [c["value"] for c in view_for(state, 4)["choices"]] == ["9d", "BJ", None]
