"""The channel layer the rooms' tables will use: in-memory by default, Redis with REDIS_URL."""

from __future__ import annotations

import asyncio
import gc
import os
import sys

import pytest
from channels.layers import get_channel_layer
from django.conf import settings

REDIS = bool(os.environ.get("REDIS_URL"))


def test_layer_follows_the_environment():
    backend = settings.CHANNEL_LAYERS["default"]["BACKEND"]
    if REDIS:
        assert backend == "ddz_site.layers.BatchingRedisPubSubChannelLayer"
        (host,) = settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"]
        assert host["socket_timeout"] is None  # docs/conventions.md §9: redis-py 8 pitfall
    else:
        assert backend == "ddz_site.layers.SweepingInMemoryChannelLayer"


def test_asgi_routes_websockets_through_the_origin_check():
    from channels.routing import ProtocolTypeRouter
    from channels.security.websocket import OriginValidator

    from ddz_site.asgi import application
    from ddz_site.health import ReadinessGate

    # behind the readiness gate (ddz_site/health.py), which only answers the health paths
    assert isinstance(application, ReadinessGate)
    router = application.application
    assert isinstance(router, ProtocolTypeRouter)
    assert isinstance(router.application_mapping["websocket"], OriginValidator)


def test_the_served_process_lets_its_threads_take_turns_often():
    from ddz_site import asgi  # noqa: F401 -- importing it configures the process

    assert sys.getswitchinterval() == pytest.approx(settings.DDZ_SWITCH_INTERVAL_MS / 1000)
    assert settings.DDZ_SWITCH_INTERVAL_MS < 5  # Python's default
    assert gc.get_freeze_count() > 1000  # its start-up objects are out of the collector's way


@pytest.mark.asyncio
async def test_group_message_round_trip():
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add("room.test", channel)
    await layer.group_send("room.test", {"type": "room.ping", "n": 1})
    message = await asyncio.wait_for(layer.receive(channel), timeout=5)
    assert message == {"type": "room.ping", "n": 1}
    await layer.group_discard("room.test", channel)


@pytest.mark.asyncio
async def test_a_whole_push_arrives_in_order_to_each_member_of_its_groups():
    layer = get_channel_layer()
    seated, watcher, elsewhere = [await layer.new_channel() for _ in range(3)]
    for group, channel in [
        ("table.7.user.1", seated),
        ("table.7.public", seated),
        ("table.7.public", watcher),
        ("table.8.public", elsewhere),
    ]:
        await layer.group_add(group, channel)
    frames = [("table.7.user.1", {"type": "t", "n": 0})]
    frames += [("table.7.public", {"type": "t", "n": n}) for n in range(1, 12)]
    frames += [("table.9.public", {"type": "t", "n": 99})]  # a group nobody is in
    await layer.group_send_many(frames)

    async def received(channel: str, count: int) -> list[int]:
        return [(await asyncio.wait_for(layer.receive(channel), 60))["n"] for _ in range(count)]

    assert await received(seated, 12) == list(range(12))
    assert await received(watcher, 11) == list(range(1, 12))
    # nothing of table 7 reached table 8: its first message is the one sent to it after
    await layer.group_send_many([("table.8.public", {"type": "t", "n": -1})])
    assert await received(elsewhere, 1) == [-1]
    for group, channel in [("table.7.user.1", seated), ("table.7.public", watcher)]:
        await layer.group_discard(group, channel)


@pytest.mark.skipif(not REDIS, reason="the Redis layer (REDIS_URL)")
@pytest.mark.asyncio
async def test_a_burst_larger_than_any_queue_arrives_whole_and_in_order():
    # the queue layer this one replaced dropped what overran a process's queue (2,000)
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add("table.6.public", channel)
    await layer.group_send_many([("table.6.public", {"type": "t", "n": n}) for n in range(2500)])
    got = [(await asyncio.wait_for(layer.receive(channel), 30))["n"] for _ in range(2500)]
    assert got == list(range(2500))
    await layer.group_discard("table.6.public", channel)


@pytest.mark.slow
@pytest.mark.skipif(not REDIS, reason="the idle-socket pitfall is Redis-only (REDIS_URL)")
@pytest.mark.asyncio
async def test_redis_receive_survives_more_than_six_idle_seconds():
    layer = get_channel_layer()
    channel = await layer.new_channel()
    waiting = asyncio.ensure_future(layer.receive(channel))
    await asyncio.sleep(6.5)
    assert not waiting.done()  # no TimeoutError after redis-py's 5 s default
    await layer.send(channel, {"type": "late"})
    assert (await asyncio.wait_for(waiting, timeout=5))["type"] == "late"


@pytest.mark.asyncio
async def test_embedded_layer_sweeps_at_most_once_per_interval(monkeypatch):
    from channels.layers import InMemoryChannelLayer

    from ddz_site.layers import SweepingInMemoryChannelLayer

    sweeps = []
    monkeypatch.setattr(InMemoryChannelLayer, "_clean_expired", lambda self: sweeps.append(1))
    layer = SweepingInMemoryChannelLayer(sweep_interval=3600)
    channels = [await layer.new_channel() for _ in range(3)]
    for channel in channels:
        await layer.group_add("table.1.public", channel)
    for n in range(5):
        await layer.group_send("table.1.public", {"type": "table.html", "n": n})
    for channel in channels:
        for n in range(5):
            assert (await layer.receive(channel))["n"] == n  # every member, in order
    assert len(sweeps) == 1  # not one sweep per send and per receive


@pytest.mark.asyncio
async def test_embedded_layer_still_drops_expired_messages_and_full_queues():
    from ddz_site.layers import SweepingInMemoryChannelLayer

    layer = SweepingInMemoryChannelLayer(sweep_interval=0, expiry=0.05, capacity=2)
    stale, full = await layer.new_channel(), await layer.new_channel()
    await layer.group_add("g", stale)
    await layer.send(stale, {"type": "old"})
    await asyncio.sleep(0.1)
    await layer.group_add("g", full)
    for n in range(3):  # the third finds the queue full: dropped, no error
        await layer.group_send("g", {"type": "new", "n": n})
    assert [(await layer.receive(full))["n"] for _ in range(2)] == [0, 1]
    # the expired message went, and its channel left the group, as channels' own layer does
    assert stale not in layer.groups.get("g", {})
