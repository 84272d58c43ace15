"""What games publishes to the apps above it: the one module of games, besides the rules engine,
that club and competitions import (docs/architecture.md §1, "How the apps meet").

Inside games the layers hold by import contracts; between the apps a newcomer would otherwise
have to learn which of games' modules he may touch. This module answers that: every name here is
one that club or competitions uses, re-exported from its home and nothing more, so games may
move or split its modules behind it and only this file follows. A name that is not here is
games' own business. pyproject.toml's contract "Club and competitions meet games through
games.api" fails an import of anything else of games from club or competitions (those inside
functions too); ``tests/test_layers.py`` runs it, and checks that every name here has a user.

The names, by what the other apps do with them:

* **Models** they query or join: ``Hand``, ``HandAction``, ``HandPlayer``, ``Seat``,
  ``SocketLease``, ``Table`` (their own models point at games' ``Hand`` and ``Table`` by
  app label, which is no import), and ``VARIANT_LABELS``, the variants' names as pages show them.
* **Reads**: ``hand_state`` (a hand's live state), ``hands_readable`` (which hands' pages a user
  may open), ``table_spectators`` and ``user_live_sockets`` (counted from the socket leases),
  ``lease_seconds`` (how long a lease lasts unrenewed).
* **Writes**, the services another app calls: ``table_deal_for`` (a managed table dealt at
  once: an event's game) and ``table_leave`` (a suspended player stood up).
* **Refusals**: ``ActionRejected`` and its ``ErrorCode``: games' services refuse with them, and
  an app's own refusals extend them, so the consumer shows both alike.
* **The way in**: ``register`` (the hooks an app fills when it starts), ``hooks`` (those an app
  calls itself) and ``wake`` (the alarm of this process's deadline runner).
* **Pushes**: ``Bulletin`` (a region rendered in every language after the commit, for the
  club's chat bubbles and spectator count and the event page) and ``announce`` (puts one in the
  write's outbox, or after the commit outside a write); ``public_group`` (a table's group every
  socket of it joins) and ``page_group`` (an event page's groups).
* **Page sockets**: ``PageConsumer`` and ``PageAdmission``, the socket of a page that is not a
  table (the event page's).
* **Prepared reads**: ``PreparedRead``, a read whose SQL is compiled once, for the read the club
  makes on every push.

Not here: the rules engine. ``games.engine`` is the rules library below every app (it imports no
Django and nothing of the project), so club, competitions and accounts import its own public
API (``games.engine``, not its modules); re-exporting it here would load Django into
competitions' pure rule modules.

Nothing is defined in this module: a name's behaviour, docstring and tests stay in its home.
"""

from __future__ import annotations

from games.live.pages import PageAdmission, PageConsumer
from games.models import VARIANT_LABELS, Hand, HandAction, HandPlayer, Seat, SocketLease, Table
from games.push.deliver import announce
from games.push.frames import page_group, public_group
from games.push.outbox import Bulletin
from games.reads.selectors import hand_state, hands_readable, table_spectators, user_live_sockets
from games.services.hand_deal import table_deal_for
from games.services.presence import lease_seconds
from games.services.seating import table_leave
from games.table.errors import ActionRejected, ErrorCode
from games.table.hooks import hooks, register
from games.table.prepared import PreparedRead
from games.table.wake import wake

__all__ = [
    "VARIANT_LABELS",
    "ActionRejected",
    "Bulletin",
    "ErrorCode",
    "Hand",
    "HandAction",
    "HandPlayer",
    "PageAdmission",
    "PageConsumer",
    "PreparedRead",
    "Seat",
    "SocketLease",
    "Table",
    "announce",
    "hand_state",
    "hands_readable",
    "hooks",
    "lease_seconds",
    "page_group",
    "public_group",
    "register",
    "table_deal_for",
    "table_leave",
    "table_spectators",
    "user_live_sockets",
    "wake",
]
