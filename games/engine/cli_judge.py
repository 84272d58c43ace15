"""``python -m games.engine judge``: docs/rules.md §8.2, one JSON answer per JSON input line.

in : {"variant": "qq5", "cards": "333 44", "prev": "222 55", "final": false, "options": {}}
out: {"legal": true, "kind": "triple_pair", "beats": true}

`prev` null, absent or "" means the candidate leads (``beats`` is then null). A candidate
that is no combination gets ``legal`` false, ``kind`` null and ``beats`` false (null when
leading). Any line that cannot be judged (bad JSON, unknown variant or option, bad
notation, a `prev` that is no combination) gets ``{"error": "..."}``; the judge goes on.
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from games.engine.cards import parse_ranks
from games.engine.cli_lines import (
    Answer,
    BadRequest,
    answer_line,
    answer_lines,
    request_notation,
    request_top,
    request_variant,
)
from games.engine.combos import beats, classify, reading_to_follow, reading_to_lead

HELP = "judge candidate plays (docs/rules.md §8.2): JSON lines on stdin, one answer per line"


def judge(request: Any) -> Answer:
    """Answer one §8.2 request; raises EngineError (a ValueError) when it cannot be judged."""
    variant = request_variant(request)
    ranks = parse_ranks(request_notation(request, "cards"))
    final = request.get("final") or False
    if not isinstance(final, bool):
        raise BadRequest('"final" must be true or false')
    top = request_top(request, variant)
    if top is None:
        lead = reading_to_lead(variant, ranks, final=final)
        return {"legal": lead is not None, "kind": lead.kind if lead else None, "beats": None}
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


def judge_line(line: str) -> Answer:
    """One input line to one answer; never raises on bad input."""
    return answer_line(judge, line)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No arguments: requests come on stdin."""


def run(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    return answer_lines(judge, stdin, stdout)
