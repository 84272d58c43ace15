"""The event screens' regions, one partial each with a stable id, shared by the page, its
htmx requests and the socket's pushes: ``event-head`` (status, times, boards and their
commitments), ``event-standings`` (and the podium), ``event-tables`` (tables in play) and
``event-join`` (registration, for whoever has not entered), ``event-own`` (the reader's entry,
his table, his buttons: it hides ``event-join``). Also the banners the games hooks
show above an event's table and in the lobby."""

from __future__ import annotations

from typing import Any

from django.template.loader import render_to_string

from competitions import selectors
from competitions.hidden import may_watch
from competitions.models import Event, Format

TEMPLATE = "competitions/event.html"


def shared_context(*, event: Event) -> dict[str, Any]:
    rows = selectors.standing_rows(event=event)
    games = list(selectors.live_games(event=event))
    return {
        "event": event,
        "is_arena": event.format == Format.ARENA,
        "rows": rows,
        "podium": rows[:3] if event.status == Event.Status.FINISHED else [],
        "games": games,
        "rounds": selectors.boards_by_round(event=event),
    }


def own_context(*, event: Event, user: Any) -> dict[str, Any]:
    entry = selectors.user_entry(event=event, user=user)
    table = selectors.seated_tables(event=event).get(user.pk) if entry is not None else None
    return {"event": event, "entry": entry, "my_table": table, "user": user}


def render_shared(*, event: Event) -> str:
    context = shared_context(event=event)
    return "".join(
        render_to_string(f"{TEMPLATE}#{name}", {**context, "oob": True})
        for name in ("event-head", "event-join", "event-standings", "event-tables")
    )


def render_own(*, event: Event, user: Any) -> str:
    return render_to_string(
        f"{TEMPLATE}#event-own", {**own_context(event=event, user=user), "oob": True}
    )


def watchable(games: list[Any], user: Any) -> list[Any]:
    return [g for g in games if may_watch(table=g.table, user=user)]


def table_banner(*, table: Any, user: Any) -> str:
    """Above an event's table: which event, a link back, and (for its players) the event's
    socket, which sends them on to their next table."""
    if not table.managed:
        return ""
    game = selectors.game_of_table(table_id=table.pk)
    if game is None:
        return ""
    playing = getattr(user, "is_authenticated", False) and user.pk in game.players
    return render_to_string(
        "competitions/table_banner.html", {"event": game.event, "game": game, "playing": playing}
    )


def lobby_banner(*, user: Any) -> str:
    events = selectors.events_for_lobby()
    return render_to_string("competitions/lobby_banner.html", {"events": events, "user": user})
