"""Screenshots of the table screen without playing: one hand of each variant against bots, at
1280×800 and 390×844 (tests/browser/test_screenshots.py, in a throw-away club); with ``events``,
the event pages of a duplicate night and an arena (tests/browser/test_events.py and
test_event_arena.py); with ``rules``, a rules page on a phone and a desktop
(tests/browser/test_rules_guide.py).

    .venv/bin/python scripts/screenshots.py [--out screenshots] [variant ... | events | rules]

Writes ``<variant>-<desktop|phone>-<n>-<moment>.png`` to ``--out`` (default ``screenshots/``,
ignored by git): the first decision, the first turn to play, a turn later in the hand, and the
result; and ``event-*.png``. Needs Chromium (``/usr/bin/chromium``) and Playwright
(requirements-dev.txt).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = ("qq5", "new5", "classic3", "fenzhou5")
EVENTS = "events"
RULES = "rules"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "variants", nargs="*", help=f"some of {', '.join(VARIANTS)}, {EVENTS} or {RULES} (all)"
    )
    parser.add_argument("--out", default="screenshots", help="folder for the pictures")
    options = parser.parse_args()
    unknown = set(options.variants) - {*VARIANTS, EVENTS, RULES}
    if unknown:
        parser.error(f"unknown variants: {', '.join(sorted(unknown))}")
    out = Path(options.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    pytest = [sys.executable, "-m", "pytest", "-m", "browser", "-p", "no:asyncio"]
    pytest += ["-p", "no:cacheprovider", "-q"]
    variants = [v for v in options.variants if v not in (EVENTS, RULES)]
    runs = []
    if variants or not options.variants:
        tables = [*pytest, "tests/browser/test_screenshots.py"]
        runs.append(tables + (["-k", " or ".join(variants)] if variants else []))
    if EVENTS in options.variants or not options.variants:
        runs.append([*pytest, "tests/browser/test_events.py", "tests/browser/test_event_arena.py"])
    if RULES in options.variants or not options.variants:
        runs.append([*pytest, "tests/browser/test_rules_guide.py", "-k", "lobby"])
    env = {**os.environ, "BROWSER_ARTIFACTS": str(out)}
    status = 0
    for command in runs:
        status = subprocess.run(command, cwd=ROOT, env=env, check=False).returncode or status
    for path in sorted(out.glob("*.png")):
        print(path)
    return status


if __name__ == "__main__":
    sys.exit(main())
