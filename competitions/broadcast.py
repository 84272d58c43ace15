"""Pushes of an event page after commit, announced as bulletins (games.push.deliver.announce):
the shared regions (head, standings, tables) to everyone watching the event, a player's own
region to him alone, each rendered in every language by the push. The page's socket
(competitions.consumers) only relays them."""

from __future__ import annotations

import functools
from collections.abc import Iterable

from accounts.models import User
from competitions import pages
from competitions.models import Entry, Event
from games.api import Bulletin, announce, page_group

PAGE = "event"


def group(event_id: int) -> str:
    return page_group(PAGE, event_id)


def user_group(event_id: int, user_id: int) -> str:
    return page_group(PAGE, event_id, user_id)


def event_changed_on_commit(event_id: int, *, everyone: bool = False) -> None:
    """After commit: the shared regions; with ``everyone``, every entrant's own region too (the
    event started, ended or was cancelled)."""
    users = None
    if everyone:
        users = list(Entry.objects.filter(event_id=event_id).values_list("user_id", flat=True))
    _announce(event_id, shared=True, user_ids=users or [])


def player_moved_on_commit(event_id: int, user_ids: Iterable[int]) -> None:
    """After commit: each player's own region (where he plays now, his actions), to his
    sockets alone."""
    _announce(event_id, shared=False, user_ids=list(user_ids))


def _announce(event_id: int, *, shared: bool, user_ids: list[int]) -> None:
    # read once after the commit, for every language and player of the push
    @functools.cache
    def event() -> Event:
        return Event.objects.select_related("room").get(pk=event_id)

    @functools.cache
    def users() -> dict[int, User]:
        return User.objects.in_bulk(user_ids)

    def own(user_id: int) -> str:
        return pages.render_own(event=event(), user=users()[user_id])

    if shared:
        announce(Bulletin(group(event_id), lambda: pages.render_shared(event=event())))
    for user_id in user_ids:
        announce(Bulletin(user_group(event_id, user_id), functools.partial(own, user_id)))
