"""docs/rules.md's worked examples (A1, A2, B1, C1–C4, D1, D2) and scenario lists, as §8.4 hand
records in tests/engine/records/, replayed in-process and through ``python -m games.engine replay``.

The expected values in records/expected.json were written from docs/rules.md by hand
(records/build_records.py), never taken from the engine.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from games.engine.cards import format_card
from games.engine.hand import legal_actions, summary, waiting_seats
from games.engine.record import ReplayError, hand_record, replay, replay_summary
from games.engine.views import public_view, view_for

RECORDS = Path(__file__).parent / "records"
EXPECTED: dict[str, dict[str, Any]] = json.loads((RECORDS / "expected.json").read_text())
SUMMARY_KEYS = ("phase", "turn", "hands_left", "teams", "multiplier", "finished", "winner_side")
SUMMARY_KEYS += ("units", "beans", "house")
ROOT = Path(__file__).resolve().parents[2]


def load(name: str) -> dict[str, Any]:
    return json.loads((RECORDS / f"{name}.json").read_text())


def check_summary(out: dict[str, Any], exp: dict[str, Any]) -> None:
    if "error_index" in exp:
        assert out.get("action_index") == exp["error_index"], out
        assert "error" in out
        return
    assert set(out) == set(SUMMARY_KEYS)
    for key in SUMMARY_KEYS:
        if key in exp:
            assert out[key] == exp[key], (key, out[key], exp[key])


@pytest.mark.parametrize("name", sorted(EXPECTED))
class TestRecordExamples:
    def test_replay_in_process(self, name: str) -> None:
        exp = EXPECTED[name]
        record = load(name)
        check_summary(replay_summary(record), exp)
        if "error_index" in exp:
            with pytest.raises(ReplayError) as err:
                replay(record)
            assert err.value.action_index == exp["error_index"]
            return
        state = replay(record)
        # the record round-trips: exporting the rebuilt state gives the same document
        assert hand_record(state) == record
        assert summary(state) == replay_summary(record)
        self.check_details(name, record, state, exp)

    def check_details(self, name: str, record: dict, state: Any, exp: dict[str, Any]) -> None:
        if "waiting" in exp:
            assert list(waiting_seats(state)) == exp["waiting"]
        if "revealed" in exp:
            assert state.revealed == exp["revealed"]
        if "spring" in exp:
            assert state.result.spring == exp["spring"]
        if "anti_spring" in exp:
            assert state.result.anti_spring == exp["anti_spring"]
        if "auto_win" in exp:
            assert state.auto_win == exp["auto_win"]
        if "marked_card" in exp:
            assert format_card(state.marked_card) == exp["marked_card"]
        if "doublers" in exp:
            assert list(state.asked if state.phase == "double" else ()) == exp["doublers"]
        if "choices" in exp:
            landlord = state.landlord
            values = [a.value for a in legal_actions(state, landlord)]
            assert values == exp["choices"]
            for mode, key in (
                ("call_friend", "call_friend_card"),
                ("hidden_solo", "hidden_solo_card"),
            ):
                if key in exp:
                    chosen = dict(
                        record,
                        actions=[
                            *record["actions"],
                            {"seat": landlord, "act": "partner", "value": mode},
                        ],
                    )
                    after = replay(chosen)
                    assert format_card(after.marked_card) == exp[key]
                    assert after.phase == "play"
                    # 暗独打 looks like 叫朋友 to everyone but the landlord until it shows
                    if mode == "hidden_solo":
                        assert public_view(after)["partner_mode"] == "call_friend"
                        assert view_for(after, landlord)["partner_mode"] == "hidden_solo"
        if "partners" in exp:
            first, second = exp["partners"]
            hidden = replay(dict(record, actions=record["actions"][: exp["hidden_before"]]))
            assert not hidden.revealed
            assert public_view(hidden)["partner"] is None
            assert view_for(hidden, second)["role"] == "partner"
            assert view_for(hidden, first).get("partner") is None
            assert public_view(state)["partner"] == second
            if state.variant.key == "qq5":
                # from the reveal on, the two landlords see each other's hands
                assert "partner_hand" not in view_for(hidden, first)
                assert view_for(state, first)["partner_hand"] == view_for(state, second)["hand"]
                assert view_for(state, second)["partner_hand"] == view_for(state, first)["hand"]
            else:
                assert all("partner_hand" not in view_for(state, s) for s in range(5))


@pytest.mark.slow
def test_replay_cli_prints_every_example() -> None:
    """The CLI, one process per record (path argument) and one on stdin."""
    for name, exp in sorted(EXPECTED.items()):
        proc = subprocess.run(
            [sys.executable, "-m", "games.engine", "replay", str(RECORDS / f"{name}.json")],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
        )
        out = json.loads(proc.stdout)
        check_summary(out, exp)
        assert proc.returncode == (1 if "error_index" in exp else 0), proc.stderr
    name = "classic3_C4_cap_with_spring"
    proc = subprocess.run(
        [sys.executable, "-m", "games.engine", "replay"],
        input=(RECORDS / f"{name}.json").read_text(),
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    check_summary(json.loads(proc.stdout), EXPECTED[name])


def test_replay_cli_reports_bad_documents() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "games.engine", "replay"],
        input="{not json",
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["action_index"] is None


def test_first_illegal_action_is_named() -> None:
    record = load("classic3_C3_one_bomb")
    bad = dict(record, actions=[*record["actions"][:5], {"seat": 0, "act": "play", "cards": "3s"}])
    out = replay_summary(bad)
    assert out["action_index"] == 5
    assert "CardsNotHeld" in out["error"] or "NotYourTurn" in out["error"]
