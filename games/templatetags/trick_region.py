"""``{% trick_region ... %}``: the table's trick region (templates/games/table/trick.html)
written by Python: the play on top, or what the table waits for, and the trick's plays for
screen readers. Every push renders it anew (a move changes it), and as a template most of its
cost was the template engine's own work. The markup is the same as the template's was, its
words the same messages, translated and escaped once per process and language (a translation is
text: a translator's ``&`` or ``<`` must not break the page).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from games.screen.render_cache import pure_tag
from games.templatetags.cards import cards
from games.templatetags.markup import OOB, escape, in_language

register = template.Library()


@dataclass(frozen=True)
class _Words:
    """A language's fixed words of the region, translated and escaped; ``waiting_for`` stays a
    message, its escaped names put in."""

    waiting_for: str
    passed: str
    new_trick: str
    no_hand: str


_words: dict[str, _Words] = {}


def _translated_words() -> _Words:
    new_trick = escape(gettext("New trick"))
    no_hand = escape(gettext("No hand in progress"))
    return _Words(
        waiting_for=escape(gettext("waiting for %(names)s")),
        passed=escape(gettext("Pass")),
        new_trick=f'<p class="trick-empty muted">{new_trick}</p>',
        no_hand=f'<p class="trick-empty muted">{no_hand}</p>',
    )


def _top(top: dict[str, Any]) -> str:
    css = "top-play bomb" if top["bomb"] else "top-play"
    effect = f' data-effect="{escape(top["effect"])}"' if top["effect"] else ""
    return (
        f'<div class="{css}"{effect}>\n'
        f'<div class="top-cards">{cards(top["cards"], "sm")}</div>\n'
        f'<p class="top-who"><b>{escape(top["name"])}</b> · {escape(top["kind"])}</p>\n'
        "</div>"
    )


def _waiting(words: _Words, phase_label: str, waiting_names: list[str]) -> str:
    line = escape(phase_label)
    if waiting_names:
        names = ", ".join(escape(name) for name in waiting_names)
        line += " · " + words.waiting_for % {"names": names}
    return f'<p class="trick-empty muted">{line}</p>'


def _log(words: _Words, trick: list[dict[str, Any]]) -> str:
    entries = []
    for t in trick:
        played = words.passed if t["passed"] else ", ".join(escape(c["label"]) for c in t["cards"])
        entries.append(f"<li>{escape(t['name'])}: {played}</li>")
    return f'<ol class="trick-log visually-hidden">\n{"".join(entries)}\n</ol>'


@register.simple_tag
@pure_tag
def trick_region(
    *,
    oob: bool,
    top: dict[str, Any] | None,
    trick: list[dict[str, Any]],
    in_hand: bool,
    finished: bool,
    phase: str | None,
    phase_label: str,
    waiting_names: list[str],
) -> SafeString:
    words = in_language(_words, _translated_words)
    attrs = OOB if oob else ""
    parts = [f'<div id="table-trick" class="table-trick"{attrs} aria-live="polite">']
    if top:
        parts.append(_top(top))
    elif in_hand and phase == "play":
        parts.append(words.new_trick)
    elif in_hand and not finished:
        parts.append(_waiting(words, phase_label, waiting_names))
    elif not in_hand:
        parts.append(words.no_hand)
    if trick:
        parts.append(_log(words, trick))
    parts.append("</div>")
    return mark_safe("\n".join(parts))  # every value in it is escaped
