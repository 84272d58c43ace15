"""Two processes' runners and end-of-event calls at once (threads on their own PostgreSQL
connections): an event settles once, a round is started once."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.conf import settings
from django.db import close_old_connections

from accounts.models import BeanEntry
from competitions import runner, services
from competitions.models import Board, Entry, Event, Game, Settlement
from tests.competitions.helpers import (
    START,
    assert_audit_clean,
    entrants,
    event_rows_sum,
    live_tables,
    make_event,
    play_all,
    step,
)
from tests.support.tables import make_room

pytestmark = [
    pytest.mark.skipif(
        not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"),
        reason="row locks need PostgreSQL (DATABASE_URL)",
    ),
    pytest.mark.usefixtures("live_db"),
]


def _at_once(call: Callable[[], object], copies: int = 3) -> None:
    barrier = threading.Barrier(copies)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            barrier.wait(timeout=20)
            call()
        except BaseException as error:  # reported below
            errors.append(error)
        finally:
            close_old_connections()

    threads = [threading.Thread(target=run) for _ in range(copies)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors


def test_concurrent_end_of_event_settles_once():
    room = make_room("classic3", rake_percent=10, bot_delay_ms=0)
    event = make_event(room, prize_bands="1:50, 2:30, 3:20")
    entrants(event, 3)
    event = step(event, START)
    play_all(event)
    step(event, START + (event.ends_at - event.starts_at) / 2)
    _at_once(lambda: services.event_finish(event_id=event.pk))
    assert Settlement.objects.filter(event=event).count() == 1
    prizes = BeanEntry.objects.filter(event_ref=event.ledger_ref, reason="event_prize")
    assert prizes.filter(user__isnull=False).count() == 3
    assert sum(p.delta for p in prizes.filter(user__isnull=False)) == 300 - 30
    assert event_rows_sum(event) == 0
    assert_audit_clean()


def test_concurrent_runners_start_a_round_once():
    room = make_room("classic3", bot_delay_ms=0)
    event = make_event(room, format="duplicate", rounds=1, boards_per_round=3, min_entrants=6)
    entrants(event, 6)
    _at_once(lambda: runner.event_step(event_id=event.pk, now=START))
    event.refresh_from_db()
    assert event.status == Event.Status.RUNNING
    assert Board.objects.filter(event=event).count() == 3
    assert Game.objects.filter(event=event).count() == 2
    assert len(live_tables(event)) == 2
    assert Entry.objects.filter(event=event, active=True).count() == 6
