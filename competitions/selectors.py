"""Reads of events: lists, standings (from the entrants' cached lines, which a recount from
the hands reproduces), who sits where, what a board shows."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from django.db.models import Q, QuerySet
from django.utils import timezone

from club.selectors.ratings import ratings_of
from competitions import arena, duplicate
from competitions.models import Board, Entry, Event, Format, Game
from games.api import Hand


def event_lists() -> dict[str, list[Event]]:
    """Upcoming, running and recently finished (or cancelled) events."""
    events = Event.objects.select_related("room")
    return {
        "running": list(events.filter(status=Event.Status.RUNNING).order_by("starts_at")),
        "upcoming": list(events.filter(status=Event.Status.SCHEDULED).order_by("starts_at")[:30]),
        "finished": list(
            events.filter(status__in=[Event.Status.FINISHED, Event.Status.CANCELLED]).order_by(
                "-starts_at"
            )[:30]
        ),
    }


def active_entries(*, event: Event) -> QuerySet[Entry]:
    return Entry.objects.filter(event=event, active=True).select_related("user")


def line_of(entry: Entry) -> arena.Line:
    return arena.Line(
        user_id=entry.user_id,
        points=entry.points,
        wins=entry.wins,
        played=entry.played,
        streak=entry.streak,
        joined=entry.pk,  # registration order
    )


def entry_percent(entry: Entry) -> Fraction:
    return duplicate.percent(Fraction(entry.matchpoints), Fraction(entry.matchpoints_top))


def _duplicate_key(entry: Entry) -> tuple[Fraction, Fraction, int]:
    return (-entry_percent(entry), -Fraction(entry.matchpoints), entry.pk)


def standings(*, event: Event) -> list[Entry]:
    """The active entrants, best first (a total order: ties broken by registration)."""
    entries = list(active_entries(event=event))
    if event.format == Format.DUPLICATE:
        return sorted(entries, key=_duplicate_key)
    order = {line.user_id: i for i, line in enumerate(arena.standings(map(line_of, entries)))}
    return sorted(entries, key=lambda e: order[e.user_id])


def final_order(*, event: Event) -> list[Entry]:
    """Who is ranked at the end: the active entrants who finished at least one hand."""
    return [e for e in standings(event=event) if e.played > 0]


@dataclass(frozen=True)
class Row:
    rank: int
    entry: Entry
    score: str  # points, or the percentage
    at_table: int | None
    rating: Any  # the club's skill rating in the event's variant (shown, provisional)


def standing_rows(*, event: Event) -> list[Row]:
    tables = seated_tables(event=event)
    entries = standings(event=event)
    ratings = ratings_of(user_ids=[e.user_id for e in entries], variant_key=event.room.variant)
    rows = []
    for i, entry in enumerate(entries, start=1):
        if event.format == Format.DUPLICATE:
            score = f"{float(entry_percent(entry)):.1f}%"
        else:
            score = str(entry.points)
        rows.append(
            Row(
                rank=entry.rank or i,
                entry=entry,
                score=score,
                at_table=tables.get(entry.user_id),
                rating=ratings.get(entry.user_id),
            )
        )
    return rows


def live_games(*, event: Event) -> QuerySet[Game]:
    return Game.objects.filter(event=event, finished_at__isnull=True, void=False).select_related(
        "table", "hand", "board"
    )


def seated_tables(*, event: Event) -> dict[int, int]:
    """user id -> the table of the event he is playing at now."""
    out: dict[int, int] = {}
    for game in live_games(event=event):
        for user_id in game.players:
            if user_id is not None:
                out[user_id] = game.table_id
    return out


def entry_at_table(*, entry: Entry) -> bool:
    return entry.user_id in seated_tables(event=entry.event)


def user_entry(*, event: Event, user: Any) -> Entry | None:
    if not getattr(user, "is_authenticated", False):
        return None
    return Entry.objects.filter(event=event, user_id=user.pk).first()


def boards_by_round(*, event: Event) -> list[tuple[int, list[Board], bool]]:
    """(round, its boards, whether the round is over: its seeds are public)."""
    rounds: dict[int, list[Board]] = {}
    for board in Board.objects.filter(event=event).order_by("round", "number"):
        rounds.setdefault(board.round, []).append(board)
    return [(r, boards, all(b.scored for b in boards)) for r, boards in sorted(rounds.items())]


def previous_mates(*, event: Event) -> dict[int, set[int]]:
    """user id -> the humans he shared a table with in this event."""
    mates: dict[int, set[int]] = {}
    for players in Game.objects.filter(event=event).values_list("players", flat=True):
        humans = [p for p in players if p is not None]
        for p in humans:
            mates.setdefault(p, set()).update(q for q in humans if q != p)
    return mates


def events_for_lobby() -> list[Event]:
    now = timezone.now()
    return list(
        Event.objects.filter(
            Q(status=Event.Status.RUNNING) | Q(status=Event.Status.SCHEDULED, starts_at__gte=now)
        )
        .select_related("room")
        .order_by("starts_at")[:5]
    )


def game_of_table(*, table_id: int) -> Game | None:
    return Game.objects.filter(table_id=table_id).select_related("event", "board").first()


def events_running() -> list[Event]:
    return list(Event.objects.filter(status=Event.Status.RUNNING).order_by("starts_at"))


def seat_won(hand: Hand, seat: int) -> bool | None:
    """Whether the seat's side won the hand (None: no result, everyone passed)."""
    result = hand.result or {}
    summary = result.get("summary") or {}
    if "units" not in result:
        return None
    teams = summary.get("teams") or {}
    side = "landlord" if seat in (teams.get("landlord") or []) else "farmer"
    return summary.get("winner_side") == side


def seat_units(hand: Hand, seats: int) -> list[str]:
    """Each seat's units (0 for every seat of a deal everyone passed)."""
    units = (hand.result or {}).get("units")
    return [str(u) for u in units] if units else ["0"] * seats
