"""Which language a rendering speaks (issue #19): its visible text (text nodes and the
attributes a reader meets: aria-label, title, placeholder, alt) holds nothing of another
language. On an English page no Chinese character; on a Simplified page no character only the
Traditional catalog uses, and the other way round; on a Chinese page no English phrase of the
catalog that has a translation. Notices are left out: by design each carries every language
(games/screen/notices.py)."""

from __future__ import annotations

import html
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "locale"
HAN = re.compile(r"[\u3400-\u9fff]")
ENTRY = re.compile(r'^msgid "((?:[^"\\]|\\.)+)"\nmsgstr "((?:[^"\\]|\\.)*)"$', re.MULTILINE)


@cache
def _catalog(locale: str) -> dict[str, str]:
    text = (LOCALE / locale / "LC_MESSAGES" / "django.po").read_text(encoding="utf-8")
    return {m.group(1): m.group(2) for m in ENTRY.finditer(text)}


@cache
def _only_in(locale: str, other: str) -> frozenset[str]:
    """Chinese characters of ``locale``'s translations that ``other``'s never use."""
    mine = set(HAN.findall("".join(_catalog(locale).values())))
    theirs = set(HAN.findall("".join(_catalog(other).values())))
    return frozenset(mine - theirs)


@cache
def _english_phrases() -> tuple[str, ...]:
    """Catalog msgids of two words or more that the Chinese catalogs translate."""
    hans = _catalog("zh_Hans")
    return tuple(
        msgid
        for msgid, text in hans.items()
        if text and text != msgid and " " in msgid and not re.search(r"[%{\\]", msgid)
    )


def visible_text(page: str) -> str:
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    page = re.sub(r'<p class="notice-toast.*?</p>', " ", page, flags=re.S)
    # the language picker names each language in its own words
    page = re.sub(r'<form class="lang".*?</form>', " ", page, flags=re.S)
    attrs = re.findall(r'\b(?:aria-label|title|placeholder|alt)="([^"]*)"', page)
    text = re.sub(r"<[^>]+>", "\n", page)
    return html.unescape("\n".join([text, *attrs]))


def foreign(page: str, language: str) -> list[str]:
    """What of ``page`` belongs to another language than ``language``."""
    text = visible_text(page)
    if language == "en":
        return sorted({line.strip() for line in text.splitlines() if HAN.search(line)})
    mine, other = ("zh_Hans", "zh_Hant") if language == "zh-hans" else ("zh_Hant", "zh_Hans")
    out = sorted(set(HAN.findall(text)) & _only_in(other, mine))
    flat = " ".join(text.split())
    out += [p for p in _english_phrases() if re.search(rf"(?<![\w-]){re.escape(p)}(?![\w-])", flat)]
    return out
