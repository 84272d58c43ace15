"""``{% status_region ... %}``: the status region (templates/games/table/status.html) written by
Python rather than by the template language.

Every push renders the status once per language, and never from the rendering memo (it reads the
clock): as a template it cost about 0.2 ms a rendering, mostly the template language's own work
(issue #37). The markup is the one the template wrote, as ``render_cache.squeezed`` leaves it.
Its fixed phrases are translated and escaped once per process and language (a translation is
text: a translator's ``&`` or ``<`` must not break the page), and every value is escaped; a
phrase with a placeholder stays an escaped message, its escaped value put in.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from games.screen.render_cache import pure_tag
from games.templatetags.cards import card, cards
from games.templatetags.markup import OOB, escape, in_language

register = template.Library()

# language -> the region's fixed phrases, escaped
_phrases: dict[str, dict[str, str]] = {}


def _fixed_phrases() -> dict[str, str]:
    return {
        "hand": escape(_("Hand %(n)s")),
        "bid": escape(_("bid %(n)s")),
        "multiplier": escape(_("Current multiplier")),
        "stake_title": escape(_("Base score × room coefficient")),
        "stake": '<span class="muted">' + escape(_("Stake")) + "</span>",
        # the clock's end: its label and its unit (xgettext reads no call inside an f-string)
        "clock": 'role="timer" aria-label="'
        + escape(_("Time left"))
        + '"><span class="clock-n">--</span><span class="muted">'
        + escape(pgettext("seconds", "s"))
        + "</span></span>",
        "face_up": escape(_("Face-up card")),
        "looking_for": escape(_("Looking for")),
        "called": escape(_("Called card")),
        "grabs": escape(_("Grabs")),
        "bottom": escape(_("Bottom cards")),
        "ready": escape(_("Everyone is seated: ready to deal")),
        "waiting": escape(_("Waiting for players")),
    }


def _muted(text: str) -> str:
    return f'<span class="muted">{text}</span>'


def _cards_row(status: dict[str, Any], words: dict[str, str]) -> list[str]:
    """The face-up card, the called card, the partner mode, the grabs and the bottom: one
    line each, those the hand has."""
    lines = []
    face_up = status["face_up"]
    if face_up:
        lines.append(
            f'<span class="st-item">{_muted(words["face_up"])} {card(face_up["card"], "xs")} '
            f"{_muted(escape(face_up['name']))}</span>"
        )
    marked = status["marked"]
    # the called card, unless it is the face-up card shown already
    if marked and marked["code"] != (face_up["card"]["code"] if face_up else None):
        word = words["looking_for"] if status["partner_mode_label"] else words["called"]
        lines.append(f'<span class="st-item">{_muted(word)} {card(marked, "xs")}</span>')
    if status["partner_mode_label"]:
        lines.append(f'<span class="st-item badge">{escape(status["partner_mode_label"])}</span>')
    if status["grab_count"]:
        grabs = escape(status["grab_count"])
        lines.append(f'<span class="st-item">{_muted(words["grabs"])} <b>{grabs}</b></span>')
    if status["bottom"]:
        lines.append(
            f'<span class="st-item">{_muted(words["bottom"])} '
            f'<span class="mini-row">{cards(status["bottom"], "xs")}</span></span>'
        )
    return lines


def _hand_rows(
    status: dict[str, Any], hand_number: Any, words: dict[str, str], clock: str
) -> list[str]:
    """The rows of a hand: its phase, multiplier, stake and clock, then its cards of note."""
    number = ""
    if hand_number:
        number = _muted(words["hand"] % {"n": escape(hand_number)} + " ·") + " "
    multiplier = escape(status["multiplier"])
    stake = f"{escape(status['base_score'])}×{escape(status['coefficient'])}"
    bid = ""
    if status["bid"]:
        bid = " " + _muted("·") + " " + words["bid"] % {"n": escape(status["bid"])}
    lines = [
        '<div class="st-row">',
        f'<span class="st-phase">{number}{escape(status["phase_label"])}</span>',
        f'<span class="st-mult" title="{words["multiplier"]}">'
        f"{_muted(escape(status['multiplier_label']))} "
        f"<b>{'×' if status['multiplies'] else ''}{multiplier}</b></span>",
        f'<span class="st-stake" title="{words["stake_title"]}">{words["stake"]} '
        f"<b>{stake}</b>{bid}</span>",
        clock,
        "</div>",
    ]
    cards_row = _cards_row(status, words)
    if cards_row:
        lines.extend(['<div class="st-row st-cards">', *cards_row, "</div>"])
    return lines


@register.simple_tag
@pure_tag
def status_region(
    *,
    oob: Any,
    table_version: Any,
    in_hand: Any,
    finished: Any,
    version: Any,
    status: Any,
    hand_number: Any,
    all_seated: Any,
    base_score: Any,
    coefficient: Any,
) -> SafeString:
    """The status region: a hand's phase, stakes, clock and cards of note (``status``, from
    context.py), or between hands whether it can be dealt and the room's stake (``base_score``,
    ``coefficient``)."""
    words = in_language(_phrases, _fixed_phrases)
    # the clock inside is no region of its own here (htmx would swap it out of the status)
    clock = clock_region(
        oob=False,
        table_version=table_version,
        in_hand=in_hand,
        finished=finished,
        version=version,
        status=status,
    )
    lines = [f'<div id="table-status" class="table-status"{OOB if oob else ""}>']
    if status:
        lines.extend(_hand_rows(status, hand_number, words, clock))
    else:
        phase = words["ready"] if all_seated else words["waiting"]
        lines.append(f'<div class="st-row"><span class="st-phase">{phase}</span>')
        lines.append(
            f'<span class="st-stake">{words["stake"]} '
            f"<b>{escape(base_score)}×{escape(coefficient)}</b></span>{clock}</div>"
        )
    lines.append("</div>")
    return mark_safe("\n".join(lines))  # every value in it is escaped


@register.simple_tag
@pure_tag
def clock_region(
    *, oob: Any, table_version: Any, in_hand: Any, finished: Any, version: Any, status: Any
) -> SafeString:
    """The clock inside the status region: the versions a move names, the server's time the
    page's countdowns are set by, and the step's countdown (hidden while there is none). Sent
    alone (clock.html, ``oob``) by a move's push whose status shows nothing else new
    (games.screen.regions.render_push)."""
    words = in_language(_phrases, _fixed_phrases)
    head = '<span id="table-clock"'
    if oob:
        head += OOB
    head += f' data-table-version="{escape(table_version or 0)}"'
    if in_hand and not finished:
        head += f' data-version="{escape(version)}"'
    if status and status["now"]:
        head += f' data-now="{escape(status["now"])}"'
    if not (status and status["deadline"]):
        return mark_safe(head + " hidden></span>")  # every value in it is escaped
    return mark_safe(  # every value in it is escaped
        f'{head} class="st-clock" data-deadline="{escape(status["deadline"])}" '
        f'data-seconds="{escape(status["seconds"] or "")}" {words["clock"]}'
    )
