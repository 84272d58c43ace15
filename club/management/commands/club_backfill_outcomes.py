"""Write the hand outcome rows (leaderboards, profiles) of finished hands that have none:
once after installing the club app on a database with history; safe to run again."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from club.services.outcomes import hand_outcomes_backfill


class Command(BaseCommand):
    help = "Write missing hand outcome rows for finished hands."

    def handle(self, *args: Any, **options: Any) -> None:
        count = hand_outcomes_backfill()
        self.stdout.write(f"{count} hands recorded")
