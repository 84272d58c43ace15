"""Whole events run by real daphne processes on PostgreSQL and Redis, nobody's browser open
(the players' turns time out into 托管, bots fill the tables), while their processes are
killed: two runners start an event together (one start, one round start, never two),
``kill -9`` of one while hands are in play, later of the other, and a fresh process finishes
it. No standing, fee or hand is lost: every hand settled once, the event settled once, the
ledger audit clean. The duplicate event must also deal every board once per table; the arena
must end on its clock with the standings a recount of its hands gives."""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest
from django.db.models import Count
from django.utils import timezone

from accounts.audit import audit_beans
from accounts.models import BeanEntry, HandSettlement
from competitions import duplicate, services
from competitions.models import Board, Entry, Event, Game, Settlement
from games.models import Hand
from tests.competitions.helpers import assert_standings_are_the_recount
from tests.reliability.harness import Server
from tests.support.tables import ensure_triggers, make_player, make_room

pytestmark = pytest.mark.timeout(300)

FEE = 100
BOT_THINK = {"DDZ_BOT_THINK_SECONDS": "0.01"}


def _until(what: str, condition: Callable[[], bool], *, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {seconds} s for {what}")
        time.sleep(0.25)


def _event(variant: str, *, players: int, **fields: Any) -> Event:
    """An event starting in a few seconds in a room of one-second turns, ``players`` entered
    at ``FEE`` beans each, bots allowed."""
    ensure_triggers()
    room = make_room(variant, bid_seconds=1, turn_seconds=1, bot_delay_ms=0)
    event = services.event_create(
        name="Kill night",
        room=room,
        starts_at=timezone.now() + datetime.timedelta(seconds=4),
        min_entrants=2,
        allow_bots=True,
        entry_fee=FEE,
        prize_bands="1:60, 2:40",
        **fields,
    )
    for _ in range(players):
        services.event_register(event_id=event.pk, user=make_player(beans=1_000))
    return event


def _status(event: Event) -> tuple[str, int]:
    event.refresh_from_db()
    return event.status, event.round


def _hands(event: Event):
    """Every hand dealt at the event's tables (a redeal included)."""
    return Hand.objects.filter(table__event_game__event=event)


def _hands_in_play(event: Event) -> bool:
    """Whether a hand of the event is in play; and never two at one table."""
    active = _hands(event).filter(status=Hand.Status.ACTIVE)
    assert not active.values("table").annotate(n=Count("pk")).filter(n__gt=1).exists()
    return active.exists()


def _assert_nothing_lost(event: Event, servers: list[Server]) -> None:
    """Every hand of the event over and settled once, the fees and prizes settled once, the
    ledger audit clean, no server error."""
    hands = _hands(event)
    assert not hands.filter(status=Hand.Status.ACTIVE).exists()
    hand_refs = [str(pk) for pk in hands.values_list("pk", flat=True)]
    settled = HandSettlement.objects.filter(hand_ref__in=hand_refs).count()
    assert settled == hands.filter(result__has_key="units").count()
    entries = Entry.objects.filter(event=event)
    settlement = Settlement.objects.get(event=event)
    assert settlement.fees == FEE * entries.count() and settlement.refunded == 0
    ledger = BeanEntry.objects.filter(event_ref=event.ledger_ref, user__isnull=False)
    assert ledger.filter(reason=BeanEntry.Reason.EVENT_FEE).count() == entries.count()
    prizes = ledger.filter(reason=BeanEntry.Reason.EVENT_PRIZE)
    assert prizes.count() == entries.filter(prize__gt=0).count() == 2
    assert sum(e.prize for e in entries) == settlement.fees - settlement.house
    report = audit_beans()
    assert report.clean, [str(f) for f in report.findings]
    for server in servers:
        assert not server.errors(), server.tail()


def test_a_duplicate_event_survives_kill_9(servers):
    event = _event(
        "classic3", players=4, format="duplicate", rounds=2, boards_per_round=2, break_seconds=1
    )
    first = servers("first", **BOT_THINK)
    second = servers("second", **BOT_THINK)
    _until("round 1 in play", lambda: _hands_in_play(event))
    assert Board.objects.filter(event=event, round=1).count() == 2
    first.kill()
    _until("round 2", lambda: _status(event)[1] == 2)
    _until(
        "a hand of round 2 in play",
        lambda: _hands(event).filter(event_game__round=2).exists(),
    )
    second.kill()
    third = servers("third", **BOT_THINK)
    _until("the end", lambda: _status(event)[0] == Event.Status.FINISHED, seconds=180)
    assert third.alive()
    boards = Board.objects.filter(event=event)
    assert boards.count() == 4 and all(b.scored for b in boards)
    assert Game.objects.filter(event=event).count() == 8  # two tables, each board once
    entries = Entry.objects.filter(event=event)
    assert all(e.played == 4 for e in entries)
    total = sum(Fraction(e.matchpoints) for e in entries)
    # two tables of two players and a bot: the bots' matchpoints are not anyone's
    assert total <= 4 * 3 * duplicate.group_total(2)
    _assert_nothing_lost(event, [first, second, third])


def _come_back(event: Event) -> None:
    """Nobody's browser is open, so every hand ends in 托管 and the arena pauses its players:
    each presses "resume" as soon as it does, so that hands go on for the whole event."""
    for entry in Entry.objects.filter(event=event, paused=True).select_related("user"):
        services.entry_pause(event_id=event.pk, user=entry.user, paused=False)


def _arena_while(event: Event, condition: Callable[[], bool]) -> Callable[[], bool]:
    def check() -> bool:
        _come_back(event)
        return condition()

    return check


def test_an_arena_survives_kill_9(servers):
    # seven in 5-seat qq5: a full table and a table of two players and three bots
    event = _event(
        "qq5",
        players=7,
        format="arena",
        minutes=1,
        stop_pairing_seconds=15,
        gather_seconds=0,
        bot_wait_seconds=0,
    )
    first = servers("first", **BOT_THINK)
    second = servers("second", **BOT_THINK)
    _until("the first hands in play", _arena_while(event, lambda: _hands_in_play(event)))
    first.kill()
    killed_at = timezone.now()

    def counted_since_and_in_play() -> bool:
        since = Game.objects.filter(event=event, created_at__gt=killed_at)
        return since.filter(counted=True).exists() and _hands_in_play(event)

    _until(
        "a table formed after the kill counted, another in play",
        _arena_while(event, counted_since_and_in_play),
    )
    second.kill()
    third = servers("third", **BOT_THINK)
    limit = (event.ends_at - timezone.now()).total_seconds() + 90
    finished = _arena_while(event, lambda: _status(event)[0] == Event.Status.FINISHED)
    _until("the end", finished, seconds=limit)
    assert third.alive()
    # the hands still in play at the end are played out (and settled), but never counted
    _until("the last hands over", lambda: not _hands_in_play(event))
    assert event.finished_at >= event.ends_at
    games = Game.objects.filter(event=event).select_related("hand")
    assert games.count() > 2  # the first two tables, and more formed after the kill
    assert all(g.created_at < event.pairing_stops_at for g in games)
    for game in games:
        assert game.counted == (game.hand.finished_at <= event.ends_at), game.pk
        assert game.void == (not game.counted), game.pk
    assert_standings_are_the_recount(event)
    _assert_nothing_lost(event, [first, second, third])
