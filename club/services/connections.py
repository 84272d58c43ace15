"""The connection addresses the club keeps of table sockets (issue #7), for fair play."""

from __future__ import annotations

import logging
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from club.models import ConnectionRecord
from games.api import Seat
from site_kit.addresses import client_address

logger = logging.getLogger(__name__)


def client_ip(scope: dict[str, Any]) -> str | None:
    """The socket's client address (site_kit.addresses)."""
    headers = {
        k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])
    }
    client = scope.get("client")
    return client_address(
        forwarded_for=headers.get("x-forwarded-for"), peer=str(client[0]) if client else None
    )


def connection_record(
    *, table_id: int, user: Any, ip: str | None, seated: bool | None = None
) -> None:
    """Remember that ``user`` opened a socket of the table from ``ip``; ``seated``: whether he
    holds a seat there (read here when not given)."""
    if not ip or user is None or not getattr(user, "is_authenticated", False):
        return
    if seated is None:
        seated = Seat.objects.filter(table_id=table_id, user_id=user.pk).exists()
    try:
        with transaction.atomic():
            record, created = ConnectionRecord.objects.get_or_create(
                table_id=table_id, user_id=user.pk, ip=ip, defaults={"seated": seated}
            )
            if not created:
                ConnectionRecord.objects.filter(pk=record.pk).update(
                    seen_at=timezone.now(), seated=record.seated or seated
                )
    except (IntegrityError, ValueError) as error:  # a concurrent insert, an odd address
        logger.info("connection record of table %s: %s", table_id, error)
