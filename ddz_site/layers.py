"""The channel layers: channels' in-memory layer made to scale with sockets (the embedded
default), and channels-redis's pub/sub layer sending a whole push at once (a club's several
processes).

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
from collections import defaultdict
from typing import Any

from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer
from channels_redis.pubsub import RedisPubSubChannelLayer


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

    async def group_send_many(self, sends: list[tuple[str, dict[str, Any]]]) -> None:
        """Each (group, message) in turn: the same interface as the Redis layer's."""
        for group, message in sends:
            await self.group_send(group, message)


class BatchingRedisPubSubChannelLayer(RedisPubSubChannelLayer):
    """channels-redis's pub/sub layer with ``group_send_many``: a group send is one PUBLISH
    that every process subscribed to the group hands to its members, with no per-channel
    queue in Redis. A push's PUBLISHes go in one pipeline per Redis server, in the order
    given, instead of one awaited round trip each.

    It replaced channels-redis's queue layer (with a Lua script sending a whole push): every
    socket of a process read one Redis queue, one message a round trip, and a burst beyond
    its capacity dropped frames; pub/sub carried about five times the pushes with none lost
    (bench/README.md, issue #17). What pub/sub can lose instead is what is published while a
    process is cut off from Redis, or more than Redis buffers for a subscriber that does not
    keep up (``client-output-buffer-limit pubsub``, 32 MB by default): the versioned frames
    heal such a gap with a resync (games/push/frames.py)."""

    async def group_send_many(self, sends: list[tuple[str, dict[str, Any]]]) -> None:
        layer = self._get_layer()
        by_shard: dict[int, list[tuple[str, bytes]]] = defaultdict(list)
        shards = {}
        for group, message in sends:
            channel = layer._get_group_channel_name(group)
            shard = layer._get_shard(channel)
            shards[id(shard)] = shard
            by_shard[id(shard)].append((channel, self.serialize(message)))
        for key, published in by_shard.items():
            shard = shards[key]
            # the shard's lock orders these PUBLISHes with its other commands, as its own
            # publish does
            async with shard._lock:
                shard._ensure_redis()
                pipe = shard._redis.pipeline(transaction=False)
                for channel, payload in published:
                    pipe.publish(channel, payload)
                await pipe.execute()
