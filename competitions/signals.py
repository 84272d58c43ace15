"""A hand of an event ended: wake this process's runner so that the standings and the next
table follow at once rather than at its next poll (the runner reads the hand itself)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models.signals import post_save

from competitions.models import Game
from games.api import Hand, wake


def _hand_saved(sender: Any, instance: Hand, **kwargs: Any) -> None:
    if (
        instance.status == Hand.Status.FINISHED
        and Game.objects.filter(hand_id=instance.pk).exists()
    ):
        transaction.on_commit(wake)


post_save.connect(_hand_saved, sender=Hand, dispatch_uid="competitions.hand_finished")
