"""Notices inside the table page (issue #8): a player sat down or left, the host changed a
setting, a seat swap was asked or made, a player was stood up below the minimum balance.

A notice is public table news only (names and settings, never cards or secret choices), so it
goes to every socket there, seated or not, inside the table's next push. It is rendered in
every site language at once; the page shows the span matching its own ``lang`` (notify.js, with
a CSS fallback), so each player reads it in his language whoever triggered it. Sent only after
the write commits. "Your turn" is a client-side notice (notify.js), from the player's own view.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext_lazy as _

MESSAGES = {
    "joined": _("%(name)s sat down."),
    "left": _("%(name)s left the table."),
    "settings": _("%(name)s changed the table settings: %(what)s."),
    "settings_next": _(
        "%(name)s changed the table settings: %(what)s. They apply from the next hand."
    ),
    "locked": _("%(name)s locked the table."),
    "unlocked": _("%(name)s unlocked the table."),
    "removed": _("%(name)s removed %(other)s from an idle seat."),
    "swap_asked": _("%(name)s asks %(other)s to swap seats."),
    "swapped": _("%(name)s and %(other)s swapped seats."),
    "stand_after": _("%(name)s will stand up after this hand."),
    "stood_up_balance": _(
        "%(name)s was stood up: fewer beans than the table's minimum of %(minimum)s."
    ),
    "stood_up_absent": _("%(name)s was stood up before the deal: away for too long."),
    "bot_took_seat": _("A bot takes the seat of %(name)s."),
    "redeals_stopped": _(
        "Everyone passed again with nobody at the table playing: the table waits for a player."
    ),
}


def render_notice(key: str, params: dict[str, Any]) -> str:
    """The notice partial: one span per site language (lazy params translated per language)."""
    texts = []
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            values = {k: str(v) for k, v in params.items()}
            texts.append({"lang": code, "text": str(MESSAGES[key]) % values})
    return render_to_string("games/table/notice.html", {"texts": texts, "key": key})
