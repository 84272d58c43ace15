"""``{% controls_region ... %}``: the controls region (templates/games/table/controls.html) written
by Python rather than by the template language.

A push renders the controls of every audience: as a template they cost about 0.31 ms a rendering,
mostly the template language's own work (issue #37). The markup is the one the template wrote,
as ``render_cache.squeezed`` leaves it: one line break wherever the template had white space
holding one. The tag is given each context value the region reads, and nothing else, so the
rendering memo keys it by those (``pure_tag``). Its fixed phrases are translated and escaped once
per process and language (a translation is text: a translator's ``&`` or ``<`` must not break the
page), and every value is escaped.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from games.screen.render_cache import pure_tag
from games.templatetags.cards import card
from games.templatetags.markup import OOB, csrf_input, escape, in_language, table_url

register = template.Library()

_ACT = '<input type="hidden" name="intent" value="act"><input type="hidden" name="act" value="{}">'
_CHOICE = (
    '<form ws-send class="inline">\n' + _ACT.replace("{}", "{act}") + '<input type="hidden" '
    'name="value" value="{value}">\n{button}\n</form>'
)
# language -> the region's fixed phrases, escaped, and the markup made of them alone
_phrases: dict[str, dict[str, str]] = {}


def _pass_form(style: str, disabled: str) -> str:
    return (
        '<form ws-send class="inline" id="pass-form">\n' + _ACT.format("pass") + "\n"
        f'<button type="submit" class="btn {style}"{disabled}>'
        + escape(_("Pass"))
        + "</button>\n</form>"
    )


def _play_row(*, can_pass: bool) -> str:
    return (
        '<div class="ctl-row play-row">\n'
        + _pass_form("secondary", "" if can_pass else " disabled")
        + '\n<button type="button" class="btn ghost" id="hint-btn" aria-keyshortcuts="h">'
        + escape(_("Hint"))
        + '</button>\n<form ws-send class="inline" id="play-form">\n'
        + _ACT.format("play")
        + '<input type="hidden" name="cards" value="" id="play-cards">\n'
        '<button type="submit" class="btn primary" id="play-btn" disabled>'
        + escape(_("Play"))
        + "</button>\n</form>\n</div>"
    )


def _fixed_markup() -> dict[str, str]:
    autoplay = (
        '<div class="ctl-row small-row">\n<form ws-send class="inline">\n'
        '<input type="hidden" name="intent" value="autoplay"><input type="hidden" name="value" '
        'value="{value}">\n{button}\n</form>'
    )
    return {
        "your_turn": '<p class="visually-hidden" role="status">' + escape(_("Your turn")) + "</p>",
        "cant_beat": (
            '<div class="ctl-row play-row cant-beat">\n<p class="ctl-prompt" id="cant-beat" '
            'role="status">'
            + escape(_("Can't beat"))
            + "</p>\n"
            + _pass_form("primary", "")
            + "\n</div>"
        ),
        "lead": '<p class="ctl-prompt">' + escape(_("Your lead: play any combination")) + "</p>",
        "play_row": _play_row(can_pass=True),
        "play_row_no_pass": _play_row(can_pass=False),
        "call": '<p class="ctl-prompt">'
        + escape(_("Call a card: its other copy's holder becomes your partner"))
        + "</p>",
        "grab": '<p class="ctl-prompt">'
        + escape(_("Grab the landlord with a pair or triple of the face-up rank or of jokers"))
        + "</p>",
        "wait": '<p class="ctl-wait muted">' + escape(_("Waiting for the others")) + "</p>",
        "autoplay_on": autoplay.format(
            value="false",
            button='<button type="submit" class="btn primary">'
            + escape(_("Take back control"))
            + "</button>",
        ),
        "autoplay_off": autoplay.format(
            value="true",
            button='<button type="submit" class="btn ghost sm">'
            + escape(_("Auto-play"))
            + "</button>",
        ),
        "leave_confirm": escape(
            _("Leave after this hand? Your seat is auto-played until the hand ends.")
        ),
        "leave": escape(_("Leave")),
        "next_hand": escape(_("Next hand")),
        "deal": escape(_("Deal")),
        "fill": escape(_("Fill with bots")),
        "sit": escape(_("Take a seat")),
        "watching": '<p class="muted">' + escape(_("You are watching this table.")) + "</p>",
    }


def _post_form(url_name: str, table_id: Any, inside: str, *, extra: str = "") -> str:
    url = table_url(url_name, table_id)
    return (
        f'<form class="inline" method="post" action="{url}" hx-post="{url}"{extra}>{inside}</form>'
    )


def _choice(choice: dict[str, Any]) -> str:
    label = escape(choice["label"])
    if choice["style"] == "card":
        button = (
            f'<button type="submit" class="pick" aria-label="{label}" title="{label}">'
            f"{card(choice['card'], 'sm')}</button>"
        )
    else:
        button = f'<button type="submit" class="btn {escape(choice["style"])}">{label}</button>'
    return _CHOICE.format(act=escape(choice["act"]), value=escape(choice["value"]), button=button)


@register.simple_tag
@pure_tag
def controls_region(
    *,
    oob: Any,
    my_turn: Any,
    move_version: Any,
    hints_json: Any,
    can_play: Any,
    can_pass: Any,
    cant_beat: Any,
    in_hand: Any,
    finished: Any,
    leading: Any,
    choices: Any,
    phase: Any,
    phase_label: Any,
    seated: Any,
    autoplay_on: Any,
    table_id: Any,
    csrf_token: Any,
    all_seated: Any,
    hand_id: Any,
    free_seats: Any,
) -> SafeString:
    """The controls region: in a hand, the seat's moves (its turn's play row, or its choice
    buttons) and its auto-play and leave buttons; between hands, deal, fill, leave or sit.
    ``phase``, ``phase_label``: the status's (the choice group's name)."""
    words = in_language(_phrases, _fixed_markup)
    head = '<div id="table-controls" class="table-controls"'
    if oob:
        head += OOB
    if my_turn:
        head += (
            f' data-my-turn="1" data-version="{escape(move_version)}"'
            f' data-hints="{escape(hints_json)}"'
        )
    else:
        head += ' data-my-turn="0"'
    if my_turn and can_play:
        head += ' data-can-play="1"'
    if cant_beat:
        head += ' data-cant-beat="1"'
    lines = [head + ">"]
    csrf = csrf_input(csrf_token)
    if in_hand and not finished:
        if my_turn:
            lines.append(words["your_turn"])
        if cant_beat:
            lines.append(words["cant_beat"])
        elif my_turn and (can_play or can_pass):
            if leading:
                lines.append(words["lead"])
            lines.append(words["play_row" if can_pass else "play_row_no_pass"])
        elif my_turn and choices:
            picker = " card-picker" if phase == "call" else ""
            lines.append(
                f'<div class="ctl-row choice-row{picker}" role="group" '
                f'aria-label="{escape(phase_label)}">'
            )
            if phase in ("call", "grab"):
                lines.append(words[phase])
            lines.extend(_choice(choice) for choice in choices)
            lines.append("</div>")
        elif seated:
            # not who: the seats region shows that to everyone, and a seat's own regions are
            # sent it only when they change
            lines.append(words["wait"])
        if seated:
            lines.append(words["autoplay_on" if autoplay_on else "autoplay_off"])
            if table_id:
                button = f'<button type="submit" class="btn ghost sm">{words["leave"]}</button>'
                confirm = f' hx-confirm="{words["leave_confirm"]}"'
                lines.append(_post_form("table_leave", table_id, csrf + button, extra=confirm))
            lines.append("</div>")
    elif table_id:
        lines.append('<div class="ctl-row">')
        if seated:
            if all_seated:
                label = words["next_hand"] if hand_id else words["deal"]
                button = f'<button type="submit" class="btn primary">{label}</button>'
                lines.append(
                    _post_form("table_next_hand", table_id, csrf + button, extra=' hx-swap="none"')
                )
            else:
                inside = (
                    f'{csrf}<input type="hidden" name="fill" value="1">'
                    f'<button type="submit" class="btn secondary">{words["fill"]}</button>'
                )
                lines.append(_post_form("table_add_bot", table_id, inside, extra=' hx-swap="none"'))
            button = f'<button type="submit" class="btn ghost">{words["leave"]}</button>'
            lines.append(_post_form("table_leave", table_id, csrf + button))
        elif free_seats:
            button = f'<button type="submit" class="btn primary">{words["sit"]}</button>'
            lines.append(_post_form("table_sit", table_id, csrf + button))
        else:
            lines.append(words["watching"])
        lines.append("</div>")
    lines.append("</div>")
    return mark_safe("\n".join(lines))  # every value in it is escaped
