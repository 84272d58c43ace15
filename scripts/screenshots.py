"""Screenshots of the table screen without playing: one hand of each variant against bots, at
1280×800 and 390×844 (tests/browser/test_screenshots.py, in a throw-away club).

    .venv/bin/python scripts/screenshots.py [--out screenshots] [variant ...]

Writes ``<variant>-<desktop|phone>-<n>-<moment>.png`` to ``--out`` (default ``screenshots/``,
ignored by git): the first decision, the first turn to play, a turn later in the hand, and the
result. Needs Chromium (``/usr/bin/chromium``) and Playwright (requirements-dev.txt).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = ("qq5", "new5", "classic3", "fenzhou5")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variants", nargs="*", help=f"some of {', '.join(VARIANTS)} (all)")
    parser.add_argument("--out", default="screenshots", help="folder for the pictures")
    options = parser.parse_args()
    unknown = set(options.variants) - set(VARIANTS)
    if unknown:
        parser.error(f"unknown variants: {', '.join(sorted(unknown))}")
    out = Path(options.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-m",
        "browser",
        "-p",
        "no:asyncio",
        "-p",
        "no:cacheprovider",
        "-q",
        "tests/browser/test_screenshots.py",
    ]
    if options.variants:
        command += ["-k", " or ".join(options.variants)]
    env = {**os.environ, "BROWSER_ARTIFACTS": str(out)}
    status = subprocess.run(command, cwd=ROOT, env=env, check=False).returncode
    for path in sorted(out.glob("*.png")):
        print(path)
    return status


if __name__ == "__main__":
    sys.exit(main())
