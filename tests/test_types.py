"""The sources type-check (pyproject.toml ``[tool.mypy]``, docs/conventions.md §8): mypy over the
apps, strictly over the rules engine and the pure rule modules, and the services' results and
``TableSnapshot`` name their types (no ``Any``)."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVICE_MODULES = (
    *sorted((ROOT / "games" / "services").glob("*.py")),
    *sorted((ROOT / "club" / "services").glob("*.py")),
    ROOT / "competitions" / "services.py",
    ROOT / "accounts" / "services.py",
)
PROJECT_PACKAGES = ("accounts", "club", "competitions", "ddz_site", "games", "site_kit")


def test_mypy_finds_no_error(tmp_path):
    # a fresh cache: CI checks a clean clone, and a cache left by another version of the
    # sources must not hide an error
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "Success: no issues found" in done.stdout


def _strict_modules() -> set[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    strict = [
        o for o in config["tool"]["mypy"]["overrides"] if o.get("disallow_untyped_defs") is True
    ]
    assert len(strict) == 1, "one override holds the strict modules"
    return set(strict[0]["module"])


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def _pure(module: str, imports: set[str]) -> bool:
    """Imports nothing of Django and, of the project, only the rules engine and modules of its
    own package (which must be pure too: the caller checks)."""
    package = module.split(".")[0]
    for name in imports:
        top = name.split(".")[0]
        engine = name == "games.engine" or name.startswith("games.engine.")
        sibling = top == package and name.count(".") == 1
        if (top == "django" or top in PROJECT_PACKAGES) and not (engine or sibling):
            return False
    return True


def test_the_pure_rule_modules_are_checked_strictly():
    """Every module of competitions and club that imports no Django (nor any of their
    Django modules) is in the strict override, and the whole rules engine is."""
    imports = {
        f"{package}.{path.stem}": _imports(path)
        for package in ("competitions", "club")
        for path in (ROOT / package).glob("*.py")
        if path.stem != "__init__"
    }
    pure = {m for m, names in imports.items() if _pure(m, names)}
    # a module importing a sibling that is not pure is not pure either
    while impure := {m for m in pure if any(n in imports and n not in pure for n in imports[m])}:
        pure -= impure
    strict = _strict_modules()
    assert {"games.engine", "games.engine.*"} <= strict
    assert strict - {"games.engine", "games.engine.*"} == pure


def _names(annotation: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(annotation) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(annotation) if isinstance(n, ast.Attribute)
    }


def any_in_results(source: str) -> list[str]:
    """The public functions and methods of ``source`` whose result names ``Any``, and the
    fields of its public classes that do."""
    found = []

    def visit(body: list[ast.stmt], owner: str) -> None:
        for node in body:
            if node.__class__ in (ast.FunctionDef, ast.AsyncFunctionDef):
                public = not node.name.startswith("_")
                if public and node.returns is not None and "Any" in _names(node.returns):
                    found.append(f"{owner}{node.name}() -> {ast.unparse(node.returns)}")
            elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                for item in node.body:
                    if isinstance(item, ast.AnnAssign) and "Any" in _names(item.annotation):
                        found.append(f"{node.name}.{ast.unparse(item.target)}")
                visit(node.body, f"{node.name}.")

    visit(ast.parse(source).body, "")
    return found


def test_the_check_finds_any_in_results_and_fields():
    source = (
        "def a() -> dict[str, Any]: ...\n"
        "def b(x: Any) -> int: ...\n"
        "def _c() -> Any: ...\n"
        "class D:\n"
        "    e: typing.Any\n"
        "    f: int\n"
        "    def g(self) -> list[Any]: ...\n"
    )
    assert any_in_results(source) == ["a() -> dict[str, Any]", "D.e", "D.g() -> list[Any]"]


def test_service_results_name_their_types():
    offences = {
        str(path.relative_to(ROOT)): found
        for path in SERVICE_MODULES
        if (found := any_in_results(path.read_text(encoding="utf-8")))
    }
    assert offences == {}
