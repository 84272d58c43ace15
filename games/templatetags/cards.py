"""``{% card face "xs" %}``, ``{% cards faces "xs" %}`` and ``{% counter_rows counter %}``:
card faces and the 记牌器's cells written by Python rather than by a partial; and the rows of
them the hand region joins (games/templatetags/hand_region.py: ``hand_button_row``,
``card_row``).

As a partial, each face of a push's last plays, trick and bottom cost 40 µs to look up in the
rendering memo (85 µs to render), and a seat's hand, a template loop over its 24 cards, took
0.57 ms to render; 0.28 ms now (bench/README.md, "Seventh round"). A face's markup is the
least the table's CSS needs (``_inside``): 100 bytes for a small face, where the partial's
was 230. Each face's HTML, and each hand button's, is made once per process (per
card, label, so language, and size or place) and a row of them is joined from those snippets:
no template loop runs per card. The controls and status regions, written by Python the same way
(controls_html.py, status_html.py), take their card faces from ``card`` and ``cards``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe

from games.screen.render_cache import pure_tag
from games.templatetags.markup import escape

register = template.Library()

_faces: dict[tuple[str, str, str], str] = {}
_buttons: dict[tuple[str, str, str, bool], str] = {}
_NONE = ' class="none"'


def _classes(face: dict[str, Any]) -> str:
    out = ""
    if face["red"]:
        out += " red"
    if face["joker"]:
        out += " joker big" if face["big"] else " joker"
    return out


def _inside(face: dict[str, Any], size: str = "") -> str:
    # The corner index (rank over suit) and the centre pip, as four short custom elements
    # (table.css styles them by name). A face is an image and a hand card a button, whose
    # children screen readers skip (their label says it all), so they carry no attributes; a
    # push's bytes are mostly card faces. A small face shows no centre pip, a small joker no
    # index: those are not sent.
    index = f"<pc-i><pc-r>{escape(face['rank'])}</pc-r><pc-s>{escape(face['suit'])}</pc-s></pc-i>"
    centre = f"<pc-c>{'★' if face['joker'] else escape(face['suit'])}</pc-c>"
    if size == "xs":
        return centre if face["joker"] else index
    return index + centre


def _face(face: dict[str, Any], size: str) -> str:
    key = (face["code"], str(face["label"]), size)
    html = _faces.get(key)
    if html is None:
        label = escape(face["label"])
        sized = f" pc-{escape(size)}" if size else ""
        html = _faces[key] = (
            f'<span data-c="{escape(face["code"])}" class="pc{sized}{_classes(face)}" '
            f'aria-label="{label}" role="img">{_inside(face, size)}</span>'
        )
    return html


@register.simple_tag
@pure_tag
def card(face: dict[str, Any], size: str = "") -> SafeString:
    """One card face (rendering.card_face); ``size``: "" | "sm" | "xs"."""
    return mark_safe(_face(face, size))  # every value in it is escaped


@register.simple_tag
@pure_tag
def cards(faces: list[dict[str, Any]], size: str = "") -> SafeString:
    """A row of card faces, one after the other (as ``card`` for each)."""
    return mark_safe("".join([_face(face, size) for face in faces]))  # each escaped


def _button(face: dict[str, Any], *, first: bool) -> str:
    key = (face["code"], face["key"], str(face["label"]), first)
    html = _buttons.get(key)
    if html is None:
        html = _buttons[key] = (
            f'<button type="button" class="pc hc{_classes(face)}" '
            f'data-card="{escape(face["code"])}" data-key="{escape(face["key"])}" '
            f'aria-pressed="false" aria-label="{escape(face["label"])}" '
            f'tabindex="{0 if first else -1}">{_inside(face)}</button>'
        )
    return html


def hand_button_row(cards: Sequence[dict[str, Any]]) -> str:
    """The viewer's hand as one button per card (``key`` tells two equal cards apart); the
    first takes the keyboard focus. Whether it may be played now is the controls' to say
    (their ``data-can-play``): the hand stays as it is when only the turn moves."""
    return "".join([_button(face, first=i == 0) for i, face in enumerate(cards)])  # escaped


def card_row(css_class: str, label: str, faces: list[dict[str, Any]]) -> str:
    """A labelled row of small cards (the hand region's bottom and partner's hand); ``label``:
    its translated words, escaped already (the hand region escapes them once per language).
    The row carries its count (``--n``): a phone overlaps a long row's cards to fit its width."""
    return (
        f'<div class="{escape(css_class)}">\n<span class="muted">{label}</span>\n'
        f'<span class="mini-row" style="--n: {len(faces):d}">{cards(faces, "xs")}</span>\n</div>'
    )


@register.simple_tag
@pure_tag
def counter_rows(counter: list[dict[str, Any]]) -> SafeString:
    """The 记牌器's two rows (labels.counter_columns): each rank, then the copies still unseen
    (a rank with none left marked ``none``). Two template loops over its 15 ranks cost more than
    the rest of the region, which changes with nearly every play."""
    ranks = _rank_row(tuple(c["rank"] for c in counter))
    # a count is an integer (``:d`` refuses anything else): nothing in it to escape
    left = "".join([f"<td{'' if c['left'] else _NONE}>{c['left']:d}</td>" for c in counter])
    return mark_safe(f"<tr>{ranks}</tr>\n    <tr>{left}</tr>")  # every value in it is escaped


@lru_cache(maxsize=16)
def _rank_row(ranks: tuple[str, ...]) -> str:
    # the same 15 labels in every counter of a language: escaped and joined once
    return "".join([f'<th scope="col">{escape(rank)}</th>' for rank in ranks])
