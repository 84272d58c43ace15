"""The embedded default's channel layer: channels' in-memory layer, made to scale with sockets.

channels' ``InMemoryChannelLayer`` sweeps every channel and every group membership for expired
entries on each ``receive`` and each ``group_send``. Every open socket waits in ``receive``,
so each pushed frame costs a sweep over all sockets of the process: at a club's 1 000 sockets
that is most of the server's time. A group send also starts a task per member.

Here the sweep runs at most once per ``sweep_interval`` seconds, so an expired message or
membership goes at most that much later than its expiry (60 s and a day by default); and a
group send puts the message on each member's queue directly.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer


class SweepingInMemoryChannelLayer(InMemoryChannelLayer):
    def __init__(self, *, sweep_interval: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.sweep_interval = sweep_interval
        self._next_sweep = 0.0

    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now < self._next_sweep:
            return
        self._next_sweep = now + self.sweep_interval
        super()._clean_expired()

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        for channel in list(self.groups.get(group, ())):
            # as channels' layer: a full queue drops the message
            with contextlib.suppress(ChannelFull):
                await self.send(channel, message)
