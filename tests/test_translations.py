"""The .po files in locale/ are the catalogue: every string the sources mark for translation
has a translation in zh_Hans, zh_Hant and en, none is fuzzy (gettext skips fuzzy entries when it
compiles), and the catalogue holds nothing the sources no longer use.

The sources' strings come from Django's own ``makemessages`` (the README's command, same
ignore list), run on a copy of the project so that nothing in the working tree is touched: it
writes a template's extraction next to the template and merges into the locale directory.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import override_settings

REPO = Path(__file__).resolve().parents[1]
LOCALES = ("zh_Hans", "zh_Hant", "en")
# What `makemessages` leaves out (README, "Translations"): the pure engine is untranslated.
IGNORE = [".venv/*", "tests/*", "bench/*", "games/engine/*"]
# Not copied: nothing to extract there (or ignored anyway), and some of it is large.
NOT_COPIED = shutil.ignore_patterns(
    ".*", "tests", "bench", "__pycache__", "*.mo", "*.sqlite3", "staticfiles", "screenshots"
)
GETTEXT_CALLS = frozenset(
    {
        "_",
        "gettext",
        "gettext_lazy",
        "gettext_noop",
        "ngettext",
        "ngettext_lazy",
        "pgettext",
        "pgettext_lazy",
        "npgettext",
        "npgettext_lazy",
    }
)

Key = tuple[str | None, str]  # (msgctxt, msgid)


def _unquote(text: str) -> str:
    return ast.literal_eval(text)


def parse_po(path: Path) -> dict[Key, dict]:
    """The live entries of a .po file (obsolete ``#~`` entries and the header left out):
    (msgctxt, msgid) -> {"fuzzy": bool, "msgstr": [each form]}."""
    entries: dict[Key, dict] = {}
    entry: dict = {}
    field = ""

    def close() -> None:
        if entry.get("msgid"):
            forms = [entry[k] for k in sorted(entry) if k.startswith("msgstr")]
            key = (entry.get("msgctxt"), entry["msgid"])
            entries[key] = {"fuzzy": "fuzzy" in entry.get("flags", ()), "msgstr": forms}
        entry.clear()

    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            close()
        elif line.startswith("#,"):
            entry["flags"] = {flag.strip() for flag in line[2:].split(",")}
        elif line.startswith("#"):
            continue
        elif line.startswith('"'):
            entry[field] += _unquote(line)
        else:
            field, _space, value = line.partition(" ")
            entry[field] = _unquote(value)
    close()
    return entries


@pytest.fixture(scope="module")
def extracted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, dict[Key, dict]]]:
    """Each locale's catalogue as makemessages leaves it after merging the sources' strings
    into the committed .po file."""
    if shutil.which("xgettext") is None:
        pytest.fail("gettext is not installed (apt-get install gettext)")
    copy = tmp_path_factory.mktemp("makemessages") / "project"
    shutil.copytree(REPO, copy, ignore=NOT_COPIED)
    with pytest.MonkeyPatch.context() as patch, override_settings(LOCALE_PATHS=[copy / "locale"]):
        patch.chdir(copy)
        call_command(
            "makemessages",
            locale=list(LOCALES),
            no_location=True,
            no_wrap=True,
            ignore_patterns=IGNORE,
            verbosity=0,
        )
    yield {
        locale: parse_po(copy / "locale" / locale / "LC_MESSAGES" / "django.po")
        for locale in LOCALES
    }


def _committed(locale: str) -> dict[Key, dict]:
    return parse_po(REPO / "locale" / locale / "LC_MESSAGES" / "django.po")


def _show(keys) -> str:
    return "\n".join(f"  {msgid!r}" + (f" (context {ctx!r})" if ctx else "") for ctx, msgid in keys)


@pytest.mark.parametrize("locale", LOCALES)
def test_catalogue_holds_every_string_the_sources_use(extracted, locale):
    missing = sorted(set(extracted[locale]) - set(_committed(locale)), key=str)
    assert not missing, (
        f"locale/{locale}: strings the sources use that the catalogue lacks (run makemessages, "
        f"then translate them):\n{_show(missing)}"
    )


@pytest.mark.parametrize("locale", LOCALES)
def test_catalogue_holds_nothing_the_sources_dropped(extracted, locale):
    stale = sorted(set(_committed(locale)) - set(extracted[locale]), key=str)
    assert not stale, (
        f"locale/{locale}: entries no source uses any more (run makemessages):\n{_show(stale)}"
    )


@pytest.mark.parametrize("locale", LOCALES)
def test_every_entry_is_translated_and_none_is_fuzzy(locale):
    entries = _committed(locale)
    assert entries, f"locale/{locale} has no entries"
    untranslated = sorted(
        (key for key, entry in entries.items() if not all(entry["msgstr"]) or entry["fuzzy"]),
        key=str,
    )
    assert not untranslated, (
        f"locale/{locale}: empty or fuzzy translations (write them; drop the fuzzy flag):\n"
        f"{_show(untranslated)}"
    )


@pytest.mark.parametrize("locale", LOCALES)
def test_placeholders_match(locale):
    """msgfmt refuses a translation whose %(name)s placeholders differ from its msgid's."""
    path = REPO / "locale" / locale / "LC_MESSAGES" / "django.po"
    result = subprocess.run(
        ["msgfmt", "--check-format", "--check-domain", "-o", "/dev/null", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr


def _python_sources() -> Iterator[Path]:
    """The .py files makemessages reads (a checkout's .venv is never walked into)."""
    skipped = {pattern.removesuffix("/*") for pattern in IGNORE}
    for folder, subfolders, files in os.walk(REPO):
        relative = Path(folder).relative_to(REPO)
        subfolders[:] = [
            name
            for name in subfolders
            if not name.startswith(".")
            and name != "__pycache__"
            and (relative / name).as_posix() not in skipped
        ]
        yield from (Path(folder) / name for name in files if name.endswith(".py"))


def _called_name(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def test_no_translation_call_inside_an_f_string():
    """xgettext does not look inside f-strings: a string translated there never reaches the
    catalogue and shows in English in every language."""
    found = []
    for path in _python_sources():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.JoinedStr):
                continue
            for inner in ast.walk(node):
                if isinstance(inner, ast.Call) and _called_name(inner) in GETTEXT_CALLS:
                    found.append(f"{path.relative_to(REPO)}:{inner.lineno}")
    assert not found, "translate outside the f-string, then format:\n" + "\n".join(found)
