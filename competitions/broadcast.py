"""Pushes of an event page after commit: the shared regions (head, standings, tables) once per
language to everyone watching the event, a player's own region to him alone. The consumer
only sends them (competitions.consumers)."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import transaction
from django.utils import translation

logger = logging.getLogger(__name__)


def group(event_id: int) -> str:
    return f"event-{event_id}"


def user_group(event_id: int, user_id: int) -> str:
    return f"event-{event_id}-user-{user_id}"


def languages() -> list[str]:
    return [code for code, _name in settings.LANGUAGES]


def event_changed_on_commit(event_id: int, *, everyone: bool = False) -> None:
    """After commit: the shared regions; with ``everyone``, every entrant's own region too (the
    event started, ended or was cancelled)."""
    transaction.on_commit(lambda: event_changed(event_id, everyone=everyone))


def player_moved_on_commit(event_id: int, user_ids: Iterable[int]) -> None:
    users = list(user_ids)
    transaction.on_commit(lambda: players_changed(event_id, users))


def _send(name: str, message: dict[str, object]) -> None:
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(name, message)


def event_changed(event_id: int, *, everyone: bool = False) -> None:
    """Every watcher gets the shared regions in his language (and every entrant his own)."""
    from competitions import pages
    from competitions.models import Entry, Event

    try:
        event = Event.objects.select_related("room").get(pk=event_id)
        by_language = {}
        for language in languages():
            with translation.override(language):
                by_language[language] = pages.render_shared(event=event)
        _send(group(event_id), {"type": "event.html", "html_by_language": by_language})
        if everyone:
            users = Entry.objects.filter(event=event).values_list("user_id", flat=True)
            players_changed(event_id, list(users))
    except Exception:  # a failed push never undoes a committed write
        logger.exception("push of event %s failed", event_id)


def players_changed(event_id: int, user_ids: Iterable[int]) -> None:
    """Each player's own region (where he plays now, his actions) to his sockets alone."""
    _send_own(event_id, list(user_ids))


def _send_own(event_id: int, user_ids: list[int]) -> None:
    from accounts.models import User
    from competitions import pages
    from competitions.models import Event

    try:
        event = Event.objects.select_related("room").get(pk=event_id)
        for user in User.objects.filter(pk__in=user_ids):
            by_language = {}
            for language in languages():
                with translation.override(language):
                    by_language[language] = pages.render_own(event=event, user=user)
            _send(
                user_group(event_id, user.pk),
                {"type": "event.html", "html_by_language": by_language},
            )
    except Exception:
        logger.exception("push of event %s to its players failed", event_id)
