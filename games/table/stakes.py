"""Room and table arithmetic (reads only): the stakes, rule options, seconds and minimum
balance of a table's next deal (docs/rules.md §7), the level its bots play at, the time for a
hand's pending decision, and the disconnect grace."""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any

from django.conf import settings

from games.engine.beans import RoomStakes
from games.engine.bot import BotLevel
from games.engine.state import PHASE_GRAB, PHASE_PARTNER, PHASE_PLAY, HandState
from games.engine.variants import find_variant
from games.models import Hand, Room, Table


def disconnect_grace_seconds() -> int:
    return settings.DDZ_DISCONNECT_GRACE_SECONDS


def disconnect_grace() -> datetime.timedelta:
    return datetime.timedelta(seconds=disconnect_grace_seconds())


def room_computed_min_balance(room: Room) -> int:
    """The largest loss one seat can suffer in this room (docs/rules.md §7 ``min_balance``)."""
    return room.computed_min_balance


def room_min_balance(*, room: Room) -> int:
    """The room's override when set, else the computed value."""
    return room.effective_min_balance


def table_options(table: Table) -> dict[str, Any]:
    """The rule options of the table's next deal: the room's, with a private table's host
    choices for the options the room lets hosts set."""
    options = dict(table.room.options or {})
    if table.is_private:
        chosen = (table.settings or {}).get("options") or {}
        for name in table.room.host_options or []:
            if name in chosen:
                options[name] = chosen[name]
    return options


def table_stakes(table: Table) -> RoomStakes:
    """The stakes of the table's next deal (a private table may carry an operator's coefficient)."""
    stakes = table.room.stakes
    coefficient = (table.settings or {}).get("coefficient") if table.is_private else None
    if coefficient:
        stakes = dataclasses.replace(stakes, coefficient=int(coefficient))
    return stakes


def table_seconds(table: Table) -> tuple[int, int]:
    """(turn seconds, bid seconds) of the table's next deal."""
    chosen = (table.settings or {}) if table.is_private else {}
    return (
        int(chosen.get("turn_seconds") or table.room.turn_seconds),
        int(chosen.get("bid_seconds") or table.room.bid_seconds),
    )


def table_bot_level(table: Table) -> BotLevel:
    """How the table's house bots play: the level pinned in its settings (an event's table
    takes its duplicate board's, so every table of a board faces the same bots), else the
    room's, read at each bot move (an operator's change reaches tables in play)."""
    return BotLevel((table.settings or {}).get("bot_level") or table.room.bot_level)


def table_min_balance(table: Table) -> int:
    """Beans needed to sit at this table: the room's minimum, or more when a private table's
    options or stakes allow a larger loss."""
    room = table.room
    if not table.is_private or not table.settings:
        return room_min_balance(room=room)
    stakes = table_stakes(table)
    variant = find_variant(room.variant, **table_options(table))
    units = variant.max_loss_units(max_multiplier=room.max_multiplier)
    computed = units * stakes.base_score * stakes.coefficient + stakes.house_take
    return max(computed, room_min_balance(room=room))


# docs/rules.md §2.5: the new5 grab and partner windows are 10 s (at most; a room may be quicker).
_PHASE_MAX_SECONDS = {PHASE_GRAB: 10, PHASE_PARTNER: 10}


def decision_seconds(room: Room, state: HandState, hand: Hand | None = None) -> int:
    """The time for the pending decision: turn seconds in play, bid seconds otherwise, as the
    hand snapshotted them at the deal (the room's for hands dealt before the snapshot)."""
    turn = (hand.turn_seconds if hand is not None else None) or room.turn_seconds
    bid = (hand.bid_seconds if hand is not None else None) or room.bid_seconds
    if state.phase == PHASE_PLAY:
        return int(turn)
    return min(int(bid), _PHASE_MAX_SECONDS.get(state.phase, bid))
