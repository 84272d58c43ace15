"""``python -m games.engine judge``: RULES.md §8.2, one JSON answer per JSON input line.

in : {"variant": "qq5", "cards": "333 44", "prev": "222 55", "final": false, "options": {}}
out: {"legal": true, "kind": "triple_pair", "beats": true}

`prev` null, absent or "" means the candidate leads (``beats`` is then null). A candidate
that is no combination gets ``legal`` false, ``kind`` null and ``beats`` false (null when
leading). Any line that cannot be judged (bad JSON, unknown variant or option, bad
notation, a `prev` that is no combination) gets ``{"error": "..."}``; the judge goes on.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import Any, TextIO

from games.engine.cards import parse_ranks
from games.engine.combos import beats, classify, reading_to_follow, reading_to_lead
from games.engine.errors import EngineError
from games.engine.variants import find_variant

HELP = "judge candidate plays (RULES.md §8.2): JSON lines on stdin, one answer per line"


class BadRequest(EngineError):
    """A judge request that is not shaped as §8.2 says."""


def judge(request: Mapping[str, Any]) -> dict[str, Any]:
    """Answer one §8.2 request; raises EngineError (a ValueError) when it cannot be judged."""
    if not isinstance(request, Mapping):
        raise BadRequest("a request must be a JSON object")
    variant_key = request.get("variant")
    if not isinstance(variant_key, str):
        raise BadRequest('"variant" must be a string')
    options = request.get("options") or {}
    if not isinstance(options, Mapping):
        raise BadRequest('"options" must be an object')
    variant = find_variant(variant_key, **options)
    cards = request.get("cards")
    if not isinstance(cards, str):
        raise BadRequest('"cards" must be a card notation string')
    final = request.get("final") or False
    if not isinstance(final, bool):
        raise BadRequest('"final" must be true or false')
    ranks = parse_ranks(cards)
    prev = request.get("prev")
    if prev is not None and not isinstance(prev, str):
        raise BadRequest('"prev" must be a card notation string or null')
    if not prev or not prev.strip():
        lead = reading_to_lead(variant, ranks, final=final)
        return {"legal": lead is not None, "kind": lead.kind if lead else None, "beats": None}
    top = reading_to_lead(variant, parse_ranks(prev))
    if top is None:
        raise BadRequest(f"prev {prev!r} is no combination of {variant.key}")
    follow = reading_to_follow(variant, ranks, top, final=final)
    if follow is not None:
        return {"legal": True, "kind": follow.kind, "beats": True}
    readings = classify(variant, ranks, final=final)
    if not readings:
        return {"legal": False, "kind": None, "beats": False}
    # Legal but not beating: name the reading of the top play's shape if there is one.
    same_shape = [c for c in readings if c.shape == top.shape]
    shown = max(same_shape, key=lambda c: c.key) if same_shape else None
    if shown is None:
        shown = reading_to_lead(variant, ranks, final=final)
    assert shown is not None and not beats(variant, shown, top)
    return {"legal": True, "kind": shown.kind, "beats": False}


def judge_line(line: str) -> dict[str, Any]:
    """One input line to one answer; never raises on bad input."""
    try:
        request = json.loads(line)
    except ValueError as exc:
        return {"error": f"not a JSON line: {exc}"}
    try:
        return judge(request)
    except (EngineError, TypeError) as exc:
        return {"error": str(exc)}


def run_judge(stdin: TextIO, stdout: TextIO) -> int:
    for line in stdin:
        answer = judge_line(line)
        stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
        stdout.flush()
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No arguments: requests come on stdin."""


def run(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    return run_judge(stdin, stdout)
