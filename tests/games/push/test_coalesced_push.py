"""A push of whatever state a table has (a seat coming on line) is one push with the others of
that table still waiting to run (games/push/send.py ``push_coalesced``)."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async

from games.push import send


async def _settle(ran: list[int], count: int) -> None:
    for _ in range(6000):  # a minute on a loaded machine
        if len(ran) >= count:
            break
        await asyncio.sleep(0.01)
    await send.drained()  # and nothing more comes


@pytest.mark.asyncio
async def test_pushes_waiting_for_the_same_table_run_once(monkeypatch):
    monkeypatch.setattr(send, "_server_loop", asyncio.get_running_loop())
    ran: list[int] = []

    def commits() -> None:  # in the database thread, as a service's commits are
        for _ in range(3):
            send.push_coalesced(1, lambda: ran.append(1))
        send.push_coalesced(2, lambda: ran.append(2))

    await database_sync_to_async(commits)()
    await _settle(ran, 2)
    assert sorted(ran) == [1, 2]
    # a change after the push started has a push of its own
    await database_sync_to_async(send.push_coalesced)(1, lambda: ran.append(1))
    await _settle(ran, 3)
    assert sorted(ran) == [1, 1, 2]


def test_without_the_servers_loop_the_push_runs_at_once(monkeypatch):
    monkeypatch.setattr(send, "_server_loop", None)
    ran: list[int] = []
    send.push_coalesced(1, lambda: ran.append(1))
    send.push_coalesced(1, lambda: ran.append(1))
    assert ran == [1, 1]
