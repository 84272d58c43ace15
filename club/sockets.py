"""What the table consumer (games/live/consumers.py) hands to the club: socket opened and closed
(spectator presence, the connection's address) and the ``chat`` intent. Transport glue only:
the writes are club.services."""

from __future__ import annotations

import logging
from typing import Any

from channels.db import database_sync_to_async

from club import broadcast, selectors, services

logger = logging.getLogger(__name__)


def _opened(
    table_id: int, user: Any, channel_name: str, ip: str | None, seated: bool
) -> tuple[str, dict] | None:
    # the count leaves out seated users: a player's socket never changes it
    before = None if seated else selectors.spectator_count(table_id=table_id)
    services.presence_open(table_id=table_id, user=user, channel_name=channel_name)
    services.connection_record(table_id=table_id, user=user, ip=ip, seated=seated)
    if seated or selectors.spectator_count(table_id=table_id) == before:
        return None  # a seated player, or another tab of a spectator: nothing to show
    return broadcast.spectators_event(table_id)


def _closed(table_id: int, channel_name: str) -> tuple[str, dict] | None:
    before = selectors.spectator_count(table_id=table_id)
    services.presence_close(channel_name=channel_name)
    if selectors.spectator_count(table_id=table_id) == before:
        return None
    return broadcast.spectators_event(table_id)


async def socket_opened(consumer: Any, *, seated: bool = False) -> None:
    """``seated``: the user holds a seat at the table (his socket is no spectator)."""
    try:
        ip = services.client_ip(consumer.scope)
        push = await database_sync_to_async(_opened)(
            consumer.table_id, consumer.user, consumer.channel_name, ip, seated
        )
        if push is not None:
            await consumer.channel_layer.group_send(*push)
    except Exception:  # presence is a nicety: never refuse a socket for it
        logger.exception("club: socket open at table %s", getattr(consumer, "table_id", "?"))


async def socket_closed(consumer: Any) -> None:
    try:
        push = await database_sync_to_async(_closed)(consumer.table_id, consumer.channel_name)
        if push is not None:
            await consumer.channel_layer.group_send(*push)
    except Exception:
        logger.exception("club: socket close at table %s", getattr(consumer, "table_id", "?"))


async def chat(consumer: Any, intent: Any) -> None:
    """The ``chat`` intent: raises ActionRejected (ChatRefused) for the consumer to show."""
    await database_sync_to_async(services.chat_send)(
        table_id=consumer.table_id, user=consumer.user, key=intent.chat_key, text=intent.text
    )
