"""A push made off the event loop is handed to it: the thread that made it does not wait for
the sockets, and each socket gets the frames in the order they were made (games/push/send.py
``send_frames``)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from games.push import frames as table_frames
from games.push import send


@pytest.fixture(autouse=True)
def _in_memory_layer(monkeypatch, settings):
    settings.CHANNEL_LAYERS = {
        "default": {"BACKEND": "ddz_site.layers.SweepingInMemoryChannelLayer"}
    }
    monkeypatch.setattr(send, "_server_loop", None)


def _bulletin(group: str, html: str) -> table_frames.BulletinFrame:
    return table_frames.BulletinFrame(group=group, html_by_language={"en": html})


def _text(message: dict[str, Any]) -> str | None:
    return table_frames.from_message(message).text_for(user_id=1, language="en")


async def _listening(group: str) -> tuple[Any, str]:
    """The layer and a channel in ``group``, with this test's loop as the server's."""
    send.remember_server_loop(asyncio.get_running_loop())
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(group, channel)
    return layer, channel


@pytest.mark.asyncio
async def test_a_push_from_another_thread_does_not_wait_for_the_loop():
    layer, channel = await _listening("table.1.public")
    started, go, returned = threading.Event(), threading.Event(), threading.Event()

    def commits() -> None:  # a service's pushes, in its database thread
        started.set()
        go.wait(timeout=60)
        for n in range(3):
            send.send_frames([_bulletin("table.1.public", f"push {n}")])
        returned.set()

    worker = asyncio.ensure_future(database_sync_to_async(commits)())
    assert await asyncio.to_thread(started.wait, 60)  # the database thread has it
    go.set()
    # the loop is held here, so a push that waited for it would not return
    assert returned.wait(timeout=60)
    await worker
    received = [_text(await asyncio.wait_for(layer.receive(channel), 5)) for _ in range(3)]
    assert received == ["push 0", "push 1", "push 2"]


@pytest.mark.asyncio
async def test_a_failed_push_does_not_stop_the_next():
    layer, channel = await _listening("table.2.public")

    def commits() -> None:
        send.send_frames([_bulletin("bad group name!", "lost")])  # a group the layer refuses
        send.send_frames([_bulletin("table.2.public", "after")])

    await asyncio.to_thread(commits)
    assert _text(await asyncio.wait_for(layer.receive(channel), 5)) == "after"
