"""Shared helpers of the event tests: a room, players, an event, and the runner driven with an
injected clock (no waiting on wall clocks)."""

from __future__ import annotations

import datetime
from typing import Any

from django.utils import timezone

from accounts.audit import audit_beans
from accounts.models import BeanEntry
from competitions import arena, runner, selectors, services
from competitions.models import Entry, Event, Game
from games.models import Hand, Table
from tests.support.tables import make_player, make_room, play_to_end

START = timezone.now().replace(microsecond=0) + datetime.timedelta(minutes=5)


def make_event(room: Any, **fields: Any) -> Event:
    defaults: dict[str, Any] = {
        "name": "Club night",
        "room": room,
        "format": "arena",
        "starts_at": START,
        "minutes": 60,
        "min_entrants": 3,
        "entry_fee": 100,
        "prize_bands": "1:60, 2:40",
        "gather_seconds": 0,
        "bot_wait_seconds": 0,
    }
    defaults.update(fields)
    return services.event_create(**defaults)


def entrants(event: Event, count: int, *, beans: int = 10_000) -> list[Any]:
    players = [make_player(beans=beans) for _ in range(count)]
    for player in players:
        services.event_register(event_id=event.pk, user=player)
    return players


def step(event: Event, at: datetime.datetime) -> Event:
    runner.event_step(event_id=event.pk, now=at)
    event.refresh_from_db()
    return event


def live_tables(event: Event) -> list[Table]:
    ids = Game.objects.filter(event=event, hand__status=Hand.Status.ACTIVE).values_list(
        "table_id", flat=True
    )
    return list(Table.objects.filter(pk__in=list(ids)))


def play_all(event: Event) -> int:
    tables = live_tables(event)
    for table in tables:
        play_to_end(table)
    return len(tables)


def arena_recount(event: Event) -> dict[int, arena.Line]:
    """Every entrant's line recomputed from the hands the event counted, in the order they
    ended (the standings must equal it)."""
    order = dict(Entry.objects.filter(event=event, active=True).values_list("user_id", "pk"))
    results = []
    games = Game.objects.filter(event=event, counted=True).select_related("hand")
    for game in games.order_by("hand__finished_at", "pk"):
        for seat, user_id in enumerate(game.players):
            if user_id is not None:
                results.append((user_id, selectors.seat_won(game.hand, seat)))
    return arena.recount(order, results)


def assert_standings_are_the_recount(event: Event) -> None:
    """Every entrant's line (points, wins, hands, streak) is the one the recount of the hands
    gives, and once the event is over its ranks are the recount's order of those who played."""
    lines = arena_recount(event)
    entries = list(Entry.objects.filter(event=event, active=True))
    assert {e.user_id for e in entries} == set(lines)
    for entry in entries:
        assert selectors.line_of(entry) == lines[entry.user_id], entry
    if event.status == Event.Status.FINISHED:
        ranked = sorted((e for e in entries if e.rank is not None), key=lambda e: e.rank)
        recounted = [line.user_id for line in arena.standings(lines.values()) if line.played]
        assert [e.user_id for e in ranked] == recounted


def event_rows_sum(event: Event) -> int:
    return sum(BeanEntry.objects.filter(event_ref=event.ledger_ref).values_list("delta", flat=True))


def assert_audit_clean() -> None:
    report = audit_beans()
    assert report.clean, [str(f) for f in report.findings]


__all__ = ["make_room"]
