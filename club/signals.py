"""What the club keeps of a hand (outcome rows, season standings, the skill rating) is written
in the transaction that finishes it (games.services saves the finished hand with
``save(update_fields=...)``, which sends post_save)."""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_migrate, post_save

from club.selectors.ratings import seat_ratings_clear
from games.models import Hand


def _hand_saved(sender: Any, instance: Hand, **kwargs: Any) -> None:
    if instance.status == Hand.Status.FINISHED and instance.settled:
        from club.services.outcomes import hand_finished_record

        hand_finished_record(hand=instance)


post_save.connect(_hand_saved, sender=Hand, dispatch_uid="club.hand_outcomes")
# a flush (transactional tests) or migration may empty the ratings the table pushes keep
post_migrate.connect(seat_ratings_clear, dispatch_uid="club.seat_ratings_migrate")
