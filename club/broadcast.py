"""Club life at a table that is no state of it: chat bubbles and the spectator count, announced
as bulletins (games.push.deliver.announce) to the table's public group, which reaches every
socket of the table; a spectator's bubble skips the seated users, so players never get it."""

from __future__ import annotations

from django.template.loader import render_to_string

from club.models import ChatMessage
from club.phrases import EMOTES, phrase_text
from club.selectors.tables import spectator_count
from games.api import Bulletin, Seat, announce, public_group


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


def chat_bulletin(message: ChatMessage) -> Bulletin:
    """The bubble of one chat message; a spectator's skips the seated users."""
    skip: tuple[int, ...] = ()
    if message.seat is None:
        seated = Seat.objects.filter(table_id=message.table_id, user__isnull=False)
        skip = tuple(seated.values_list("user_id", flat=True))
    return Bulletin(
        group=public_group(message.table_id),
        render=lambda: chat_html(message),
        skip_users=skip,
    )


def spectators_html(count: int) -> str:
    return render_to_string("club/spectators.html", {"count": count, "oob": True})


def spectators_bulletin(table_id: int) -> Bulletin:
    count = spectator_count(table_id=table_id)
    return Bulletin(group=public_group(table_id), render=lambda: spectators_html(count))


def spectators_changed(table_id: int) -> None:
    """The table's sockets get its new spectator count (after the commit around this)."""
    announce(spectators_bulletin(table_id))
