"""Room writes and room arithmetic. (Later issues add the table and hand services here.)"""

from __future__ import annotations

from typing import Any

from games.engine.variants import find_variant
from games.models import Room


def room_computed_min_balance(room: Room) -> int:
    """The largest loss one seat can suffer in this room (RULES.md §7 ``min_balance``)."""
    variant = find_variant(room.variant, **(room.options or {}))
    units = variant.max_loss_units(max_multiplier=room.max_multiplier)
    return units * room.base_score * room.coefficient + room.house_take


def room_min_balance(*, room: Room) -> int:
    """The room's override when set, else the computed value."""
    if room.min_balance is not None:
        return room.min_balance
    return room_computed_min_balance(room)


def room_create(**fields: Any) -> Room:
    """Create a room after full validation (variant options checked by the engine)."""
    room = Room(**fields)
    room.full_clean()
    room.save()
    return room
