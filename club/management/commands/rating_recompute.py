"""Recompute the skill ratings from the hand history (README: Skill rating). Idempotent: on a
database whose ratings all came from live updates it changes nothing, and says so."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from club.services import ratings_recompute
from games.engine.variants import VARIANTS


class Command(BaseCommand):
    help = "Recompute every skill rating (or one variant's) from the hand history."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--variant", choices=sorted(VARIANTS), help="only this variant")

    def handle(self, *args: Any, **options: Any) -> None:
        variants = [options["variant"]] if options.get("variant") else list(VARIANTS)
        for key in variants:
            report = ratings_recompute(variant_key=key)
            self.stdout.write(
                f"{key}: {report.rated_hands} rated hands ({report.appended} added to the "
                f"sequence), {report.ratings_changed} ratings changed, "
                f"{report.changes_rewritten} rating changes rewritten"
            )
