"""``python -m games.engine moves``: docs/rules.md §8.3, every legal play, one JSON answer per line.

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
from collections import Counter
from typing import Any, TextIO

from games.engine.cards import BJ, SJ, parse_ranks
from games.engine.cli_lines import (
    Answer,
    BadRequest,
    answer_line,
    answer_lines,
    request_notation,
    request_top,
    request_variant,
)
from games.engine.moves import legal_plays

HELP = "list every legal play of a hand (docs/rules.md §8.3): JSON lines in, one answer per line"


def moves(request: Any) -> Answer:
    """Answer one §8.3 request; raises EngineError (a ValueError) when it cannot be answered."""
    variant = request_variant(request)
    ranks = parse_ranks(request_notation(request, "hand"))
    for rank, count in Counter(ranks).items():
        copies = variant.decks * (1 if rank in (SJ, BJ) else 4)
        if count > copies:
            raise BadRequest(
                f"hand holds {count} cards of rank {rank}; {variant.key} has only {copies}"
            )
    top = request_top(request, variant)
    plays = [combo.notation for combo in legal_plays(variant, ranks, top)]
    return {"count": len(plays), "plays": plays}


def moves_line(line: str) -> Answer:
    """One input line to one answer; never raises on bad input."""
    return answer_line(moves, line)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No arguments: requests come on stdin."""


def run(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    return answer_lines(moves, stdin, stdout)
