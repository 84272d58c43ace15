"""docs/rules.md §3.7, §4.6, §5.6, §6.8 vectors (plus ours) through the §8.2 judge, in process and
through ``python -m games.engine judge``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine.cli_judge import judge_line
from tests.engine.conftest import JUDGE_VARIANTS, all_judge_vectors, load_judge_vectors

REPO = Path(__file__).resolve().parents[2]
VECTORS = all_judge_vectors()


def _check(vector, answer):
    expected = vector.expected()
    got = {k: answer.get(k) for k in expected}
    assert got == expected, f"{vector.variant} {vector.id}: {vector.request()} -> {answer}"
    assert set(answer) == {"legal", "kind", "beats"}


@pytest.mark.parametrize("vector", VECTORS, ids=[f"{v.variant}:{v.id}" for v in VECTORS])
def test_vector_in_process(vector):
    _check(vector, judge_line(json.dumps(vector.request())))


@pytest.mark.parametrize("variant", JUDGE_VARIANTS)
def test_every_rules_vector_is_present(variant):
    counts = {"qq5": 22, "new5": 25, "classic3": 16, "fenzhou5": 22}
    ids = [v.id for v in load_judge_vectors(variant) if v.id.startswith("R")]
    # fenzhou5 #20 is two lines: one per value of fenzhou_nuke.
    assert len({i.rstrip("ab") for i in ids}) == counts[variant]


def _run_cli(lines):
    proc = subprocess.run(
        [sys.executable, "-m", "games.engine", "judge"],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        check=True,
    )
    return [json.loads(line) for line in proc.stdout.splitlines()]


def test_vectors_through_cli():
    answers = _run_cli([json.dumps(v.request()) for v in VECTORS])
    assert len(answers) == len(VECTORS)
    for vector, answer in zip(VECTORS, answers, strict=True):
        _check(vector, answer)


def test_cli_survives_bad_lines():
    lines = [
        "not json",
        "",
        json.dumps([1, 2]),
        json.dumps({"variant": "nope", "cards": "3"}),
        json.dumps({"variant": "qq5", "cards": "3x"}),
        json.dumps({"variant": "qq5", "cards": 3}),
        json.dumps({"variant": "qq5", "cards": "3", "prev": "34"}),
        json.dumps({"variant": "qq5", "cards": "3", "options": {"bogus": 1}}),
        json.dumps({"variant": "qq5", "cards": "3", "final": "yes"}),
        json.dumps({"variant": "qq5", "cards": "4", "prev": "3", "extra": [1]}),
    ]
    answers = _run_cli(lines)
    assert len(answers) == len(lines)
    assert all(set(a) == {"error"} for a in answers[:-1]), answers
    assert answers[-1] == {"legal": True, "kind": "single", "beats": True}


def test_judge_options_and_empty_prev():
    line = json.dumps(
        {
            "variant": "fenzhou5",
            "cards": "SJBJ",
            "prev": "",
            "options": {"fenzhou_nuke": "big_plus_small"},
        }
    )
    assert judge_line(line) == {"legal": True, "kind": "nuke", "beats": None}
    assert judge_line(json.dumps({"variant": "qq5", "cards": ""})) == {
        "legal": False,
        "kind": None,
        "beats": None,
    }
