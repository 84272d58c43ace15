"""The specification and the design live in docs/, and what cites them resolves there: every
"docs/<page>.md §N" in the code, the tests, the templates and the notes names a section of that
page; every path the README and docs/ name exists, and so does every module path a docstring or
a comment of the sources names (``games/table/hooks.py`` or ``games.table.hooks``); nothing
cites the design notes that stayed outside the repository."""

from __future__ import annotations

import ast
import io
import re
import subprocess
import tokenize
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CITATION = re.compile(r"docs/(\w+)\.md((?: §[0-9][0-9a-z.]*(?:[–-]§?[0-9][0-9a-z.]*)?,?)*)")
SECTION = re.compile(r"§([0-9][0-9a-z.]*?)\.?(?=$|[–-])")
HEADING = re.compile(r"^#+ ([0-9][0-9a-z.]*?)\.? ", re.MULTILINE)
PATH = re.compile(
    r"`((?:tests|games|club|competitions|accounts|ddz_site|site_kit|bench|scripts)/[\w/.]+\.py)"
)
# a module path as a docstring or a comment names it, backquoted or not
SOURCE_PATH = re.compile(
    r"(?<![\w/.])((?:tests|games|club|competitions|accounts|ddz_site|site_kit|bench|scripts)/[\w/]+\.py)\b"
)
# a module (or a name in one) as a docstring or a comment names it: games.table.hooks.due_work
DOTTED = re.compile(
    r"(?<![\w./])((?:games|club|competitions|accounts|ddz_site|site_kit)(?:\.\w+)+)"
)
OUTSIDE_NOTES = re.compile(r"\b(?:RULES|STYLE|STACK)\.md\b")


def _tracked(*patterns: str) -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "--", *patterns], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return [ROOT / name for name in listed if (ROOT / name).is_file()]


@cache
def _sections(page: str) -> frozenset[str]:
    return frozenset(HEADING.findall((ROOT / "docs" / f"{page}.md").read_text(encoding="utf-8")))


def _sources() -> list[Path]:
    return _tracked("*.py", "*.html", "*.js", "*.sh", "*.md", ".ci/run")


def test_every_citation_of_a_docs_section_resolves() -> None:
    unresolved = []
    for path in _sources():
        text = path.read_text(encoding="utf-8", errors="replace")
        for page, cited in CITATION.findall(text):
            if not (ROOT / "docs" / f"{page}.md").exists():
                unresolved.append(f"{path.relative_to(ROOT)}: docs/{page}.md")
                continue
            for part in cited.replace(",", " ").split():
                for number in SECTION.findall(part.strip()):
                    if number not in _sections(page):
                        unresolved.append(f"{path.relative_to(ROOT)}: docs/{page}.md §{number}")
    assert unresolved == []


@pytest.mark.parametrize(
    "page",
    [
        "README.md",
        "docs/rules.md",
        "docs/architecture.md",
        "docs/conventions.md",
        "bench/README.md",
    ],
)
def test_every_path_the_notes_name_exists(page: str) -> None:
    text = (ROOT / page).read_text(encoding="utf-8")
    missing = sorted({p for p in PATH.findall(text) if not (ROOT / p).exists()})
    assert missing == []


def test_every_module_path_the_sources_name_exists() -> None:
    """A docstring that sends the reader to a file that was moved or split sends him nowhere."""
    missing = sorted(
        f"{path.relative_to(ROOT)}: {named}"
        for path in _sources()
        for named in set(SOURCE_PATH.findall(path.read_text(encoding="utf-8", errors="replace")))
        if not (ROOT / named).exists()
    )
    assert missing == []


def _prose(source: str) -> list[str]:
    """The docstrings and the comments of a Python source."""
    found = [
        doc
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and (doc := ast.get_docstring(node, clean=False))
    ]
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return found + [token.string for token in tokens if token.type == tokenize.COMMENT]


def resolves(dotted: str, root: Path = ROOT) -> bool:
    """Whether ``dotted`` names a package or module under ``root``, or a name one of them
    mentions (its first part that is no module must appear in the last module's source)."""
    first, *rest = dotted.split(".")
    here = root / first
    for part in rest:
        if (here / part).is_dir():
            here = here / part
        elif (here / f"{part}.py").is_file():
            here = here / f"{part}.py"
        else:
            module = here / "__init__.py" if here.is_dir() else here
            source = module.read_text(encoding="utf-8") if module.is_file() else ""
            return re.search(rf"\b{re.escape(part)}\b", source) is not None
    return True


def test_every_module_the_python_prose_names_exists() -> None:
    """A docstring or a comment that names a module (``games.table.hooks``, or a name in it:
    ``club.services.outcomes.hand_finished_record``) that was moved or renamed misleads. The
    benchmarks are left out: they name older trees' modules on purpose, to compare with them."""
    stale = sorted(
        f"{path.relative_to(ROOT)}: {named}"
        for path in _tracked("*.py")
        if ROOT / "bench" not in path.parents
        for text in _prose(path.read_text(encoding="utf-8"))
        for named in set(DOTTED.findall(text))
        if not resolves(named)
    )
    assert stale == []


def test_the_prose_check_sees_a_stale_module(tmp_path: Path) -> None:
    (tmp_path / "games" / "table").mkdir(parents=True)
    (tmp_path / "games" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "games" / "table" / "hooks.py").write_text("due_work = None\n", encoding="utf-8")
    assert resolves("games.table.hooks.due_work", tmp_path)
    assert resolves("games.table", tmp_path)
    assert not resolves("games.hooks", tmp_path)
    assert not resolves("games.table.hooks.gone", tmp_path)
    source = '"""See games.hooks."""\n\nx = "games.Table"  # games.table.life decides\n'
    assert {d for text in _prose(source) for d in DOTTED.findall(text)} == {
        "games.hooks",
        "games.table.life",
    }


def test_nothing_cites_the_notes_outside_the_repository() -> None:
    citing = [
        str(path.relative_to(ROOT))
        for path in _sources()
        if ROOT / "docs" not in path.parents
        and OUTSIDE_NOTES.search(path.read_text(encoding="utf-8", errors="replace"))
    ]
    assert citing == []


def test_the_checks_see_a_bad_citation() -> None:
    """The patterns find what they are meant to: a guard against a vacuous pass."""
    assert CITATION.findall("see docs/rules.md §3.6, §7.4b and docs/conventions.md §9") == [
        ("rules", " §3.6, §7.4b"),
        ("conventions", " §9"),
    ]
    assert "7.4b" in _sections("rules") and "99" not in _sections("rules")
    # Spelled in two pieces so that this file does not cite the notes it guards against.
    assert OUTSIDE_NOTES.search("as " + "RULES" + ".md says")
