"""``{% card face "xs" %}`` and ``{% hand_buttons cards can_play %}``: card faces written by
Python rather than by a partial.

As a partial, each face of a push's last plays, trick and bottom cost 40 µs to look up in the
rendering memo (85 µs to render), and a seat's hand, a template loop over its 24 cards, took
0.57 ms to render; 0.28 ms now (bench/README.md, "Seventh round"). The markup is the same as
the partial's was; a face's HTML is kept per card, label (so, language) and size.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from games.screen.render_cache import pure_tag

register = template.Library()

_faces: dict[tuple[str, str, str], str] = {}


def _classes(face: dict[str, Any]) -> str:
    out = ""
    if face["red"]:
        out += " red"
    if face["joker"]:
        out += " joker big" if face["big"] else " joker"
    return out


def _inside(face: dict[str, Any]) -> str:
    # the corner index and the centre pip, hidden from screen readers (the label says it all)
    centre = "★" if face["joker"] else escape(face["suit"])
    return (
        f'<span class="pc-i" aria-hidden="true"><span class="pc-r">{escape(face["rank"])}</span>'
        f'<span class="pc-s">{escape(face["suit"])}</span></span>'
        f'<span class="pc-c" aria-hidden="true">{centre}</span>'
    )


@register.simple_tag
@pure_tag
def card(face: dict[str, Any], size: str = "") -> SafeString:
    """One card face (rendering.card_face); ``size``: "" | "sm" | "xs"."""
    key = (face["code"], str(face["label"]), size)
    html = _faces.get(key)
    if html is None:
        label = escape(face["label"])
        sized = f" pc-{escape(size)}" if size else ""
        html = _faces[key] = (
            f'<span data-c="{escape(face["code"])}" class="pc{sized}{_classes(face)}" '
            f'title="{label}" aria-label="{label}" role="img">{_inside(face)}</span>'
        )
    return mark_safe(html)  # every value above is escaped


@register.simple_tag
@pure_tag
def hand_buttons(cards: list[dict[str, Any]], selectable: bool) -> SafeString:
    """The viewer's hand as one button per card (``key`` tells two equal cards apart); the
    first takes the keyboard focus, and a hand that may not play now is locked."""
    locked = "" if selectable else ' data-locked="1"'
    buttons = [
        f'<button type="button" class="pc hc{_classes(face)}" data-card="{escape(face["code"])}" '
        f'data-key="{escape(face["key"])}" aria-pressed="false" '
        f'aria-label="{escape(face["label"])}" tabindex="{0 if i == 0 else -1}"{locked}>'
        f"{_inside(face)}</button>"
        for i, face in enumerate(cards)
    ]
    return mark_safe("".join(buttons))  # every value above is escaped
