"""The event page's websocket ``/ws/events/<id>/``: transport only. It finds its user and
language, joins the event's group (and the user's own), sends the current regions, then
relays the pushes of competitions.broadcast in its reader's language. Closes 4404 for no such
event."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib import auth
from django.utils import translation

from competitions import broadcast, pages
from competitions.models import Event
from ddz_site import metrics
from games.api import hooks

CLOSE_NO_EVENT = 4404


def _admit(scope: dict[str, Any], event_id: int) -> tuple[Any, str, str] | None:
    """(user, language, the current regions) or None for no such event."""
    session = scope.get("session")
    user = scope.get("user")
    if user is None and session is not None:
        user = auth.get_user(SimpleNamespace(session=session))
    event = Event.objects.select_related("room").filter(pk=event_id).first()
    if event is None:
        return None
    headers = dict(scope.get("headers") or [])
    cookie = (scope.get("cookies") or {}).get(settings.LANGUAGE_COOKIE_NAME)
    if getattr(user, "is_authenticated", False):
        language = hooks.socket_language(
            user=user,
            cookie=cookie,
            accept_language=headers.get(b"accept-language", b"").decode("latin-1"),
        )
    else:  # a visitor: his language cookie, else the club's (nothing is stored for him)
        try:
            language = translation.get_supported_language_variant(cookie or "")
        except LookupError:
            language = settings.LANGUAGE_CODE
    with translation.override(language):
        html = pages.render_shared(event=event)
        if getattr(user, "is_authenticated", False):
            html += pages.render_own(event=event, user=user)
    return user, language, html


class EventConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        await self.accept()
        self.groups_joined: list[str] = []
        try:
            event_id = int(self.scope["url_route"]["kwargs"]["event_id"])
        except (KeyError, TypeError, ValueError):
            await self.close(code=CLOSE_NO_EVENT)
            return
        admitted = await database_sync_to_async(_admit)(self.scope, event_id)
        if admitted is None:
            await self.close(code=CLOSE_NO_EVENT)
            return
        user, self.language, html = admitted
        names = [broadcast.group(event_id)]
        if getattr(user, "is_authenticated", False):
            names.append(broadcast.user_group(event_id, user.pk))
        for name in names:
            await self.channel_layer.group_add(name, self.channel_name)
            self.groups_joined.append(name)
        metrics.EVENT_SOCKETS.inc()
        self.counted = True
        await self.send(text_data=html)

    async def disconnect(self, code: int) -> None:
        if getattr(self, "counted", False):
            self.counted = False
            metrics.EVENT_SOCKETS.dec()
        for name in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(name, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        return None  # the page writes through its forms; the socket only listens

    async def event_html(self, message: dict[str, Any]) -> None:
        by_language = message.get("html_by_language") or {}
        html = by_language.get(self.language) or by_language.get(settings.LANGUAGE_CODE) or ""
        await self.send(text_data=html)
