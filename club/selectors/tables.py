"""What a table reads of the club: its spectators (their sockets' leases), the languages one
push renders in, each player's stored language, and the tables to watch."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.utils import timezone

from accounts.models import User
from club.models import PlayerSettings
from games.api import (
    PreparedRead,
    Seat,
    SocketLease,
    Table,
    lease_seconds,
    table_spectators,
    user_live_sockets,
)


def spectator_count(*, table_id: int) -> int:
    """Distinct signed-in users with a socket open at the table who hold no seat there: their
    sockets' leases (games/services/presence.py), so every serving process counts the same
    spectators, and a process that stops or dies takes its spectators with it."""
    return table_spectators(table_id=table_id, now=timezone.now(), lease_seconds=lease_seconds())


def spectator_sockets(*, table_id: int, user_id: int) -> int | None:
    """How many sockets ``user_id`` has open at the table as a spectator; None when he holds a
    seat there (a player's sockets never change the count)."""
    if Seat.objects.filter(table_id=table_id, user_id=user_id).exists():
        return None
    return user_live_sockets(
        table_id=table_id,
        user_id=user_id,
        now=timezone.now(),
        lease_seconds=lease_seconds(),
    )


def _at_table_languages(table_id: int) -> Any:
    """(user id, stored language) of everyone seated at or watching the table: one shape
    whatever the seats, so that it compiles once. A watcher is anyone with a socket's lease at
    the table (one of a process that died, until swept, only adds a rendering). The users whose
    key is in one UNION ALL of the two lookups by the table's key: PostgreSQL fetches them by
    their key, where asking for users in one set or the other scanned every user of the club
    (0.3 ms a read against 0.8 with 5,000 members). No order: a seat's default one joins its
    table and room."""
    seated = Seat.objects.filter(table_id=table_id, user__isnull=False).order_by()
    watching = SocketLease.objects.filter(table_id=table_id).order_by()
    at_table = seated.values("user_id").union(watching.values("user_id"), all=True)
    return User.objects.filter(pk__in=at_table).values_list("pk", "club_settings__language")


_AT_TABLE_LANGUAGES = PreparedRead(_at_table_languages, "table_id")


def push_languages(
    *, table_id: int, seated_user_ids: Iterable[int]
) -> tuple[dict[int, str], set[str]]:
    """What one push of the table renders in, in one query: each seated player's language
    (the one he stored, else the club's default), and the languages its spectators read (an
    empty set when nobody watches: no public frame is rendered then)."""
    shipped = dict(settings.LANGUAGES)
    seated = set(seated_user_ids)
    players: dict[int, str] = {}
    spectators: set[str] = set()
    for user_id, stored in _AT_TABLE_LANGUAGES.rows(table_id=table_id):
        language = stored if stored in shipped else settings.LANGUAGE_CODE
        if user_id in seated:
            players[user_id] = language
        else:
            spectators.add(language)
    return players, spectators


def tables_to_watch(*, limit: int = 30) -> list[Any]:
    """Tables with a hand in play, busiest rooms first, for the lobby's Watch list."""
    qs = Table.objects.filter(status=Table.Status.PLAYING, room__is_active=True, managed=False)
    if any(f.name == "is_private" for f in Table._meta.get_fields()):
        qs = qs.filter(is_private=False)
    return list(qs.select_related("room").order_by("room__name", "-changed_at")[:limit])


def languages_of(*, user_ids: Iterable[int]) -> dict[int, str]:
    """Each player's stored language (player settings), for the players who stored one that
    the club ships; a table push renders a seat's regions in its player's language."""
    shipped = dict(settings.LANGUAGES)
    rows = PlayerSettings.objects.filter(user_id__in=list(user_ids)).exclude(language="")
    return {
        user_id: language
        for user_id, language in rows.values_list("user_id", "language")
        if language in shipped
    }
