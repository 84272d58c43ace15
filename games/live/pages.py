"""A page's websocket that only listens (an event page's, competitions.consumers): transport only.
It admits its reader (who he is, which groups he reads, the page's current regions), joins those
groups, sends the regions, then relays the page's bulletins (games/push/frames.py) in its
reader's language. The page itself says what its admission is (``admit``, run in the database
thread) and which gauge counts its sockets."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from prometheus_client import Gauge

from games.push import frames

CLOSE_NO_PAGE = 4404


@dataclass(frozen=True)
class PageAdmission:
    """Who reads the page (None: a visitor), the language he reads, the groups of its pushes
    he gets (games.push.frames.page_group) and the page's current regions."""

    user_id: int | None
    language: str
    groups: tuple[str, ...]
    html: str


class PageConsumer(AsyncWebsocketConsumer):
    # the sockets open on pages of this kind
    sockets: Gauge

    def admit(self, scope: dict[str, Any]) -> PageAdmission | None:
        """The admission of this socket's reader; None when there is no such page (it closes
        with 4404)."""
        raise NotImplementedError

    async def connect(self) -> None:
        await self.accept()
        self.groups_joined: list[str] = []
        admitted = await database_sync_to_async(self.admit)(self.scope)
        if admitted is None:
            await self.close(code=CLOSE_NO_PAGE)
            return
        self.admission = admitted
        for name in admitted.groups:
            await self.channel_layer.group_add(name, self.channel_name)
            self.groups_joined.append(name)
        self.sockets.inc()
        self.counted = True
        await self.send(text_data=admitted.html)

    async def disconnect(self, code: int) -> None:
        if getattr(self, "counted", False):
            self.counted = False
            self.sockets.dec()
        for name in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(name, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        return None  # the page writes through its forms; the socket only listens

    async def frame_html(self, message: dict[str, Any]) -> None:
        frame = frames.from_message(message)
        if not isinstance(frame, frames.BulletinFrame):
            return
        html = frame.text_for(user_id=self.admission.user_id, language=self.admission.language)
        if html is not None:
            await self.send(text_data=html)
