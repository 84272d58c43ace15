"""Server-side deadlines: a timed-out decision gets the engine's default exactly once (also with
several claimers at once), a play timeout hands the seat to 托管 until taken back, and a
disconnected awaited player is taken over after the grace."""

from __future__ import annotations

import datetime

import pytest
from django.core.management import call_command

from games import services
from games.engine.hand import waiting_seats
from games.models import HandAction, Seat
from games.reads.selectors import hand_state, hand_state_clear_cache
from games.runner.deadlines import hand_apply_due_deadlines
from tests.support.tables import (
    active_hand,
    claim_deadlines_at_once,
    client_action,
    make_player,
    make_room,
    play_until_play_phase,
    seated_table,
)

S = datetime.timedelta(seconds=1)


def _table(bid_seconds=15, turn_seconds=30, humans=3):
    room = make_room("classic3", bid_seconds=bid_seconds, turn_seconds=turn_seconds)
    users = [make_player() for _ in range(humans)]
    table = seated_table(room, users)
    services.hand_start(table_id=table.pk)
    return table, users


def _timeouts(hand):
    return list(HandAction.objects.filter(hand=hand, source="timeout").order_by("seq"))


@pytest.mark.django_db
class TestTimeouts:
    def test_a_timed_out_bid_gets_the_default_exactly_once(self):
        table, _ = _table(bid_seconds=15)
        hand = active_hand(table)
        seat = waiting_seats(hand_state(hand))[0]
        assert hand.deadline_at == hand.decision_started_at + 15 * S
        assert hand_apply_due_deadlines(now=hand.deadline_at - S) == 0
        hand_state_clear_cache()  # a fresh process: everything comes from the database
        due = hand.deadline_at + S
        assert hand_apply_due_deadlines(now=due) == 1
        assert hand_apply_due_deadlines(now=due) == 0
        logged = _timeouts(hand)
        assert [(a.seat, a.payload["act"]) for a in logged] == [(seat, "timeout")]
        hand.refresh_from_db()
        assert hand.version == 1
        assert hand.deadline_at == due + 15 * S  # the next seat's turn started at the timeout

    def test_a_play_timeout_hands_the_seat_to_autoplay_until_taken_back(self):
        table, users = _table(turn_seconds=30)
        hand = play_until_play_phase(table, users)
        seat = hand_state(hand).turn
        assert hand_apply_due_deadlines(now=hand.deadline_at + S) == 1
        hand = active_hand(table)
        if hand is None:
            return  # the timeout's move ended the hand
        acts = [a.payload["act"] for a in _timeouts(hand)]
        assert acts == ["autoplay", "timeout"]
        assert hand_state(hand).autoplay[seat]
        assert Seat.objects.get(table=table, index=seat).autoplay
        # the others play on; the 托管 seat plays at once on its turns
        for _ in range(4):
            hand = active_hand(table)
            if hand is None:
                return
            state = hand_state(hand)
            assert seat not in waiting_seats(state)
            nxt = waiting_seats(state)[0]
            services.hand_submit_action(
                hand_id=hand.pk,
                user=users[nxt],
                action=client_action(state, nxt),
                expected_version=hand.version,
            )
        hand = active_hand(table)
        if hand is None:
            return
        assert HandAction.objects.filter(hand=hand, seat=seat, source="autoplay").exists()
        services.seat_set_autoplay(hand_id=hand.pk, user=users[seat], enabled=False)
        hand = active_hand(table)
        assert not hand_state(hand).autoplay[seat]
        assert not Seat.objects.get(table=table, index=seat).autoplay

    def test_the_command_runs_once(self, capsys):
        call_command("run_deadlines", "--once")
        assert "hands moved: 0" in capsys.readouterr().out


@pytest.mark.django_db
class TestDisconnects:
    @staticmethod
    def _awaited_player_gone(settings):
        """A classic3 table whose awaited bidder (120 s to bid) connected and left, with a
        20 s grace: (table, users, hand, his seat, when he left)."""
        settings.DDZ_DISCONNECT_GRACE_SECONDS = 20
        table, users = _table(bid_seconds=120)
        hand = active_hand(table)
        seat = waiting_seats(hand_state(hand))[0]
        services.seat_connect(table_id=table.pk, user=users[seat])
        services.seat_disconnect(table_id=table.pk, user=users[seat])
        gone = Seat.objects.get(table=table, index=seat).disconnected_at
        return table, users, hand, seat, gone

    def test_a_disconnected_awaited_player_is_taken_over_after_the_grace(self, settings):
        _, _, hand, seat, gone = self._awaited_player_gone(settings)
        hand.refresh_from_db()
        assert hand.deadline_at == gone + 20 * S
        assert hand_apply_due_deadlines(now=gone + 19 * S) == 0
        assert hand_apply_due_deadlines(now=gone + 21 * S) == 1
        log = list(HandAction.objects.filter(hand=hand, seat=seat).order_by("seq"))
        assert log[0].payload == {"seat": seat, "act": "autoplay", "value": True}
        assert log[0].source == "autoplay"
        assert log[1].source == "autoplay"  # its pending bid, played by 托管 at once

    def test_coming_back_within_the_grace_cancels_it(self, settings):
        table, users, hand, seat, gone = self._awaited_player_gone(settings)
        services.seat_connect(table_id=table.pk, user=users[seat])
        hand.refresh_from_db()
        assert hand.deadline_at == hand.decision_started_at + 120 * S
        assert hand_apply_due_deadlines(now=gone + 21 * S) == 0
        assert not HandAction.objects.filter(hand=hand).exists()

    def test_a_second_tab_closing_does_not_count_as_leaving(self, settings):
        table, users = _table(bid_seconds=120)
        hand = active_hand(table)
        seat = waiting_seats(hand_state(hand))[0]
        services.seat_connect(table_id=table.pk, user=users[seat])
        services.seat_connect(table_id=table.pk, user=users[seat])
        services.seat_disconnect(table_id=table.pk, user=users[seat])
        assert Seat.objects.get(table=table, index=seat).disconnected_at is None


@pytest.mark.usefixtures("live_db")
def test_concurrent_claimers_apply_a_deadline_exactly_once():
    table, _ = _table(bid_seconds=15)
    hand = active_hand(table)
    due = hand.deadline_at + S
    results = claim_deadlines_at_once(due)
    assert sum(results) == 1
    assert len(_timeouts(hand)) == 1
    assert hand_apply_due_deadlines(now=due) == 0


def test_the_runner_thread_starts_only_when_serving(monkeypatch):
    from games import apps

    monkeypatch.setattr(apps.sys, "argv", ["manage.py", "migrate"])
    assert not apps.serving()
    monkeypatch.setattr(apps.sys, "argv", ["/usr/bin/daphne", "ddz_site.asgi:application"])
    assert apps.serving()
    monkeypatch.setattr(apps.sys, "argv", ["manage.py", "runserver"])
    monkeypatch.setenv("RUN_MAIN", "true")
    assert apps.serving()
    monkeypatch.delenv("RUN_MAIN")
    assert not apps.serving()
    monkeypatch.setattr(apps.sys, "argv", ["manage.py", "runserver", "--noreload"])
    assert apps.serving()


@pytest.mark.django_db
def test_a_waiting_player_gets_bots_after_the_configured_time(settings):
    settings.DDZ_BOT_FILL_SECONDS = 60
    room = make_room("qq5")
    table = services.table_create(room=room)
    services.table_join(table_id=table.pk, user=make_player())
    table.refresh_from_db()
    assert services.table_fill_idle(now=table.changed_at + 59 * S) == 0
    assert services.table_fill_idle(now=table.changed_at + 61 * S) == 1
    assert Seat.objects.filter(table=table, is_bot=True).count() == 4
    assert services.table_fill_idle(now=table.changed_at + 3600 * S) == 0
    settings.DDZ_BOT_FILL_SECONDS = 0
    empty = services.table_create(room=room)
    assert services.table_fill_idle(now=empty.changed_at + 3600 * S) == 0


@pytest.mark.django_db
def test_new5_grab_window_is_ten_seconds_at_most():
    room = make_room("new5", bid_seconds=15)
    users = [make_player() for _ in range(5)]
    table = seated_table(room, users)
    hand = services.hand_start(table_id=table.pk)
    hand = active_hand(table) or hand
    if hand_state(hand).phase == "grab":
        assert hand.deadline_at == hand.decision_started_at + 10 * S
