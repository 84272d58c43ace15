"""A whole duplicate event run by real daphne processes on PostgreSQL and Redis, nobody's
browser open (the players' turns time out into 托管, bots fill the tables), while its
processes are killed: two runners start it together (one round start, never two), ``kill -9``
of one in round 1, of the other in round 2 and a fresh process finishes it. No standing, fee or
hand is lost: every board dealt once per table, every hand settled once, the event settled
once, the ledger audit clean."""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable
from fractions import Fraction

import pytest
from django.utils import timezone

from accounts.audit import audit_beans
from accounts.models import HandSettlement
from competitions import duplicate, services
from competitions.models import Board, Entry, Event, Game, Settlement
from games.models import Hand
from tests.support.tables import ensure_triggers, make_player, make_room

pytestmark = pytest.mark.timeout(300)


def _until(what: str, condition: Callable[[], bool], *, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {seconds} s for {what}")
        time.sleep(0.25)


def _event() -> Event:
    ensure_triggers()
    room = make_room("classic3", bid_seconds=1, turn_seconds=1, bot_delay_ms=0)
    event = services.event_create(
        name="Kill night",
        room=room,
        format="duplicate",
        starts_at=timezone.now() + datetime.timedelta(seconds=4),
        rounds=2,
        boards_per_round=2,
        break_seconds=1,
        min_entrants=2,
        allow_bots=True,
        entry_fee=100,
        prize_bands="1:60, 2:40",
    )
    for _ in range(4):
        services.event_register(event_id=event.pk, user=make_player(beans=1_000))
    return event


def _status(event: Event) -> tuple[str, int]:
    event.refresh_from_db()
    return event.status, event.round


def test_a_duplicate_event_survives_kill_9(servers):
    event = _event()
    first = servers("first", DDZ_BOT_THINK_SECONDS="0.01")
    second = servers("second", DDZ_BOT_THINK_SECONDS="0.01")
    _until(
        "round 1 in play",
        lambda: Hand.objects.filter(event_game__event=event, status="active").exists(),
    )
    assert Board.objects.filter(event=event, round=1).count() == 2
    first.kill()
    _until("round 2", lambda: _status(event)[1] == 2)
    _until(
        "a hand of round 2 in play",
        lambda: Hand.objects.filter(event_game__event=event, event_game__round=2).exists(),
    )
    second.kill()
    third = servers("third", DDZ_BOT_THINK_SECONDS="0.01")
    _until("the end", lambda: _status(event)[0] == Event.Status.FINISHED, seconds=180)
    assert third.alive()
    boards = Board.objects.filter(event=event)
    assert boards.count() == 4 and all(b.scored for b in boards)
    games = Game.objects.filter(event=event)
    assert games.count() == 8  # two tables, each board once
    hand_ids = [str(h) for h in games.values_list("hand_id", flat=True)]
    assert not Hand.objects.filter(event_game__event=event, status="active").exists()
    settled = HandSettlement.objects.filter(hand_ref__in=hand_ids).count()
    with_result = Hand.objects.filter(event_game__event=event, result__has_key="units").count()
    assert settled == with_result
    entries = Entry.objects.filter(event=event)
    assert all(e.played == 4 for e in entries)
    total = sum(Fraction(e.matchpoints) for e in entries)
    # two tables of two players and a bot: the bots' matchpoints are not anyone's
    assert total <= 4 * 3 * duplicate.group_total(2)
    assert Settlement.objects.filter(event=event).count() == 1
    assert sum(e.prize for e in entries) == 400
    report = audit_beans()
    assert report.clean, [str(f) for f in report.findings]
    for server in (first, second, third):
        assert not server.errors(), server.tail()
