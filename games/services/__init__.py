"""Every write of rooms, tables, seats and hands, one module per part of a table's life:

* ``base``: what every write shares (transaction, table lock, version bump, the outbox);
* ``seating``: rooms, tables, seats, bots and presence, through the model of games/table/life.py;
* ``hand_deal``: dealing a new hand, absent and broke players stood up first;
* ``hand_moves``: a player's actions and 托管 in a hand;
* ``hand_run``: one call's changes to a hand, saved in one round trip, and the next deadline;
* ``hand_deadlines``: the bots' replies and what is due when a deadline passes;
* ``hand_finish``: settling a finished hand through the ledger;
* ``private``: private tables and seat moves between hands;
* ``presence``: the socket leases behind a seat's presence.

Each service is one transaction that locks the table row first, calls the engine, appends
``HandAction`` rows, settles a finished hand through the ledger and records what changed in
its outbox, pushed after commit (games/push/). No game state lives in process memory: any
process serves any table from the database. Refusals are
``games.table.errors.ActionRejected`` (code + translated message).
"""

from games.services.hand_deadlines import apply_deadline, hand_decide_bots
from games.services.hand_deal import hand_start, table_deal_for
from games.services.hand_moves import hand_submit_action, seat_set_autoplay
from games.services.hand_run import BotReplies, HandRun
from games.services.processes import process_beat
from games.services.seating import (
    Presence,
    bot_fill_seconds,
    room_create,
    seat_connect,
    seat_disconnect,
    table_add_bot,
    table_create,
    table_expire_leases,
    table_fill_idle,
    table_fill_with_bots,
    table_join,
    table_leave,
    table_quick_join,
    table_remove_bot,
)

__all__ = [
    "BotReplies",
    "HandRun",
    "Presence",
    "apply_deadline",
    "bot_fill_seconds",
    "hand_decide_bots",
    "hand_start",
    "hand_submit_action",
    "process_beat",
    "room_create",
    "seat_connect",
    "seat_disconnect",
    "seat_set_autoplay",
    "table_add_bot",
    "table_create",
    "table_deal_for",
    "table_expire_leases",
    "table_fill_idle",
    "table_fill_with_bots",
    "table_join",
    "table_leave",
    "table_quick_join",
    "table_remove_bot",
]
