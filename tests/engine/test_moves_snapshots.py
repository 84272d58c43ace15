"""Pinned output of legal_plays: order snapshots and a perft-style count file.

* ``tests/engine/snapshots/moves_<variant>.txt``: every play, in order, with its reading, for
  a few fixed hands per variant (leading and following). Any change in order, count or
  reading shows up as a diff. Regenerate deliberately with
  ``DDZ_UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest tests/engine/test_moves_snapshots.py``
  and review the diff.
* ``tests/engine/vectors/moves_counts.txt``: ``variant | hand | prev | count`` lines (prev
  ``-`` = leading), checked in-process and through ``python -m games.engine moves``. The
  counts were produced by the brute-force oracle of test_moves_oracle.py (every
  sub-multiset classified alone), not by legal_plays.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine.cards import parse_ranks
from games.engine.combos import reading_to_lead
from games.engine.moves import legal_plays
from games.engine.variants import find_variant

HERE = Path(__file__).parent
SNAPSHOT_DIR = HERE / "snapshots"
COUNTS_FILE = HERE / "vectors" / "moves_counts.txt"
REPO = HERE.parent.parent
UPDATE = os.environ.get("DDZ_UPDATE_SNAPSHOTS") == "1"

# (hand, prev or None). Hands are landlord-like: long, with triples, chains and bombs.
SNAPSHOT_HANDS: dict[str, list[tuple[str, str | None]]] = {
    "classic3": [
        ("3345567789TJQKA22BJ", None),
        ("333444555666789TSJBJ", None),
        ("333444555666789TSJBJ", "333444+55"),
        ("3333AAAA567", None),
        ("3333AAAA567", "5555+6677"),
        ("34567789TTJQQKA2", "34567"),
    ],
    "qq5": [
        ("33344455566677889TTJQKA2SJBJ", None),
        ("3333344445555566TTJJQQSJSJBJ", None),
        ("3333344445555566TTJJQQSJSJBJ", "333444+5566"),
        ("3333344445555566TTJJQQSJSJBJ", "2222"),
    ],
    "new5": [
        ("A23456789TJQKAA22333SJSJBJ", None),
        ("AAA222333444556677SJSJBJBJ", None),
        ("AAA222333444556677SJSJBJBJ", "AAA222+3344"),
        ("3333333344444444555SJSJSJBJBJBJ", "2222"),
    ],
    "fenzhou5": [
        ("3333444455556789TJQKA2SJSJBJBJ", None),
        ("3333444455556789TJQKA2SJSJBJBJ", "9999"),
        ("333444555", None),
        ("3334445556789", "333444+56"),
    ],
}


def render(variant_key: str) -> str:
    variant = find_variant(variant_key)
    lines = [
        f"# legal_plays snapshot for {variant_key} (tests/engine/test_moves_snapshots.py).",
        "# Regenerate: DDZ_UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest "
        "tests/engine/test_moves_snapshots.py",
    ]
    for hand, prev in SNAPSHOT_HANDS[variant_key]:
        top = reading_to_lead(variant, parse_ranks(prev)) if prev else None
        plays = legal_plays(variant, parse_ranks(hand), top)
        lines.append("")
        lines.append(f"== hand {hand} | prev {prev or '-'} | count {len(plays)}")
        for combo in plays:
            extra = f" power={','.join(map(str, combo.bomb_power))}" if combo.is_bomb else ""
            lines.append(f"{combo.notation} {combo.kind} key={combo.key} len={combo.length}{extra}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("variant_key", sorted(SNAPSHOT_HANDS))
def test_order_snapshot(variant_key):
    path = SNAPSHOT_DIR / f"moves_{variant_key}.txt"
    text = render(variant_key)
    if UPDATE:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"missing {path}: run with DDZ_UPDATE_SNAPSHOTS=1 to create it"
    assert text == path.read_text(encoding="utf-8"), (
        f"legal_plays output changed for {variant_key}; if deliberate, regenerate with "
        "DDZ_UPDATE_SNAPSHOTS=1 and review the diff"
    )


def load_counts() -> list[tuple[str, str, str | None, int]]:
    rows = []
    for line in COUNTS_FILE.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        variant, hand, prev, count = (c.strip() for c in line.split("|"))
        rows.append((variant, hand, None if prev == "-" else prev, int(count)))
    return rows


COUNTS = load_counts()


@pytest.mark.parametrize(("variant_key", "hand", "prev", "count"), COUNTS)
def test_count_file_in_process(variant_key, hand, prev, count):
    variant = find_variant(variant_key)
    top = reading_to_lead(variant, parse_ranks(prev)) if prev else None
    assert len(legal_plays(variant, parse_ranks(hand), top)) == count


def test_count_file_through_cli():
    requests = [{"variant": v, "hand": h, "prev": p} for v, h, p, _ in COUNTS]
    requests.insert(1, {"variant": "nope", "hand": "3"})  # errors do not stop the stream
    lines = "\n".join(json.dumps(r) for r in requests) + "\nnot json\n"
    proc = subprocess.run(
        [sys.executable, "-m", "games.engine", "moves"],
        input=lines,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=True,
    )
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(answers) == len(requests) + 1
    assert "error" in answers.pop(1) and "error" in answers.pop()
    for (variant_key, hand, prev, count), answer in zip(COUNTS, answers, strict=True):
        assert answer["count"] == count == len(answer["plays"]), (variant_key, hand, prev)
        assert len(set(answer["plays"])) == count
        variant = find_variant(variant_key)
        top = reading_to_lead(variant, parse_ranks(prev)) if prev else None
        expected = [c.notation for c in legal_plays(variant, parse_ranks(hand), top)]
        assert answer["plays"] == expected
