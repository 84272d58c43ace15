"""The channel layers: channels' in-memory layer made to scale with sockets (the embedded
default), and channels-redis's layer sending a whole push at once (a club's several processes).

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
import logging
import time
from collections import defaultdict
from typing import Any

from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer
from channels_redis.core import RedisChannelLayer
from channels_redis.pubsub import RedisPubSubChannelLayer

logger = logging.getLogger(__name__)


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


# Messages written in one script call get scores this far apart, in the order given: Redis
# hands a channel's messages out by score (and equal scores in random order), and one push
# sends a seated player his own frame before the public one he drops. It is four ulps of a
# double near the present Unix time, so the scores stay distinct and in order.
_SCORE_STEP = 1e-6

_ENQUEUE_LUA = """
local count = #KEYS
local now = tonumber(ARGV[2 * count + 1])
local expiry = tonumber(ARGV[2 * count + 2])
local step = tonumber(ARGV[2 * count + 3])
local over = 0
for i = 1, count do
    redis.call('ZREMRANGEBYSCORE', KEYS[i], 0, math.floor(now) - expiry)
    if redis.call('ZCOUNT', KEYS[i], '-inf', '+inf') < tonumber(ARGV[count + i]) then
        redis.call('ZADD', KEYS[i], now + (i - 1) * step, ARGV[i])
        redis.call('EXPIRE', KEYS[i], expiry)
    else
        over = over + 1
    end
end
return over
"""


class BatchingRedisChannelLayer(RedisChannelLayer):
    """channels-redis's layer with ``group_send_many``: every frame of one push in two round
    trips per Redis server instead of four per group.

    ``group_send`` reads a group's members (two commands), drops its members' expired messages
    (a pipeline) and runs a script that queues the message for each member: four round trips,
    awaited one after the other. A qq5 push is six group sends, so 24 round trips, and the
    pushes of a process go out one after the other (games.broadcast), so at a club's busiest
    these waits, not the CPU, capped what one process carried (bench/README.md, "Seventh
    round"). Here one pipeline reads every group of the push, and one script per server
    queues every message, dropping expired ones first, with the same capacity rule and expiry
    as ``group_send``."""

    async def group_send_many(self, sends: list[tuple[str, dict[str, Any]]]) -> None:
        groups_by_server: dict[int, list[int]] = defaultdict(list)
        for position, (group, _message) in enumerate(sends):
            assert self.require_valid_group_name(group), "Group name not valid"
            groups_by_server[self.consistent_hash(group)].append(position)
        members: dict[int, list[str]] = {}
        oldest = int(time.time()) - self.group_expiry
        for server, positions in groups_by_server.items():
            pipe = self.connection(server).pipeline(transaction=False)
            for position in positions:
                key = self._group_key(sends[position][0])
                pipe.zremrangebyscore(key, min=0, max=oldest)
                pipe.zrange(key, 0, -1)
            replies = await pipe.execute()
            for n, position in enumerate(positions):
                members[position] = [name.decode("utf8") for name in replies[2 * n + 1]]

        queued: dict[int, list[tuple[bytes, bytes, int]]] = defaultdict(list)
        for position, (_group, message) in enumerate(sends):
            keys_by_server, payloads, capacities = self._map_channel_keys_to_connection(
                members[position], message
            )
            for server, keys in keys_by_server.items():
                queued[server].extend((key, payloads[key], capacities[key]) for key in keys)
        for server, entries in queued.items():
            keys = [key for key, _payload, _capacity in entries]
            args = [payload for _key, payload, _capacity in entries]
            args += [capacity for _key, _payload, capacity in entries]
            args += [time.time(), int(self.expiry), _SCORE_STEP]
            over = await self._enqueue(server)(keys=keys, args=args)
            if over:
                logger.info("%s queued messages over capacity in one push", over)

    def _enqueue(self, server: int) -> Any:
        # a script object per connection: it runs by its hash (EVALSHA), loading it once
        connection = self.connection(server)
        script = getattr(connection, "_ddz_enqueue", None)
        if script is None:
            script = connection._ddz_enqueue = connection.register_script(_ENQUEUE_LUA)
        return script


class BatchingRedisPubSubChannelLayer(RedisPubSubChannelLayer):
    """channels-redis's pub/sub layer with ``group_send_many``: a group send is one PUBLISH
    that every process subscribed to the group hands to its members, with no per-channel
    queue in Redis (so no capacity, and a message published while a process is cut off from
    Redis is lost: the versioned frames heal that). A push's PUBLISHes go in one pipeline per
    Redis server, in the order given, instead of one awaited round trip each."""

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
