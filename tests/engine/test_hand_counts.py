"""Perft-style count file: for a few seeded deals, the number of legal actions at each step of a
fixed line of play (at step i the first waiting seat takes legal action number i mod count),
pinned in
tests/engine/vectors/hand_counts.txt. Any change to dealing, a flow, move generation or the order
of legal actions shows up here.

Regenerate after a deliberate rules change:
    HAND_COUNTS_REGEN=1 pytest tests/engine/test_hand_counts.py
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from games.engine.dealing import deal
from games.engine.hand import apply, legal_actions, start_hand, waiting_seats
from games.engine.variants import find_variant

PATH = Path(__file__).parent / "vectors" / "hand_counts.txt"
CASES = [
    ("qq5", "perft-a", None),
    ("qq5", "perft-b", None),
    ("new5", "perft-a", None),
    ("new5", "perft-b", None),
    ("classic3", "perft-a", None),
    ("classic3", "perft-c", None),
    ("fenzhou5", "perft-a", 0),
    ("fenzhou5", "perft-b", 3),
]
HEADER = """\
# Legal-action counts along a fixed line of play, one hand per line (cf. chess perft files).
# variant seed landlord_seat(- if none) : count at each step i, where the first waiting seat
# takes legal action number (i mod count) (play phase: moves.legal_plays order, then pass).
"""


def counts_for(key: str, seed: str, landlord_seat: int | None) -> list[int]:
    v = find_variant(key)
    state = start_hand(v, deal(v, seed, landlord_seat=landlord_seat))
    counts = []
    while not state.finished:
        seat = waiting_seats(state)[0]
        actions = legal_actions(state, seat)
        counts.append(len(actions))
        state = apply(state, actions[len(counts) % len(actions)])
    return counts


def render() -> str:
    lines = [HEADER]
    for key, seed, seat in CASES:
        counts = counts_for(key, seed, seat)
        lines.append(
            f"{key} {seed} {'-' if seat is None else seat} : {' '.join(map(str, counts))}\n"
        )
    return "".join(lines)


def parse() -> list[tuple[str, str, int | None, list[int]]]:
    out = []
    for line in PATH.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        head, counts = line.split(":")
        key, seed, seat = head.split()
        out.append(
            (key, seed, None if seat == "-" else int(seat), [int(c) for c in counts.split()])
        )
    return out


if os.environ.get("HAND_COUNTS_REGEN"):
    PATH.write_text(render())


@pytest.mark.parametrize(("key", "seed", "seat", "expected"), parse())
def test_hand_counts(key: str, seed: str, seat: int | None, expected: list[int]) -> None:
    assert counts_for(key, seed, seat) == expected


def test_every_case_is_pinned() -> None:
    assert [(k, s, seat) for k, s, seat, _ in parse()] == CASES
