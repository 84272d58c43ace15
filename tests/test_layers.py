"""Layers point one way, and no module reaches another's private names (README.md "Layout").

The import contracts are pyproject.toml's ``[tool.importlinter]``, checked by import-linter over
every import, those inside functions too: the apps (the site, club, games, accounts, the rules
engine), the subpackages of games, and no circle between the modules of a package. And no
module of the apps outside the rules engine grows past 600 lines (one job a module)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("accounts", "club", "competitions", "ddz_site", "games")


def test_the_import_contracts_are_kept():
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run(
        [str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


# Django's documented model options API (``Model._meta``) only looks private
PUBLIC_ALTHOUGH_UNDERSCORED = frozenset({"_meta"})


def _private(name: str) -> bool:
    dunder = name.startswith("__") and name.endswith("__")
    return name.startswith("_") and not dunder and name not in PUBLIC_ALTHOUGH_UNDERSCORED


def private_reaches(source: str) -> list[str]:
    """The private names ``source`` takes from other modules: imported by name
    (``from m import _x``), or read off an imported module (``m._x``)."""
    tree = ast.parse(source)
    modules: set[str] = set()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            for alias in node.names:
                if _private(alias.name):
                    found.append(f"from {node.module} import {alias.name}")
                modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                modules.add(alias.asname or alias.name.split(".")[0])
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and _private(node.attr)
        ):
            found.append(f"{node.value.id}.{node.attr}")
    return found


def test_the_check_finds_both_ways_of_reaching_a_private_name():
    source = "from games.push import send\nfrom x import _y\n\nsend._queues.clear()\n"
    assert private_reaches(source) == ["from x import _y", "send._queues"]
    assert private_reaches("import os\n\nos.__name__\nself._z = 1\n") == []


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_reaches_another_modules_private_names(package):
    offences = {
        str(path.relative_to(ROOT)): found
        for path in sorted((ROOT / package).rglob("*.py"))
        if "migrations" not in path.parts
        and (found := private_reaches(path.read_text(encoding="utf-8")))
    }
    assert offences == {}


# A module longer than this does several jobs: split it by job (issue #37). The rules engine is
# the one exception, a pure library whose modules follow docs/rules.md's sections.
MOST_LINES = 600


def long_modules(root: Path, packages: tuple[str, ...]) -> dict[str, int]:
    """The modules of ``packages`` under ``root`` with more than MOST_LINES lines, outside
    games/engine and the migrations."""
    engine = root / "games" / "engine"
    return {
        str(path.relative_to(root)): lines
        for package in packages
        for path in sorted((root / package).rglob("*.py"))
        if "migrations" not in path.parts
        and engine not in path.parents
        and (lines := len(path.read_text(encoding="utf-8").splitlines())) > MOST_LINES
    }


def test_no_module_outside_the_engine_is_over_600_lines():
    assert long_modules(ROOT, PACKAGES) == {}


def test_the_length_check_sees_a_long_module_and_spares_the_engine(tmp_path):
    # (the paths in parts: tests/test_docs.py would take a whole path for a citation)
    for parts in (
        ("games", "big.py"),
        ("games", "engine", "big.py"),
        ("games", "migrations", "0001_big.py"),
    ):
        path = tmp_path.joinpath(*parts)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n" * (MOST_LINES + 1), encoding="utf-8")
    tmp_path.joinpath("games", "short.py").write_text("x = 1\n" * MOST_LINES, encoding="utf-8")
    big = str(Path("games", "big.py"))
    assert long_modules(tmp_path, ("games",)) == {big: MOST_LINES + 1}
