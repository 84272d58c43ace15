"""``python -m games.engine moves``: RULES.md §8.3, every legal play, one JSON answer per line.

in : {"variant": "classic3", "hand": "3345567789TJQKA22BJ", "prev": null, "options": {}}
out: {"count": 123, "plays": ["3", "33", ...]}

`prev` null, absent or "" means the hand leads; otherwise the plays are those that beat
`prev` (read as it would be read when led). Plays are rank-only strings in the order of
``games.engine.moves.legal_plays`` (non-bombs by kind, length, key, kickers; bombs last).
A play that uses the whole hand counts as the final play. Passing is not listed. Any line
that cannot be answered (bad JSON, unknown variant or option, bad notation, a `prev` that
is no combination, more cards of a rank than the variant's decks hold) gets
``{"error": "..."}`` and the command goes on with the next line.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Mapping
from typing import Any, TextIO

from games.engine.cards import BJ, SJ, parse_ranks
from games.engine.combos import reading_to_lead
from games.engine.errors import EngineError
from games.engine.moves import legal_plays
from games.engine.variants import find_variant

HELP = "list every legal play of a hand (RULES.md §8.3): JSON lines on stdin, one answer per line"


class BadRequest(EngineError):
    """A moves request that is not shaped as §8.3 says."""


def moves(request: Mapping[str, Any]) -> dict[str, Any]:
    """Answer one §8.3 request; raises EngineError (a ValueError) when it cannot be answered."""
    if not isinstance(request, Mapping):
        raise BadRequest("a request must be a JSON object")
    variant_key = request.get("variant")
    if not isinstance(variant_key, str):
        raise BadRequest('"variant" must be a string')
    options = request.get("options")
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise BadRequest('"options" must be an object')
    variant = find_variant(variant_key, **options)
    hand = request.get("hand")
    if not isinstance(hand, str):
        raise BadRequest('"hand" must be a card notation string')
    ranks = parse_ranks(hand)
    for rank, count in Counter(ranks).items():
        copies = variant.decks * (1 if rank in (SJ, BJ) else 4)
        if count > copies:
            raise BadRequest(
                f"hand holds {count} cards of rank {rank}; {variant.key} has only {copies}"
            )
    prev = request.get("prev")
    if prev is not None and not isinstance(prev, str):
        raise BadRequest('"prev" must be a card notation string or null')
    top = None
    if prev and prev.strip():
        top = reading_to_lead(variant, parse_ranks(prev))
        if top is None:
            raise BadRequest(f"prev {prev!r} is no combination of {variant.key}")
    plays = [combo.notation for combo in legal_plays(variant, ranks, top)]
    return {"count": len(plays), "plays": plays}


def moves_line(line: str) -> dict[str, Any]:
    """One input line to one answer; never raises on bad input."""
    try:
        request = json.loads(line)
    except ValueError as exc:
        return {"error": f"not a JSON line: {exc}"}
    try:
        return moves(request)
    except (EngineError, TypeError) as exc:
        return {"error": str(exc)}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No arguments: requests come on stdin."""


def run(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    for line in stdin:
        stdout.write(json.dumps(moves_line(line), ensure_ascii=False) + "\n")
        stdout.flush()
    return 0
