"""What the table consumer (games/live/consumers.py) hands to the club: socket opened and closed
(the spectator count, the connection's address), sockets of a stopped process expired (the
count again) and the ``chat`` intent. Glue only: the writes are club.services, the pushes leave
through games.push (club.broadcast).

The spectators are counted from the sockets' leases (games.services.presence), which the
consumer has recorded before a socket's opening comes here and deleted before its closing
does."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from channels.db import database_sync_to_async

from club import broadcast
from club.selectors.tables import spectator_sockets
from club.services.chat import chat_send
from club.services.connections import client_ip, connection_record

logger = logging.getLogger(__name__)


def _opened(table_id: int, user: Any, ip: str | None, seated: bool) -> None:
    connection_record(table_id=table_id, user=user, ip=ip, seated=seated)
    if seated or spectator_sockets(table_id=table_id, user_id=user.pk) != 1:
        return  # a seated player, or another tab of a spectator: nothing to show
    broadcast.spectators_changed(table_id)


def _closed(table_id: int, user: Any) -> None:
    if spectator_sockets(table_id=table_id, user_id=user.pk) != 0:
        return  # a seated player, or a spectator with another tab open
    broadcast.spectators_changed(table_id)


async def socket_opened(consumer: Any, *, seated: bool = False) -> None:
    """``seated``: the user holds a seat at the table (his socket is no spectator)."""
    try:
        ip = client_ip(consumer.scope)
        await database_sync_to_async(_opened)(consumer.table_id, consumer.user, ip, seated)
    except Exception:  # presence is a nicety: never refuse a socket for it
        logger.exception("club: socket open at table %s", getattr(consumer, "table_id", "?"))


async def socket_closed(consumer: Any) -> None:
    try:
        await database_sync_to_async(_closed)(consumer.table_id, consumer.user)
    except Exception:
        logger.exception("club: socket close at table %s", getattr(consumer, "table_id", "?"))


def leases_expired(*, table_id: int, user_ids: Iterable[int]) -> None:
    """The sweep deleted the dead leases of these users at the table (their process stopped):
    the table's sockets get the new count when a spectator left with them."""
    try:
        if any(spectator_sockets(table_id=table_id, user_id=u) == 0 for u in user_ids):
            broadcast.spectators_changed(table_id)
    except Exception:  # the sweep goes on: the count is a nicety
        logger.exception("club: spectators of table %s after its leases expired", table_id)


async def chat(consumer: Any, intent: Any) -> None:
    """The ``chat`` intent: raises ActionRejected (ChatRefused) for the consumer to show."""
    await database_sync_to_async(chat_send)(
        table_id=consumer.table_id, user=consumer.user, key=intent.chat_key, text=intent.text
    )
