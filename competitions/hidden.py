"""What an event hides (games.hooks): a duplicate board's hands, replays and tables while any
table still plays it. Its players see their own table; nobody but the staff reads a hand of
it, and no entrant watches another table of it, until every table has finished the board."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from competitions.models import Entry, Game


def may_watch(*, table: Any, user: Any) -> bool:
    if not table.managed or getattr(user, "is_staff", False):
        return True
    game = Game.objects.filter(table_id=table.pk).select_related("board").first()
    if game is None or game.board is None or game.board.scored:
        return True
    if not getattr(user, "is_authenticated", False) or user.pk in game.players:
        return True
    return not Entry.objects.filter(event_id=game.event_id, user_id=user.pk).exists()


def hidden_hands(*, hand_ids: Iterable[int], user: Any) -> set[int]:
    if getattr(user, "is_staff", False):
        return set()
    return set(
        Game.objects.filter(hand_id__in=list(hand_ids), board__scored=False).values_list(
            "hand_id", flat=True
        )
    )
