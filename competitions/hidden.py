"""What an event hides (games.table.hooks): a duplicate board's hands, replays and tables while any
table still plays it. Its players see their own table; nobody but the staff reads a hand of
it, and no entrant watches another table of it, until every table has finished the board
(or the event is over)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from competitions.models import Entry, Event, Game


def may_watch(*, table: Any, user: Any) -> bool:
    if not table.managed or getattr(user, "is_staff", False):
        return True
    game = Game.objects.filter(table_id=table.pk).select_related("board").first()
    if game is None or game.board is None or game.board.scored or _over(game.event_id):
        return True
    if not getattr(user, "is_authenticated", False) or user.pk in game.players:
        return True
    return not Entry.objects.filter(event_id=game.event_id, user_id=user.pk).exists()


def hidden_hands(*, hand_ids: Iterable[int], user: Any) -> set[int]:
    if getattr(user, "is_staff", False):
        return set()
    running = (Event.Status.SCHEDULED, Event.Status.RUNNING)
    return set(
        Game.objects.filter(
            hand_id__in=list(hand_ids), board__scored=False, event__status__in=running
        ).values_list("hand_id", flat=True)
    )


def _over(event_id: int) -> bool:
    """An event ended early leaves boards unplayed at some tables: nothing is hidden then."""
    return (
        Event.objects.filter(pk=event_id)
        .exclude(status__in=(Event.Status.SCHEDULED, Event.Status.RUNNING))
        .exists()
    )
