"""Bots reply off the request path (issue #20): a player's move returns with the bots' replies
not applied, each due after the room's delay; the deadline runner decides a bot's move outside
any transaction (so outside every table lock) and applies it once, however many runners race."""

from __future__ import annotations

import datetime
import threading

import pytest
from django.db import connection

from games import services
from games.engine.hand import waiting_seats
from games.engine.state import PHASE_PLAY
from games.models import HandAction
from games.reads.selectors import hand_state
from games.runner.deadlines import hand_apply_due_deadlines, next_deadline_in
from games.services import hand_deadlines, hand_run
from games.services.base import locked_table, write
from games.table import wake
from tests.support.tables import (
    active_hand,
    awaits_bot,
    bots_reply,
    claim_deadlines_at_once,
    client_action,
    make_player,
    make_room,
    play_to_end,
    seated_table,
)

DELAY = datetime.timedelta(milliseconds=700)


def _table(variant: str = "classic3", humans: int = 1):
    room = make_room(variant, bot_delay_ms=700)
    users = [make_player() for _ in range(humans)]
    table = seated_table(room, users)
    services.hand_start(table_id=table.pk)
    return table, {i: u for i, u in enumerate(users)}


def _human_play(table, users):
    """The human's next move in the play phase (the bots replying until then): in classic3 the
    two bots answer it one after the other."""
    for _ in range(200):
        bots_reply(table)
        hand = active_hand(table)
        state = hand_state(hand)
        seat = next(s for s in waiting_seats(state) if s in users)
        playing = state.phase == PHASE_PLAY
        hand = services.hand_submit_action(
            hand_id=hand.pk,
            user=users[seat],
            action=client_action(state, seat),
            expected_version=hand.version,
        )
        if playing:
            assert awaits_bot(hand)
            return hand
    raise AssertionError("the play did not come")


def _bot_rows(hand):
    return HandAction.objects.filter(hand=hand, source=HandAction.Source.BOT).count()


@pytest.mark.django_db
def test_a_move_returns_before_the_bots_reply_each_after_its_own_delay():
    table, users = _table()
    hand = _human_play(table, users)
    hand.refresh_from_db()
    bots_before = _bot_rows(hand)
    assert HandAction.objects.filter(hand=hand).order_by("-seq").first().source == "human"
    assert hand.deadline_at == hand.decision_started_at + DELAY
    first_bot = waiting_seats(hand_state(hand))[0]

    assert hand_apply_due_deadlines(now=hand.deadline_at - datetime.timedelta(milliseconds=1)) == 0
    assert _bot_rows(hand) == bots_before
    replied_at = hand.deadline_at
    assert hand_apply_due_deadlines(now=replied_at) == 1
    assert _bot_rows(hand) == bots_before + 1
    last = HandAction.objects.filter(hand=hand).order_by("-seq").first()
    assert (last.source, last.seat) == ("bot", first_bot)

    hand.refresh_from_db()
    if hand.status == hand.Status.ACTIVE and awaits_bot(hand):
        # the next bot takes its own delay from the first one's reply
        assert hand.deadline_at == replied_at + DELAY


@pytest.mark.slow
@pytest.mark.usefixtures("live_db")
def test_no_bot_decides_inside_a_players_request_or_any_transaction(monkeypatch):
    calls: list[tuple[bool, bool]] = []
    in_request = threading.local()
    decide = hand_deadlines.bot_action
    submit = services.hand_submit_action

    def recording_bot(state, seat, **kwargs):
        calls.append((getattr(in_request, "on", False), connection.in_atomic_block))
        return decide(state, seat, **kwargs)

    def request(**kwargs):
        in_request.on = True
        try:
            return submit(**kwargs)
        finally:
            in_request.on = False

    monkeypatch.setattr(hand_deadlines, "bot_action", recording_bot)
    monkeypatch.setattr(services, "hand_submit_action", request)
    for variant in ("classic3", "new5"):
        table, _ = _table(variant)
        play_to_end(table)
    assert len(calls) > 20
    assert not any(during_request for during_request, _ in calls)
    assert not any(in_transaction for _, in_transaction in calls)


@pytest.mark.usefixtures("live_db")
def test_concurrent_runners_apply_a_bot_reply_exactly_once():
    table, users = _table()
    hand = _human_play(table, users)
    bots_before = _bot_rows(hand)
    results = claim_deadlines_at_once(hand.deadline_at)
    assert sum(results) == 1
    assert _bot_rows(hand) == bots_before + 1


@pytest.mark.django_db
def test_a_reply_decided_before_the_hand_moved_is_not_applied():
    table, users = _table()
    hand = _human_play(table, users)
    stale = services.hand_decide_bots(hand_id=hand.pk)
    assert stale is not None and stale.version == hand.version
    assert hand_apply_due_deadlines(now=hand.deadline_at) == 1  # another runner got there first
    hand.refresh_from_db()
    assert awaits_bot(hand)  # the second bot's turn, due now
    rows = HandAction.objects.filter(hand=hand).count()
    with write():
        locked = locked_table(hands__pk=hand.pk)
        moved = services.apply_deadline(
            table=locked, hand=hand, now=hand.deadline_at, replies=stale
        )
    assert not moved
    assert HandAction.objects.filter(hand=hand).count() == rows
    assert hand_apply_due_deadlines(now=hand.deadline_at) == 1  # decided afresh, it plays
    assert HandAction.objects.filter(hand=hand).count() == rows + 1


@pytest.mark.django_db
def test_a_move_that_leaves_a_bot_awaited_wakes_the_runner(
    monkeypatch, django_capture_on_commit_callbacks
):
    woken: list[bool] = []
    monkeypatch.setattr(hand_run, "wake", lambda: woken.append(True))
    table, users = _table()
    _human_play(table, users)
    bots_reply(table)  # the human's turn again, in the play
    hand = active_hand(table)
    state = hand_state(hand)
    woken.clear()
    with django_capture_on_commit_callbacks(execute=True):
        hand = services.hand_submit_action(
            hand_id=hand.pk,
            user=users[0],
            action=client_action(state, 0),
            expected_version=hand.version,
        )
    assert awaits_bot(hand)
    assert woken
    assert next_deadline_in(now=hand.deadline_at - DELAY) == pytest.approx(DELAY.total_seconds())
    assert next_deadline_in(now=hand.deadline_at + DELAY) == 0


def test_a_sleeping_runner_wakes_at_once():
    stop = threading.Event()
    sleeper = threading.Thread(target=wake.pause, args=(stop, 600.0))
    sleeper.start()
    wake.wake()
    sleeper.join(timeout=60)
    assert not sleeper.is_alive()
    stop.set()
