"""``{% hand_region ... %}``: the table's hand region (templates/games/table/hand.html) written
by Python. As a template it cost about 0.4 ms a rendering, most of it the template engine's own
work per tag and variable, and a push renders it for every seat whose hand changed; the markup
is the same as the template's was, its words the same messages, translated and escaped once per
process and language (a translation is text: a translator's ``&`` or ``<`` must not break the
page). Its arguments are what the region shows, so the rendering memo keys it by them
(``pure_tag``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django import template
from django.contrib.humanize.templatetags.humanize import intcomma
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, ngettext

from games.screen.render_cache import pure_tag
from games.templatetags.cards import card_row, hand_button_row
from games.templatetags.markup import OOB, escape, in_language

register = template.Library()


@dataclass(frozen=True)
class _Words:
    """A language's fixed words of the region, translated and escaped."""

    secret_title: str
    heading: str
    hand_label: str
    stake: str
    beans: str
    watching: str
    bottom: str
    partner_hand: str


_words: dict[str, _Words] = {}


def _translated_words() -> _Words:
    return _Words(
        secret_title=escape(gettext("Only you know this until it is revealed")),
        heading=escape(gettext("Your hand")),
        hand_label=escape(gettext("Your hand: arrow keys move, space or enter selects")),
        stake=escape(gettext("Your stake")),
        beans=escape(gettext("Your beans")),
        watching=escape(gettext("You are watching this table.")),
        bottom=escape(gettext("Bottom cards")),
        partner_hand=escape(gettext("Your partner's hand")),
    )


def _head(
    words: _Words,
    *,
    hand_cards: Sequence[dict[str, Any]],
    my_role: str | None,
    my_role_badges: list[str],
    my_partner_mode: str,
    my_pending: list[str],
) -> str:
    role_class = "tag role farmer" if my_role == "farmer" else "tag role"
    badges = "".join(f'<span class="{role_class}">{escape(b)}</span>' for b in my_role_badges)
    secret = ""
    if my_partner_mode:
        secret = f'<span class="tag" title="{words.secret_title}">{escape(my_partner_mode)}</span>'
    pending = "".join(f'<span class="tag note">{escape(d)}</span>' for d in my_pending)
    n = len(hand_cards)
    # the plural form is the count's: looked up per rendering, as the template did
    count = escape(ngettext("%(n)s card", "%(n)s cards", n)) % {"n": n}
    return (
        '<div class="hand-head">\n'
        f'<h2 class="visually-hidden">{words.heading}</h2>\n'
        f"{badges}\n{secret}\n{pending}\n"
        f'<span class="muted">{count}</span>\n'
        '<span class="sel-info muted" data-sel-info aria-live="polite"></span>\n'
        "</div>"
    )


def _stake(
    words: _Words, my_stake: dict[str, Any] | None, base_score: Any, coefficient: Any
) -> str:
    if not my_stake:
        return ""
    steps = " · ".join(escape(step) for step in my_stake["steps"])
    return (
        f'<p class="my-stake small"><span class="muted">{words.stake}</span>'
        f" {steps} = <b>{escape(my_stake['units'])}</b>"
        f' <span class="muted">× {escape(base_score)}×{escape(coefficient)}</span></p>'
    )


def _row_lengths(hand_rows: Mapping[str, int]) -> str:
    """The hand's row length for each kind of screen, as the style's --per-row-<key>."""
    return "".join(f" --per-row-{escape(key)}: {escape(n)};" for key, n in hand_rows.items())


def _purse(words: _Words, purse: dict[str, Any] | None) -> str:
    if not purse:
        return ""
    title = ""
    if purse["title"]:
        title = (
            ' <span class="muted">·</span>'
            f' <span class="purse-title">{escape(purse["title"])}</span>'
        )
    return (
        f'<p class="purse" data-purse><span class="muted">{words.beans}</span>'
        f' <b data-beans="{escape(purse["beans"])}">{escape(intcomma(purse["beans"]))}</b>'
        f"{title}</p>"
    )


@register.simple_tag
@pure_tag
def hand_region(
    *,
    oob: bool,
    me: int | None,
    seated: bool,
    in_hand: bool,
    spectator: bool,
    finished: bool,
    hand_cards: Sequence[dict[str, Any]],
    my_role: str | None,
    my_role_badges: list[str],
    my_partner_mode: str,
    my_pending: list[str],
    my_stake: dict[str, Any] | None,
    base_score: Any,
    coefficient: Any,
    hand_rows: Mapping[str, int],
    purse: dict[str, Any] | None,
    own_bottom: list[dict[str, Any]],
    partner_hand: list[dict[str, Any]],
) -> SafeString:
    """The seat's hand (buttons), its role and stake, its beans, and the cards only it is
    shown (a bottom taken face down, a qq5 partner's hand); a spectator's note."""
    words = in_language(_words, _translated_words)
    n = len(hand_cards)
    attrs = OOB if oob else ""
    attrs += f' data-pov="{escape(me or 0)}"'
    if me is not None:
        attrs += f' data-me="{escape(me)}"'
    attrs += f' data-hand-size="{n}"'
    if seated:
        attrs += ' data-seated="1"'
    parts = [f'<div id="table-hand" class="table-hand"{attrs}>']
    if hand_cards:
        parts += [
            _head(
                words,
                hand_cards=hand_cards,
                my_role=my_role,
                my_role_badges=my_role_badges,
                my_partner_mode=my_partner_mode,
                my_pending=my_pending,
            ),
            _stake(words, my_stake, base_score, coefficient),
            f'<div class="hand" style="--n: {n};{_row_lengths(hand_rows)}"'
            f' role="group" aria-label="{words.hand_label}">',
            hand_button_row(hand_cards),
            "</div>",
        ]
    elif in_hand and spectator and not finished:
        parts.append(f'<p class="muted spectating">{words.watching}</p>')
    parts.append(_purse(words, purse))
    if own_bottom:
        parts.append(card_row("own-bottom", words.bottom, own_bottom))
    if partner_hand:
        parts.append(card_row("partner-hand", words.partner_hand, partner_hand))
    parts.append("</div>")
    return mark_safe("\n".join(parts))  # every value in it is escaped
