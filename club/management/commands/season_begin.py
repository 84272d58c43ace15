"""Begin the seasons whose start has come (their soft reset). The deadline runner does it on
its own; this is for a club that runs without one (``DDZ_DEADLINE_RUNNER=off``), from cron."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from club.services.seasons import seasons_begin_due


class Command(BaseCommand):
    help = "Begin every season whose start has come (soft-reset the title ladder's score)."

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(f"{seasons_begin_due()} seasons begun")
