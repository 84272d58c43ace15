"""Command line: ``python -m games.engine <command>``.

Each command lives in its own module, listed in COMMANDS. A command module provides
``HELP: str``, ``add_arguments(parser)`` and ``run(args, stdin, stdout) -> int``; adding a
command is one line here plus its module.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

COMMANDS: dict[str, str] = {
    "judge": "games.engine.cli_judge",
    "moves": "games.engine.cli_moves",
    "replay": "games.engine.cli_replay",
    "verify": "games.engine.cli_verify",
}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    chosen = next((a for a in argv if not a.startswith("-")), None)
    parser = argparse.ArgumentParser(prog="python -m games.engine", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True, metavar="command")
    modules = {}
    for name, module_path in COMMANDS.items():
        try:
            module = importlib.import_module(module_path)
        except ImportError as exc:
            if name == chosen:
                raise
            # One broken command must not take the others down.
            sub.add_parser(name, help=f"(unavailable: {exc})")
            continue
        modules[name] = module
        module.add_arguments(sub.add_parser(name, help=module.HELP, description=module.HELP))
    args = parser.parse_args(argv)
    for stream in (sys.stdin, sys.stdout):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8")
    return int(modules[args.command].run(args, sys.stdin, sys.stdout))


if __name__ == "__main__":
    sys.exit(main())
