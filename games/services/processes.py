"""The served processes' heartbeats (``ServerProcess``), which the operators' live view reads."""

from __future__ import annotations

import datetime
import os
import socket

from django.utils import timezone

from games.models import ServerProcess
from games.services.presence import PROCESS_ID

_STARTED = timezone.now()
# a process not seen for this long is forgotten (a restart gets a new row)
FORGET_AFTER = datetime.timedelta(days=1)


def process_beat(
    *,
    sockets: int,
    runner_round_at: datetime.datetime | None,
    runner_lag_seconds: float | None,
    errors: list[dict[str, str]],
) -> None:
    """Record this process's heartbeat, and forget the processes long gone."""
    now = timezone.now()
    ServerProcess.objects.update_or_create(
        process=PROCESS_ID,
        defaults={
            "host": socket.gethostname()[:255],
            "pid": os.getpid(),
            "started_at": _STARTED,
            "seen_at": now,
            "sockets": sockets,
            "runner_round_at": runner_round_at,
            "runner_lag_seconds": runner_lag_seconds,
            "errors": errors,
        },
    )
    ServerProcess.objects.filter(seen_at__lt=now - FORGET_AFTER).delete()
