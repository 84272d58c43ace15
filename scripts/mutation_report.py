"""The figures of the last mutation run (scripts/mutation.sh) per module, and what needs a look.

Reads mutmut's verdicts (``mutants/**/*.py.meta``) and the survivors that docs/mutation.md's
list "Equivalent mutants" explains (a line ``- `mutant name`: why``), then prints, per module,
the mutants, how many the tests killed, how many survived, how many of those are equivalent, and
the share of the others that were killed. A survivor that only rewords the message of a
``raise`` (mutmut's ``XX…XX``, upper case, ``None``) counts as equivalent without a line of its
own: the rules do not depend on the words of an error no player reads (those a player or the
admin reads are pinned by tests, so their mutants do not survive).

Counts only the mutants that were run: a partial run (``scripts/mutation.sh 'pattern'``)
reports on the mutants it ran and says how many it left out.

Exits 1 when a survivor is not explained or a module kills less than TARGET of its
non-equivalent mutants; it also names explanations that no longer match a survivor (the mutant
was killed, or renumbered by a change of its function).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter, defaultdict
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "docs" / "mutation.md"
TARGET = Fraction(90, 100)
EXPLAINED = re.compile(r"^- `([\w.ǁ]+__mutmut_\d+)`: \S")

# mutmut's exit codes of a mutant's test run (mutmut/stats.py): a timeout is a mutant the tests
# noticed (it never finished), "no tests" one that no selected test reaches.
VERDICTS = {0: "survived", 1: "killed", 3: "killed", 5: "no tests", 33: "no tests", 34: "skipped"}
TIMEOUTS = {24, -24, 36, 152, 255}
MARKS = ("---", "+++")  # a diff's file names, not changed lines


def verdicts() -> dict[str, str]:
    out = {}
    for meta in sorted((ROOT / "mutants").rglob("*.py.meta")):
        for name, code in json.loads(meta.read_text())["exit_code_by_key"].items():
            if code in TIMEOUTS:
                out[name] = "killed"
            else:
                out[name] = VERDICTS.get(code, "not run" if code is None else "suspicious")
    return out


def explained() -> set[str]:
    return {m[1] for line in REPORT.read_text().splitlines() if (m := EXPLAINED.match(line))}


def rewords_a_raise(name: str) -> bool:
    shown = subprocess.run(
        [str(ROOT / ".venv-mutation/bin/mutmut"), "show", name],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    changed = [line[1:].strip() for line in shown if line[:1] in "+-" and line[:3] not in MARKS]
    return bool(changed) and all(line.startswith("raise ") for line in changed)


def module_of(name: str) -> str:
    return name.rsplit(".", 1)[0]


def main() -> int:
    found = verdicts()
    if not found:
        print("no mutation results: run scripts/mutation.sh first", file=sys.stderr)
        return 1
    equivalent = explained()
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    open_survivors = []
    not_run = 0
    for name, verdict in sorted(found.items()):
        if verdict == "not run":  # a run of some mutants only (scripts/mutation.sh 'name*')
            not_run += 1
            continue
        row = counts[module_of(name)]
        row["mutants"] += 1
        row[verdict] += 1
        if verdict != "killed" and name in equivalent:
            row["equivalent"] += 1
        elif verdict == "survived" and rewords_a_raise(name):
            row["rewords an error"] += 1
        elif verdict != "killed":
            open_survivors.append((name, verdict))

    failing = []
    print(
        "| module | mutants | killed | survived | equivalent (listed) | rewords an error "
        "| killed of the others |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for module, row in sorted(counts.items()):
        others = row["mutants"] - row["equivalent"] - row["rewords an error"]
        score = Fraction(row["killed"], others) if others else Fraction(1)
        failing += [module] if score < TARGET else []
        print(
            f"| {module} | {row['mutants']} | {row['killed']} | {row['mutants'] - row['killed']} "
            f"| {row['equivalent']} | {row['rewords an error']} | {float(score):.0%} |"
        )
    for name, verdict in open_survivors:
        print(f"not explained ({verdict}): {name}   (.venv-mutation/bin/mutmut show {name})")
    for name in sorted(equivalent - {n for n, v in found.items() if v != "killed"}):
        if module_of(name) in counts:
            print(f"explained but not a survivor (killed or renumbered): {name}")
    if not_run:
        print(f"not run: {not_run} mutants (a partial run: only the mutants run are counted)")
    for module in failing:
        print(f"below {float(TARGET):.0%}: {module}")
    return 1 if open_survivors or failing else 0


if __name__ == "__main__":
    sys.exit(main())
