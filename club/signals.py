"""The club's signal receivers, which write nothing (docs/conventions.md §3): what the club keeps
of a finished hand is written by ``club.services.outcomes.hand_finished_record``, which the service
finishing the hand calls in its transaction (games.table.hooks ``hand_finished``)."""

from __future__ import annotations

from django.db.models.signals import post_migrate

from club.selectors.ratings import seat_ratings_clear

# a flush (transactional tests) or migration may empty the ratings the table pushes keep
post_migrate.connect(seat_ratings_clear, dispatch_uid="club.seat_ratings_migrate")
