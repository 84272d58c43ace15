"""Recompute the skill ratings from the hand history (README: Skill rating). Idempotent: on a
database whose ratings all came from live updates it changes nothing, and says so. With
``--check`` it only tells: nothing is kept, and the exit status is 1 when a rating would change
(a restored backup's check, ``manage.py restore_check``)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from club.services.ratings import ratings_recompute
from games.engine import VARIANTS


class _Undo(Exception):
    """Rolls the check's recompute back."""


class Command(BaseCommand):
    help = "Recompute every skill rating (or one variant's) from the hand history."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--variant", choices=sorted(VARIANTS), help="only this variant")
        parser.add_argument(
            "--check",
            action="store_true",
            help="change nothing; exit status 1 when the recompute would change a rating",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        variants = [options["variant"]] if options.get("variant") else list(VARIANTS)
        differing = 0
        try:
            with transaction.atomic():
                for key in variants:
                    report = ratings_recompute(variant_key=key)
                    differing += report.ratings_changed + report.changes_rewritten
                    self.stdout.write(
                        f"{key}: {report.rated_hands} rated hands ({report.appended} added to "
                        f"the sequence), {report.ratings_changed} ratings changed, "
                        f"{report.changes_rewritten} rating changes rewritten"
                    )
                if options["check"]:
                    raise _Undo
        except _Undo:
            if differing:
                raise CommandError(
                    f"rating_recompute --check: {differing} rating(s) differ from the history",
                    returncode=1,
                ) from None
            self.stdout.write("rating_recompute --check: the ratings are the history's")
