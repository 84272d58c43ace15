"""Suspending a player from the tables (issue #7), and lifting it."""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction

from accounts.models import User
from club.models import Suspension
from games.api import ActionRejected, table_leave

logger = logging.getLogger(__name__)


def user_is_suspended(*, user: Any) -> bool:
    if user is None or not getattr(user, "pk", None):
        return False
    return Suspension.objects.filter(user_id=user.pk).exists()


@transaction.atomic
def user_suspend(*, user: User, reason: str, actor: User | None) -> Suspension:
    """Suspend ``user``: he can no longer sit down. He is stood up at every table (mid-hand:
    托管 until the hand ends, as when leaving). His ledger and history stay as they are."""
    if not reason or not reason.strip():
        raise ValueError("a suspension needs a reason")
    suspension, _created = Suspension.objects.update_or_create(
        user=user, defaults={"reason": reason.strip(), "actor": actor}
    )
    table_ids = list(user.seats.values_list("table_id", flat=True))

    def stand_up() -> None:
        for table_id in table_ids:
            try:
                table_leave(table_id=table_id, user=user)
            except ActionRejected as error:
                logger.info("suspension of %s at table %s: %s", user, table_id, error)

    transaction.on_commit(stand_up)
    return suspension


def user_unsuspend(*, user: User) -> None:
    Suspension.objects.filter(user=user).delete()
