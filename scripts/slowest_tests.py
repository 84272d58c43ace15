"""Print the slowest tests of the JUnit reports under a folder (one per pytest run of CI).

    python scripts/slowest_tests.py [--top N] FOLDER

Each line: seconds, the run (the report's path under FOLDER) and the test.
"""

from __future__ import annotations

import argparse
import xml.etree.ElementTree as ET
from pathlib import Path


def slowest(folder: Path, top: int) -> list[tuple[float, str, str]]:
    timed = []
    for report in sorted(folder.rglob("*.xml")):
        run = str(report.relative_to(folder).with_suffix(""))
        for case in ET.parse(report).iter("testcase"):
            test = f"{case.get('classname', '')}::{case.get('name', '')}"
            timed.append((float(case.get("time") or 0.0), run, test))
    return sorted(timed, reverse=True)[:top]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--top", type=int, default=10)
    options = parser.parse_args()
    rows = slowest(options.folder, options.top)
    print(f"==== the {len(rows)} slowest tests")
    for seconds, run, test in rows:
        print(f"{seconds:8.2f}s  {run:<18} {test}")


if __name__ == "__main__":
    main()
