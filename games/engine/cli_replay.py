"""``python -m games.engine replay [path]``: replay a §8.4 hand record (stdin by default).

Prints one JSON object: the result (phase, turn, hands_left, teams, multiplier, finished,
winner_side, units, beans, house) or ``{"error": ..., "action_index": i}``. Exit status 0 when
the record replays, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from games.engine.record import replay_summary

HELP = "replay a hand record (docs/rules.md §8.4) from a path or stdin and print the result"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", help="the record's JSON file (default: stdin)")


def run(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    try:
        if args.path:
            with open(args.path, encoding="utf-8") as fh:
                record = json.load(fh)
        else:
            record = json.load(stdin)
    except (OSError, ValueError) as exc:
        out = {"error": f"cannot read the record: {exc}", "action_index": None}
    else:
        out = replay_summary(record)
    stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
    return 1 if "error" in out else 0
