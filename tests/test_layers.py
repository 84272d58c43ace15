"""Layers point one way, and no module reaches another's private names (README.md "Layout").

The import contracts are pyproject.toml's ``[tool.importlinter]``, checked by import-linter over
every import, those inside functions too: the apps (the site, club, games, accounts, the rules
engine), the subpackages of games, no circle between the modules of a package, and club and
competitions taking of games only its published API (games/api.py) and the engine. And no
module of the apps outside the rules engine grows past 600 lines (one job a module)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("accounts", "club", "competitions", "ddz_site", "games", "site_kit")


def lint_imports(root: Path, *contracts: str) -> subprocess.CompletedProcess[str]:
    lint = Path(sys.executable).with_name("lint-imports")
    chosen = [arg for contract in contracts for arg in ("--contract", contract)]
    return subprocess.run(
        [str(lint), "--no-cache", *chosen], cwd=root, capture_output=True, text=True, timeout=600
    )


def test_the_import_contracts_are_kept():
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


def copy_of_the_sources(target: Path) -> Path:
    """The packages' Python files and pyproject.toml under ``target``: enough for import-linter,
    and free to spoil."""
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            copied = target / path.relative_to(ROOT)
            copied.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, copied)
    shutil.copyfile(ROOT / "pyproject.toml", target / "pyproject.toml")
    return target


@pytest.mark.parametrize(
    ("module", "added", "broken"),
    [
        ("club/views.py", "from games.models import Hand\n", "club.views -> games.models"),
        (
            "competitions/runner.py",
            "\n\ndef deal_later():\n    from games import services\n\n    return services\n",
            "competitions.runner -> games.services",
        ),
    ],
)
def test_the_api_contract_refuses_an_import_of_the_rest_of_games(tmp_path, module, added, broken):
    """club and competitions reach games' models and services only through games.api: an import
    past it, at the top of a module or inside a function, breaks the contract."""
    copy = copy_of_the_sources(tmp_path)
    with (copy / module).open("a", encoding="utf-8") as source:
        source.write(added)
    done = lint_imports(copy, "games-api")
    assert done.returncode != 0, done.stdout[-4000:]
    assert broken in done.stdout


def names_imported_from(module: str, packages: tuple[str, ...]) -> set[str]:
    """The names that the packages' modules take from ``module`` with ``from module import``."""
    names: set[str] = set()
    for package in packages:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module == module:
                    names.update(alias.name for alias in node.names)
    return names


def test_games_api_publishes_what_club_and_competitions_use_and_defines_nothing():
    """games/api.py only re-exports, and every name it publishes has a user: a name nobody
    imports any more leaves the API with its last user."""
    tree = ast.parse((ROOT / "games" / "api.py").read_text(encoding="utf-8"))
    published: list[str] = []
    for statement in tree.body[1:]:  # after the docstring
        if isinstance(statement, ast.Assign):
            assert [target.id for target in statement.targets] == ["__all__"]
            published = ast.literal_eval(statement.value)
        else:
            assert isinstance(statement, ast.ImportFrom), ast.dump(statement)
    assert set(published) == names_imported_from("games.api", ("club", "competitions"))


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


# The push has one owner (docs/conventions.md §4): games/push sends on the channel layer and
# games/live's consumers join and leave its groups; everything else hands games.push values.
# The layer's own implementation (ddz_site/layers.py) is the layer.
CHANNEL_LAYER_OWNERS = ("games/push/", "games/live/", "ddz_site/layers.py")
CHANNEL_LAYER_NAMES = frozenset(
    {"get_channel_layer", "channel_layer", "channels.layers"}
    | {"group_send", "group_send_many", "group_add", "group_discard"}
)


def channel_layer_uses(source: str) -> list[str]:
    """Where ``source`` touches the channel layer: imports it, or names its handle or a group
    operation (``get_channel_layer()``, ``self.channel_layer.group_add(...)``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module in CHANNEL_LAYER_NAMES:
            found.append(f"from {node.module} import ...")
        elif isinstance(node, ast.ImportFrom | ast.Import):
            found += [f"import {a.name}" for a in node.names if a.name in CHANNEL_LAYER_NAMES]
        elif isinstance(node, ast.Attribute) and node.attr in CHANNEL_LAYER_NAMES:
            found.append(f".{node.attr}")
        elif isinstance(node, ast.Name) and node.id in CHANNEL_LAYER_NAMES:
            found.append(node.id)
    return found


def test_the_check_finds_every_way_to_the_channel_layer():
    source = (
        "from channels.layers import get_channel_layer\n"
        "async def f(consumer):\n"
        "    await consumer.channel_layer.group_send('g', {})\n"
        "    await get_channel_layer().group_add('g', 'c')\n"
    )
    assert sorted(channel_layer_uses(source)) == [
        ".channel_layer",
        ".group_add",
        ".group_send",
        "from channels.layers import ...",
        "get_channel_layer",
    ]
    assert channel_layer_uses("from games.push import deliver\ndeliver.announce(b)\n") == []


@pytest.mark.parametrize("package", PACKAGES)
def test_only_games_push_and_live_touch_the_channel_layer(package):
    offences = {
        name: found
        for path in sorted((ROOT / package).rglob("*.py"))
        if not (name := str(path.relative_to(ROOT))).startswith(CHANNEL_LAYER_OWNERS)
        and (found := channel_layer_uses(path.read_text(encoding="utf-8")))
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
