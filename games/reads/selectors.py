"""Reads of rooms, tables and hands. The live hand state is the replay of the stored record.

``hand_state`` keeps a small per-process cache keyed by (hand id, version, seed commitment):
the version is bumped under the table's row lock on every change and the commitment is unique
per deal (a rolled-back id reused later never matches), so a key never names two different
states and the database stays the truth (a second process or a restart simply replays). Measured
replay cost of a whole hand: about 20-30 ms (qq5/new5/fenzhou5), so each write replays at most
once and every render of a broadcast after it hits the cache.
"""

from __future__ import annotations

import datetime
import threading
from collections.abc import Iterable
from typing import Any

from cachetools import LRUCache
from django.conf import settings
from django.db.models import Count, Exists, FilteredRelation, OuterRef, Q, QuerySet

from games.engine.record import replay
from games.engine.state import HandState
from games.models import (
    Hand,
    HandPlayer,
    InviteMiss,
    Room,
    Seat,
    ServerProcess,
    SocketLease,
    Table,
)
from games.table.hooks import hooks
from games.table.prepared import PreparedRead

_CACHE_SIZE = 512


class _Kept:
    """What this process keeps of hands, the last ``_CACHE_SIZE`` used, shared by threads."""

    def __init__(self) -> None:
        self._entries: LRUCache[Any, Any] = LRUCache(maxsize=_CACHE_SIZE)
        self._lock = threading.Lock()

    def get(self, key: Any) -> Any:
        with self._lock:
            return self._entries.get(key)

    def put(self, key: Any, value: Any) -> None:
        with self._lock:
            self._entries[key] = value

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


_states = _Kept()  # (hand id, version, commitment) -> HandState


def room_list_active() -> QuerySet[Room]:
    return Room.objects.filter(is_active=True).order_by("variant", "coefficient", "name")


# --------------------------------------------------------------------------- hand state


def _key(hand: Hand) -> tuple[int, int, str]:
    return (hand.pk, hand.version, hand.commitment)


def hand_state_cached(hand: Hand) -> HandState | None:
    return _states.get(_key(hand))


def hand_state_remember(hand: Hand, state: HandState) -> None:
    """Remember a committed state (services call this from ``transaction.on_commit``)."""
    _states.put(_key(hand), state)


def hand_state(hand: Hand) -> HandState:
    """The live state of ``hand``: the replay of its record (cached per version)."""
    actions = hand.record.get("actions") or []
    state = hand_state_cached(hand)
    if state is not None and len(state.history) == len(actions):
        return state
    state = replay(hand.record)
    hand_state_remember(hand, state)
    return state


def hand_state_clear_cache() -> None:
    """Forget the hands' states and players this process keeps (as after a restart)."""
    _states.clear()
    _holders.clear()


# --------------------------------------------------------------------------- tables


# read on every move, connect and push: compiled once (games/table/prepared.py)
_TABLE = PreparedRead(
    lambda table_id: Table.objects.select_related("room").filter(pk=table_id).order_by()[:1],
    "table_id",
)
_SEATS = PreparedRead(
    lambda table_id: (
        Seat.objects.filter(table_id=table_id).select_related("user").order_by("index")
    ),
    "table_id",
)
# a move's seats with their users and, on the first seat's row, the table's active hand (one
# statement: the hand's row comes once, not with every seat)
SEATS_AND_ACTIVE_HAND = PreparedRead(
    lambda table_id: (
        Seat.objects.filter(table_id=table_id)
        .annotate(
            active_hand=FilteredRelation(
                "table__hands",
                condition=Q(table__hands__status=Hand.Status.ACTIVE) & Q(index=0),
            )
        )
        .select_related("user", "active_hand")
        .order_by("index")
    ),
    "table_id",
)
_ACTIVE_HAND = PreparedRead(
    lambda table_id: Hand.objects.filter(table_id=table_id, status=Hand.Status.ACTIVE).order_by(
        "-id"
    )[:1],
    "table_id",
)


# by seat alone: the model's ordering by hand would join the hand table for nothing
_HOLDERS = PreparedRead(
    lambda hand_id: (
        HandPlayer.objects.filter(hand_id=hand_id).order_by("seat").values_list("seat", "user_id")
    ),
    "hand_id",
)
# A hand's players are written once, with its deal, and never changed (a seat's later
# occupant is not the hand's player): every move needs them, so each process keeps them,
# under the hand's id and commitment as its states are (an id alone can come back on SQLite
# after a rolled-back deal).
_holders = _Kept()  # (hand id, commitment) -> ((seat, user id), ...)


def hand_holders(*, hand: Hand) -> tuple[tuple[int, int | None], ...]:
    """(seat, user id or None for a bot) of each of the hand's players, in seat order."""
    key = (hand.pk, hand.commitment)
    rows = _holders.get(key)
    if rows is None:
        rows = tuple(_HOLDERS.rows(hand_id=hand.pk))
        if rows:  # none yet: a hand whose deal is not committed; ask again next time
            _holders.put(key, rows)
    return rows


def table_get(*, table_id: int) -> Table | None:
    return _TABLE.first(table_id=table_id)


def table_seats(*, table: Table | int) -> list[Seat]:
    """The table's seats in order, each with its user."""
    return _SEATS.rows(table_id=table if isinstance(table, int) else table.pk)


def table_active_hand(*, table: Table | int) -> Hand | None:
    return _ACTIVE_HAND.first(table_id=table if isinstance(table, int) else table.pk)


def table_current_hand(*, table: Table | int) -> Hand | None:
    """The hand a screen shows: the active one, else the last finished one (its result)."""
    table_id = table if isinstance(table, int) else table.pk
    return Hand.objects.filter(table_id=table_id).order_by("-number", "-redeal").first()


def private_table_of_code(*, code: str, table_id: int | None = None) -> Table | None:
    """The private table whose invite code is ``code`` (and whose id is ``table_id``, when
    given), with its room and host."""
    tables = Table.objects.select_related("room", "host").filter(invite_code=code, is_private=True)
    if table_id is not None:
        tables = tables.filter(pk=table_id)
    return tables.first()


def invite_misses(*, session_key: str, address: str, since: datetime.datetime) -> int:
    """Wrong invite codes tried since ``since`` from the browser session or from the address,
    whichever tried more (an unknown session or address counts none)."""
    recent = InviteMiss.objects.filter(tried_at__gte=since)
    counts = [
        recent.filter(**{field: key}).count()
        for field, key in (("session_key", session_key), ("address", address))
        if key
    ]
    return max(counts, default=0)


def stored_language(*, user: Any) -> str:
    """The language a player's pushes speak: his stored one (the club's hook), else the
    club's."""
    return hooks.languages_of(user_ids=[user.pk]).get(user.pk) or settings.LANGUAGE_CODE


def seat_of_user(*, table: Table | int, user: Any) -> Seat | None:
    """The user's seat at the table, or None (spectator, anonymous)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    table_id = table if isinstance(table, int) else table.pk
    return Seat.objects.filter(table_id=table_id, user_id=user.pk).first()


def user_live_sockets(
    *, table_id: int, user_id: int, now: datetime.datetime, lease_seconds: int
) -> int:
    """How many sockets ``user_id`` has open at the table: leases renewed within the lease
    (games.services.presence)."""
    cutoff = now - datetime.timedelta(seconds=lease_seconds)
    return SocketLease.objects.filter(
        table_id=table_id, user_id=user_id, renewed_at__gte=cutoff
    ).count()


def table_spectators(*, table_id: int, now: datetime.datetime, lease_seconds: int) -> int:
    """How many users have a socket open at the table and hold no seat there. A process that
    stops takes its spectators with its leases."""
    cutoff = now - datetime.timedelta(seconds=lease_seconds)
    seated = Seat.objects.filter(table_id=table_id, user__isnull=False).values("user_id")
    return (
        SocketLease.objects.filter(table_id=table_id, renewed_at__gte=cutoff)
        .exclude(user_id__in=seated)
        .values("user_id")
        .distinct()
        .count()
    )


def user_live_sockets_anywhere(*, user_id: int, now: datetime.datetime, lease_seconds: int) -> int:
    """How many table sockets ``user_id`` has open at all tables, on every process."""
    cutoff = now - datetime.timedelta(seconds=lease_seconds)
    return SocketLease.objects.filter(user_id=user_id, renewed_at__gte=cutoff).count()


def tables_with_dead_leases(*, now: datetime.datetime, lease_seconds: int) -> list[int]:
    """Tables holding a lease nobody renewed within the lease: its process stopped or died."""
    cutoff = now - datetime.timedelta(seconds=lease_seconds)
    return list(
        SocketLease.objects.filter(renewed_at__lt=cutoff)
        .order_by("table_id")
        .values_list("table_id", flat=True)
        .distinct()
    )


def leases_present(*, channel_names: list[str]) -> set[str]:
    """Which of these sockets have a lease (live or not yet swept)."""
    return set(
        SocketLease.objects.filter(channel_name__in=channel_names).values_list(
            "channel_name", flat=True
        )
    )


def hand_players(*, hand: Hand) -> list[HandPlayer]:
    return list(HandPlayer.objects.filter(hand=hand).select_related("user").order_by("seat"))


def table_list_open(*, room: Room | None = None) -> QuerySet[Table]:
    """Tables for the lobby, annotated with ``free_seats`` and ``seated`` (humans + bots);
    waiting tables with free seats first."""
    qs = Table.objects.select_related("room").annotate(
        free_seats=Count("seats", filter=Q(seats__user__isnull=True, seats__is_bot=False)),
        seated=Count("seats", filter=Q(seats__user__isnull=False) | Q(seats__is_bot=True)),
    )
    if room is not None:
        qs = qs.filter(room=room)
    return qs.filter(room__is_active=True, managed=False).order_by("status", "-seated", "id")


def table_list_joinable(*, room: Room) -> QuerySet[Table]:
    """Waiting tables of the room with at least one free seat, fullest first."""
    return (
        table_list_open(room=room)
        .filter(status=Table.Status.WAITING, free_seats__gt=0)
        .order_by("-seated", "id")
    )


def user_recent_tablemates(*, user: Any, hands: int = 5) -> set[int]:
    """Ids of the humans who shared one of the user's last ``hands`` hands."""
    recent = list(
        HandPlayer.objects.filter(user=user)
        .order_by("-hand_id")
        .values_list("hand_id", flat=True)[:hands]
    )
    mates = HandPlayer.objects.filter(hand_id__in=recent, user__isnull=False).exclude(user=user)
    return set(mates.values_list("user_id", flat=True))


def user_hand_rows(*, user: Any) -> QuerySet[HandPlayer]:
    """The user's seat in each of his hands, newest first: one row per hand, its last deal
    (a classic3 deal everyone passed is dealt again as the same hand, ``Hand.redeal``); not a
    hand a hook hides from him (an event's: only managed tables' hands may be hidden)."""
    dealt_again = Hand.objects.filter(
        table=OuterRef("hand__table"),
        number=OuterRef("hand__number"),
        redeal__gt=OuterRef("hand__redeal"),
    )
    rows = HandPlayer.objects.filter(user=user)
    managed = rows.filter(hand__table__managed=True).values_list("hand_id", flat=True)
    hidden = hooks.hidden_hands(hand_ids=list(managed), user=user)
    return (
        rows.exclude(Exists(dealt_again))
        .exclude(hand_id__in=hidden)
        .select_related("hand__table__room")
        .order_by("-hand__created_at", "-hand_id")
    )


def user_hands(*, user: Any) -> QuerySet[Hand]:
    """The user's hands, newest first (history)."""
    return Hand.objects.filter(players__user=user).select_related("table__room").order_by("-id")


def hands_readable(*, hand_ids: Iterable[int], user: Any) -> set[int]:
    """Which of these hands' pages, records and verify pages ``user`` may open: a public
    table's hands are everyone's; a private table's only its players' and the staff's; none
    while a hook hides it (games.table.hooks)."""
    ids = set(hand_ids)
    hands = Hand.objects.filter(pk__in=ids)
    if not getattr(user, "is_staff", False):
        readable = Q(table__is_private=False)
        if getattr(user, "is_authenticated", False):
            readable |= Q(players__user_id=user.pk)
        hands = hands.filter(readable)
    readable = set(hands.values_list("pk", flat=True).distinct())
    return readable - hooks.hidden_hands(hand_ids=readable, user=user) if readable else readable


def tables_in_play_by_variant() -> dict[str, int]:
    """How many tables are playing a hand, per variant (the metrics, the operators' view)."""
    rows = Table.objects.filter(status=Table.Status.PLAYING).values_list("room__variant")
    return dict(rows.annotate(count=Count("pk")).values_list("room__variant", "count"))


def hands_active_by_variant() -> dict[str, int]:
    rows = Hand.objects.filter(status=Hand.Status.ACTIVE).values_list("table__room__variant")
    return dict(rows.annotate(count=Count("pk")).values_list("table__room__variant", "count"))


def processes_seen(*, since: datetime.datetime) -> list[ServerProcess]:
    """The served processes whose heartbeat came after ``since``, the most recent first."""
    return list(ServerProcess.objects.filter(seen_at__gte=since).order_by("-seen_at"))


def live_sockets(*, now: datetime.datetime, lease_seconds: int) -> int:
    """Open table sockets across the processes (their leases still renewed)."""
    since = now - datetime.timedelta(seconds=lease_seconds)
    return SocketLease.objects.filter(renewed_at__gte=since).count()
