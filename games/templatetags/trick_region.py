"""``{% trick_region ... %}``: the table's trick region (templates/games/table/trick.html)
written by Python: the play on top, or what the table waits for, and the trick's plays for
screen readers. Every push renders it anew (a move changes it), and as a template most of its
cost was the template engine's own work. The markup is the same as the template's was, its
words the same messages, written as ``{% translate %}`` writes them: unescaped (our own text).
"""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from games.screen.render_cache import pure_tag
from games.templatetags.cards import cards

register = template.Library()


def _top(top: dict[str, Any]) -> str:
    css = "top-play bomb" if top["bomb"] else "top-play"
    effect = f' data-effect="{escape(top["effect"])}"' if top["effect"] else ""
    return (
        f'<div class="{css}"{effect}>\n'
        f'<div class="top-cards">{cards(top["cards"], "sm")}</div>\n'
        f'<p class="top-who"><b>{escape(top["name"])}</b> · {escape(top["kind"])}</p>\n'
        "</div>"
    )


def _waiting(phase_label: str, waiting_names: list[str]) -> str:
    line = escape(phase_label)
    if waiting_names:
        names = ", ".join(escape(name) for name in waiting_names)
        line += " · " + gettext("waiting for %(names)s") % {"names": names}
    return f'<p class="trick-empty muted">{line}</p>'


def _log(trick: list[dict[str, Any]]) -> str:
    entries = []
    for t in trick:
        if t["passed"]:
            played = gettext("Pass")
        else:
            played = ", ".join(escape(c["label"]) for c in t["cards"])
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
    attrs = ' hx-swap-oob="true"' if oob else ""
    parts = [f'<div id="table-trick" class="table-trick"{attrs} aria-live="polite">']
    if top:
        parts.append(_top(top))
    elif in_hand and phase == "play":
        new_trick = gettext("New trick")
        parts.append(f'<p class="trick-empty muted">{new_trick}</p>')
    elif in_hand and not finished:
        parts.append(_waiting(phase_label, waiting_names))
    elif not in_hand:
        no_hand = gettext("No hand in progress")
        parts.append(f'<p class="trick-empty muted">{no_hand}</p>')
    if trick:
        parts.append(_log(trick))
    parts.append("</div>")
    return mark_safe("\n".join(parts))  # every value in it is escaped
