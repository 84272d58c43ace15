"""``python -m games.engine verify SEED COMMITMENT VARIANT [--landlord-seat N]``.

Recomputes the deal from a published seed and checks it against the published commitment
(SHA-256 of the seed). Prints JSON: variant, seed, commitment (recomputed), matches, deal.
Exit status 0 when the commitment matches, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from games.engine.dealing import verify
from games.engine.errors import EngineError

HELP = "recompute a deal from its seed and check the published commitment"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("seed")
    parser.add_argument("commitment", help="the SHA-256 hex published before the deal")
    parser.add_argument("variant", help="qq5, new5, classic3 or fenzhou5")
    parser.add_argument(
        "--landlord-seat", type=int, default=None, help="fenzhou5: this hand's rotation landlord"
    )


def run(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    try:
        out = verify(args.seed, args.commitment, args.variant, landlord_seat=args.landlord_seat)
    except EngineError as exc:
        stdout.write(json.dumps({"error": str(exc)}) + "\n")
        return 2
    stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
    return 0 if out["matches"] else 1
