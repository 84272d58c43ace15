"""What the club app adds to a table, without games importing it (layers point one way:
games/engine <- games <- club). The club registers its functions here when it starts
(``club.apps.ClubConfig.ready``); games calls them. The defaults are what a table does
without a club: every reader gets the club's default language, nobody is suspended, sockets
(opened, closed, expired) have nothing more to record, chat is refused, no seat shows a rating,
every table may be watched and every hand read, and the deadline runner's rounds do nothing
more."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, fields
from typing import Any

from django.conf import settings

from games.table.errors import ActionRejected, ErrorCode


def _default_language(**_kwargs: Any) -> str:
    return settings.LANGUAGE_CODE


def _push_languages(
    *, table_id: int, seated_user_ids: Iterable[int]
) -> tuple[dict[int, str], set[str]]:
    return {}, {settings.LANGUAGE_CODE}


async def _nothing(consumer: Any, **_kwargs: Any) -> None:
    return None


async def _no_chat(consumer: Any, intent: Any) -> None:
    raise ActionRejected.of(ErrorCode.UNKNOWN_ACT, detail="no chat without the club")


@dataclass
class TableHooks:
    # may this user sit down? (an operator may have suspended him)
    user_may_sit: Callable[..., bool] = lambda *, user: True
    # the language a socket reads: user, cookie, accept_language
    socket_language: Callable[..., str] = _default_language
    # one push's languages: each seated player's, and the set its spectators read
    push_languages: Callable[..., tuple[dict[int, str], set[str]]] = _push_languages
    # the stored languages of some players: user_ids -> {user id: language}
    languages_of: Callable[..., dict[int, str]] = lambda *, user_ids: {}
    # a table socket opened (seated=...) or closed; the chat intent
    socket_opened: Callable[..., Awaitable[None]] = _nothing
    socket_closed: Callable[..., Awaitable[None]] = _nothing
    chat: Callable[[Any, Any], Awaitable[None]] = _no_chat
    # the sweep deleted dead sockets' leases at a table (after commit): table_id, user_ids
    leases_expired: Callable[..., None] = lambda *, table_id, user_ids: None
    # the skill ratings shown next to the seated players' names (read once per push):
    # user_ids, variant_key -> {user id: an object with ``shown`` (int), ``provisional``}
    ratings_of: Callable[..., dict[int, Any]] = lambda *, user_ids, variant_key: {}
    # the deadline runner finished a round (the club begins the seasons that are due)
    runner_round: Callable[[], Any] = lambda: None
    # may this user watch the table now? (an app may hide a table for a while)
    may_watch: Callable[..., bool] = lambda *, table, user: True
    # which of these hands' records, replays and verify pages the user may not open yet
    hidden_hands: Callable[..., set[int]] = lambda *, hand_ids, user: set()
    # HTML shown above a table's screen, and in the lobby
    table_banner: Callable[..., str] = lambda *, table, user: ""
    lobby_banner: Callable[..., str] = lambda *, user: ""
    # the deadline runner's other work: do what is due, return seconds until more is (or None)
    due_work: Callable[..., float | None] = lambda *, now: None


hooks = TableHooks()


def register(**functions: Callable[..., Any]) -> None:
    """Replace hooks by name (an unknown name is a programming error)."""
    known = {f.name for f in fields(TableHooks)}
    for name, function in functions.items():
        if name not in known:
            raise TypeError(f"no table hook called {name!r}")
        setattr(hooks, name, function)
