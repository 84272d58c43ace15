"""Pushes of club life to a table's sockets: chat bubbles and the spectator count.

They reuse the table's groups (games/push/frames.py): the public group reaches every socket of the
table; a spectator's bubble names the seated users in ``skip_users`` so players never get it
(the consumer drops an event that names its user)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation

from club.models import ChatMessage
from club.phrases import EMOTES, phrase_text
from club.selectors.tables import spectator_count
from games.push import frames, send


def chat_html(message: ChatMessage, *, oob: bool = True) -> str:
    key = message.key
    return render_to_string(
        "club/chat_bubble.html",
        {
            "message": message,
            "name": message.user.username,
            "text": phrase_text(key) if key else message.text,
            "emote": key in EMOTES,
            "spectator": message.seat is None,
            "oob": oob,
        },
    )


def in_every_language(render: Callable[[], str]) -> dict[str, Any]:
    """A public event of ``render``'s html in each site language: each socket sends its
    reader's (the consumer's ``table_html``), whoever's action caused it."""
    by_language = {}
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            by_language[code] = render()
    return {
        "type": frames.EVENT_TYPE,
        "html": by_language[settings.LANGUAGE_CODE],
        "html_by_language": by_language,
    }


def chat_event(message: ChatMessage) -> tuple[str, dict[str, Any]]:
    """(group, event) of one chat message."""
    from games.models import Seat

    event = in_every_language(lambda: chat_html(message))
    if message.seat is None:
        seated = Seat.objects.filter(table_id=message.table_id, user__isnull=False)
        event["skip_users"] = list(seated.values_list("user_id", flat=True))
    return frames.public_group(message.table_id), event


def chat_pushed(message: ChatMessage) -> None:
    group, event = chat_event(message)
    send.send_frames([(group, event)])


def spectators_html(count: int) -> str:
    return render_to_string("club/spectators.html", {"count": count, "oob": True})


def spectators_event(table_id: int) -> tuple[str, dict[str, Any]]:
    count = spectator_count(table_id=table_id)
    return (
        frames.public_group(table_id),
        in_every_language(lambda: spectators_html(count)),
    )
