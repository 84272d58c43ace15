"""The events' due work, run by the deadline runner of every process (games.table.hooks.due_work):
create scheduled events, start events (or cancel those short of entrants), count finished
hands, form arena tables, deal duplicate boards and rounds, end events on time.

Everything is read from the database and each event's step runs under its row lock (``SKIP
LOCKED`` on PostgreSQL: an event another process is stepping is left to it), so a restart or a
``kill -9`` loses nothing and two processes never start the same round twice (the unique
boards and games refuse it anyway). What a step decides, it writes through
competitions/services.py.
"""

from __future__ import annotations

import datetime
import logging
import zoneinfo

from django.conf import settings
from django.db import DatabaseError, connection, transaction

from competitions import arena, broadcast, duplicate, schedule, selectors, services
from competitions.models import Board, Entry, Event, Format, Game, Schedule
from games.api import Hand, Seat
from games.engine import find_variant

logger = logging.getLogger(__name__)

# how often a running event is looked at when nothing else is due
RUNNING_POLL_SECONDS = 1.0
CANCELLED_SHORT = "min_entrants"  # the reason of an event short of entrants at its start


def run_due(*, now: datetime.datetime) -> float | None:
    """Do what is due at ``now``; seconds until something more is (None: nothing planned)."""
    schedules_create(now=now)
    for event_id in Event.objects.filter(
        status__in=[Event.Status.SCHEDULED, Event.Status.RUNNING], starts_at__lte=now
    ).values_list("pk", flat=True):
        try:
            event_step(event_id=event_id, now=now)
        except DatabaseError:
            logger.exception("event %s: step failed; will retry", event_id)
    return _next_due(now=now)


def _next_due(*, now: datetime.datetime) -> float | None:
    if Event.objects.filter(status=Event.Status.RUNNING).exists():
        return RUNNING_POLL_SECONDS
    first = (
        Event.objects.filter(status=Event.Status.SCHEDULED)
        .order_by("starts_at")
        .values_list("starts_at", flat=True)
        .first()
    )
    return None if first is None else max(0.0, (first - now).total_seconds())


def schedules_create(*, now: datetime.datetime) -> int:
    """The events of every active schedule whose registration has opened; returns how many
    were created (the unique schedule and start make a second creation a no-op)."""
    created = 0
    tz = zoneinfo.ZoneInfo(settings.TIME_ZONE)
    for plan in Schedule.objects.filter(is_active=True).select_related("room"):
        until = now + datetime.timedelta(hours=plan.open_hours)
        after = plan.created_until or now
        for start in schedule.occurrences(
            cadence=plan.cadence,
            at=plan.time_of_day,
            weekday=plan.weekday,
            tz=tz,
            after=after,
            until=until,
        ):
            created += services.event_create_scheduled(plan=plan, starts_at=start)
        services.schedule_advance(plan=plan, until=until)
    return created


def event_step(*, event_id: int, now: datetime.datetime) -> None:
    skip = connection.features.has_select_for_update_skip_locked
    with transaction.atomic():
        event = services.lock_event(event_id, skip_locked=skip)
        if event is None or event.status not in (Event.Status.SCHEDULED, Event.Status.RUNNING):
            return
        if event.status == Event.Status.SCHEDULED:
            _start(event, now=now)
        elif event.format == Format.ARENA:
            _arena_step(event, now=now)
        else:
            _duplicate_step(event, now=now)


def event_end_now(*, event_id: int, now: datetime.datetime) -> bool:
    """An operator ends a running event at once: the hands finished so far count (a duplicate
    board only where every table finished it), those in play do not; then ranks and prizes as
    at a normal end. Returns whether it ended."""
    with transaction.atomic():
        event = services.lock_event(event_id)
        if event is None or event.status != Event.Status.RUNNING:
            return False
        if event.format == Format.ARENA:
            _arena_count(event, now=now)
        else:
            _duplicate_record(event, now=now)
        services.games_void_unfinished(event=event)
        services.finish_locked(event, now=now)
    return True


def _start(event: Event, *, now: datetime.datetime) -> None:
    if selectors.active_entries(event=event).count() < event.min_entrants:
        services.cancel_locked(event, reason=CANCELLED_SHORT, now=now)
        return
    services.event_begin(event=event, now=now)
    if event.format == Format.ARENA:
        _arena_step(event, now=now)
    else:
        _round_start(event, 1, now=now)
    broadcast.event_changed_on_commit(event.pk, everyone=True)


# --------------------------------------------------------------------------- finished hands


def _finished_games(event: Event) -> list[Game]:
    """Games whose hand is over and not yet recorded, in the order the hands ended."""
    return list(
        Game.objects.filter(event=event, finished_at__isnull=True, void=False)
        .filter(hand__status=Hand.Status.FINISHED)
        .select_related("hand")
        .order_by("hand__finished_at", "pk")
    )


# --------------------------------------------------------------------------- arena


def _arena_step(event: Event, *, now: datetime.datetime) -> None:
    changed = _arena_count(event, now=now)
    if now >= event.ends_at:
        services.games_void_unfinished(event=event)
        services.finish_locked(event, now=now)
        return
    if now < event.pairing_stops_at:
        changed = _arena_pair(event, now=now) or changed
    if changed:
        broadcast.event_changed_on_commit(event.pk)


def _arena_count(event: Event, *, now: datetime.datetime) -> bool:
    games = _finished_games(event)
    entries = {e.user_id: e for e in Entry.objects.filter(event=event)}
    for game in games:
        hand = game.hand
        if hand.finished_at is not None and hand.finished_at > event.ends_at:
            services.game_void(game=game)  # over after the end: does not count
            continue
        services.game_arena_count(game=game, entries=entries, now=now)
    return bool(games)


def _arena_pair(event: Event, *, now: datetime.datetime) -> bool:
    ranking = {e.user_id: i for i, e in enumerate(selectors.standings(event=event))}
    busy = set(
        Seat.objects.filter(room=event.room, user__isnull=False).values_list("user_id", flat=True)
    )
    pool = [
        arena.Waiting(
            user_id=e.user_id,
            rank=ranking[e.user_id],
            waited=(now - e.waiting_since).total_seconds(),
            last_mates=frozenset(e.last_mates or ()),
        )
        for e in Entry.objects.filter(
            event=event, active=True, paused=False, waiting_since__isnull=False
        )
        if e.user_id not in busy
    ]
    rules = arena.PoolRules(
        seats=_seats(event),
        bots=event.allow_bots,
        gather_seconds=event.gather_seconds,
        bot_wait_seconds=event.bot_wait_seconds,
    )
    tables = arena.pair(pool, rules)
    for players in tables:
        services.game_deal(event=event, players=players, now=now)
    return bool(tables)


def _seats(event: Event) -> int:
    return find_variant(event.room.variant).seats


# --------------------------------------------------------------------------- duplicate


def _round_start(event: Event, number: int, *, now: datetime.datetime) -> None:
    """Seat the round by standings, draw its boards (the commitments are public from now on)
    and deal each table its first board."""
    ranked = [e.user_id for e in selectors.standings(event=event)]
    if number == 1:
        ranked = [e.user_id for e in selectors.active_entries(event=event).order_by("pk")]
    sat_out = dict(Entry.objects.filter(event=event).values_list("user_id", "sat_out"))
    try:
        seating = duplicate.seat_round(
            ranked,
            seats=_seats(event),
            bots=event.allow_bots,
            avoid=selectors.previous_mates(event=event),
            sat_out=sat_out,
        )
    except duplicate.TooFewPlayers:
        if number == 1:
            services.cancel_locked(event, reason=CANCELLED_SHORT, now=now)
        else:
            services.finish_locked(event, now=now)
        return
    boards = services.event_round_begin(
        event=event, number=number, sitting_out=seating.sitting_out, sat_out=sat_out
    )
    for group, players in enumerate(seating.tables, start=1):
        services.game_deal(event=event, players=players, now=now, board=boards[0], group=group)


def _duplicate_record(event: Event, *, now: datetime.datetime) -> bool:
    """The results of the hands that ended since the last look."""
    games = _finished_games(event)
    for game in games:
        services.game_duplicate_record(game=game, now=now)
    return bool(games)


def _duplicate_step(event: Event, *, now: datetime.datetime) -> None:
    changed = _duplicate_record(event, now=now)
    boards = list(Board.objects.filter(event=event, round=event.round).order_by("number"))
    games = list(Game.objects.filter(event=event, round=event.round).select_related("board"))
    # each table goes on to its next board as soon as it finished the last one
    by_group: dict[int, list[Game]] = {}
    for game in games:
        by_group.setdefault(game.group, []).append(game)
    for group, played in by_group.items():
        last = max(played, key=lambda g: g.board.number)
        if last.finished_at is not None and last.board.number < len(boards):
            nxt = boards[last.board.number]
            dealt = services.game_deal(
                event=event, players=tuple(last.players), now=now, board=nxt, group=group
            )
            changed = changed or dealt is not None
    groups = len(by_group)
    for board in boards:
        done = [g for g in games if g.board_id == board.pk and g.finished_at is not None]
        if not board.scored and groups and len(done) == groups:
            services.board_score(event=event, board=board, games=done)
            changed = True
    if boards and all(b.scored for b in Board.objects.filter(event=event, round=event.round)):
        if event.round >= event.rounds:
            services.finish_locked(event, now=now)
            return
        if event.next_round_at is None:
            services.event_break_begin(event=event, now=now)
            changed = True
        elif now >= event.next_round_at:
            _round_start(event, event.round + 1, now=now)
            changed = True
    if changed:
        broadcast.event_changed_on_commit(event.pk)
