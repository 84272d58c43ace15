"""Presence from socket leases (games/services/presence.py, issue #16), with explicit times on
SQLite: a seat counts its user's live leases, a process renews only those of the sockets it holds, a
lease nobody renews expires after DDZ_SOCKET_LEASE_SECONDS and the seat goes offline as of
then (the grace starts), and no 托管 is made for a user with a live socket at the table."""

from __future__ import annotations

import datetime

import pytest

from games import services
from games.engine.hand import waiting_seats
from games.models import Hand, HandAction, Seat, SocketLease, Table
from games.reads.selectors import hand_state
from games.runner.deadlines import hand_apply_due_deadlines, leases_keep, presence_sweep
from games.services import presence
from tests.support.tables import active_hand, make_player, make_room, seated_table

S = datetime.timedelta(seconds=1)
LEASE = 30
GRACE = 20


@pytest.fixture(autouse=True)
def _times(settings):
    settings.DDZ_SOCKET_LEASE_SECONDS = LEASE
    settings.DDZ_DISCONNECT_GRACE_SECONDS = GRACE


def _awaited():
    """A dealt classic3 table of three humans; the seat whose bid is awaited, and its user."""
    room = make_room("classic3", bid_seconds=120, turn_seconds=120)
    users = [make_player() for _ in range(3)]
    table = seated_table(room, users)
    services.hand_start(table_id=table.pk)
    seat = waiting_seats(hand_state(active_hand(table)))[0]
    return table, users[seat], seat


def _seat(table, index) -> Seat:
    return Seat.objects.get(table=table, index=index)


def _renewed(channel_name: str) -> datetime.datetime:
    return SocketLease.objects.get(channel_name=channel_name).renewed_at


def _tabs_in_two_processes(table, user, *, here: str, there: str) -> None:
    """Two sockets of ``user`` at ``table``: ``here`` held by this process, ``there`` by
    another one."""
    services.seat_connect(table_id=table.pk, user=user, channel_name=here)
    services.seat_connect(table_id=table.pk, user=user, channel_name=there)
    SocketLease.objects.filter(channel_name=there).update(process="another process")


def _autoplays(table) -> int:
    return HandAction.objects.filter(hand__table=table, source=HandAction.Source.AUTOPLAY).count()


@pytest.mark.django_db
class TestLeases:
    def test_a_seat_counts_its_users_live_sockets_and_a_close_removes_its_own(self):
        table, user, index = _awaited()
        services.seat_connect(table_id=table.pk, user=user, channel_name="tab.a")
        services.seat_connect(table_id=table.pk, user=user, channel_name="tab.b")
        assert _seat(table, index).connections == 2
        services.seat_disconnect(table_id=table.pk, user=user, channel_name="tab.a")
        seat = _seat(table, index)
        assert (seat.connections, seat.disconnected_at) == (1, None)
        assert list(SocketLease.objects.values_list("channel_name", flat=True)) == ["tab.b"]
        services.seat_disconnect(table_id=table.pk, user=user, channel_name="tab.b")
        seat = _seat(table, index)
        assert seat.connections == 0 and seat.disconnected_at is not None

    def test_a_spectators_socket_is_leased_too(self):
        table, _, _ = _awaited()
        watcher = make_player()
        opened = services.seat_connect(table_id=table.pk, user=watcher, channel_name="w")
        assert not opened.seated and not opened.pushed
        assert SocketLease.objects.filter(user=watcher, table=table).count() == 1
        services.seat_disconnect(table_id=table.pk, user=watcher, channel_name="w")
        assert not SocketLease.objects.exists()

    def test_a_process_renews_its_own_leases_only(self):
        table, user, _ = _awaited()
        _tabs_in_two_processes(table, user, here="here", there="there")
        before = _renewed("there")
        later = _renewed("here") + 7 * S
        assert presence.leases_renew(now=later, channel_names=["here", "there"]) == 1
        assert (_renewed("here"), _renewed("there")) == (later, before)

    def test_a_lease_nobody_renews_expires_and_the_grace_runs_from_its_expiry(self):
        table, user, index = _awaited()
        services.seat_connect(table_id=table.pk, user=user, channel_name="tab")
        renewed = _renewed("tab")
        version = Table.objects.get(pk=table.pk).version

        assert presence_sweep(now=renewed + (LEASE - 1) * S) == 0
        assert _seat(table, index).disconnected_at is None

        assert presence_sweep(now=renewed + (LEASE + 1) * S) == 1
        seat = _seat(table, index)
        expired = renewed + LEASE * S
        assert (seat.connections, seat.disconnected_at) == (0, expired)
        assert not SocketLease.objects.exists()
        assert Table.objects.get(pk=table.pk).version == version + 1  # the table was pushed
        hand = active_hand(table)
        assert hand.deadline_at == expired + GRACE * S

        assert hand_apply_due_deadlines(now=expired + (GRACE - 1) * S) == 0
        assert hand_apply_due_deadlines(now=expired + (GRACE + 1) * S) == 1
        first = HandAction.objects.filter(hand=hand).order_by("seq").first()
        assert (first.seat, first.source) == (index, HandAction.Source.AUTOPLAY)

    def test_a_renewed_lease_survives_the_sweep(self):
        table, user, index = _awaited()
        services.seat_connect(table_id=table.pk, user=user, channel_name="tab")
        renewed = _renewed("tab")
        presence.leases_renew(now=renewed + 25 * S, channel_names=["tab"])
        assert presence_sweep(now=renewed + 40 * S) == 0
        seat = _seat(table, index)
        assert (seat.connections, seat.disconnected_at) == (1, None)
        assert SocketLease.objects.count() == 1

    def test_a_dead_processs_lease_leaves_the_seat_online_while_another_lives(self):
        table, user, index = _awaited()
        _tabs_in_two_processes(table, user, here="live.tab", there="dead.tab")
        renewed = _renewed("live.tab")
        presence.leases_renew(now=renewed + 25 * S, channel_names=["live.tab", "dead.tab"])
        assert presence_sweep(now=renewed + 40 * S) == 0
        seat = _seat(table, index)
        assert (seat.connections, seat.disconnected_at) == (1, None)
        assert list(SocketLease.objects.values_list("channel_name", flat=True)) == ["live.tab"]

    def test_no_autoplay_for_a_user_with_a_live_socket_whatever_the_seat_says(self):
        table, user, index = _awaited()
        services.seat_connect(table_id=table.pk, user=user, channel_name="tab")
        now = _renewed("tab")
        # a seat row claiming he left long ago (a count from before the leases)
        Seat.objects.filter(table=table, index=index).update(
            connections=0, disconnected_at=now - (GRACE + 5) * S
        )
        Hand.objects.filter(table=table).update(deadline_at=now - S)
        assert hand_apply_due_deadlines(now=now) == 0
        assert _autoplays(table) == 0

    def test_closing_a_socket_without_a_name_closes_one_of_this_process(self):
        table, user, index = _awaited()
        services.seat_connect(table_id=table.pk, user=user)
        services.seat_connect(table_id=table.pk, user=user)
        assert SocketLease.objects.filter(process=presence.PROCESS_ID).count() == 2
        services.seat_disconnect(table_id=table.pk, user=user)
        assert _seat(table, index).connections == 1


@pytest.mark.parametrize("runner", ["thread", "off"])
def test_a_served_process_renews_its_leases_whether_or_not_it_runs_deadlines(
    monkeypatch, settings, runner
):
    from django.apps import apps

    from games import apps as games_apps
    from games.runner import deadlines

    started: list[str] = []
    settings.DDZ_DEADLINE_RUNNER = runner
    monkeypatch.setattr(games_apps, "serving", lambda: True)
    monkeypatch.setattr(deadlines, "start_daemon", lambda name, target: started.append(name))
    monkeypatch.setattr(deadlines, "start_thread", lambda: started.append("ddz-deadlines"))
    apps.get_app_config("games").ready()
    expected = ["ddz-socket-leases"] + (["ddz-deadlines"] if runner == "thread" else [])
    assert started == expected


@pytest.fixture
def held():
    """This process's register of held sockets, emptied after the test."""
    yield presence
    for name in list(presence.sockets_held()):
        presence.socket_released(channel_name=name)


@pytest.mark.django_db
class TestKeepingLeases:
    def test_a_held_socket_whose_lease_was_swept_is_recorded_again_and_back_on_line(self, held):
        table, user, index = _awaited()
        services.seat_connect(table_id=table.pk, user=user, channel_name="tab")
        held.socket_held(channel_name="tab", table_id=table.pk, user=user)
        # this process could not renew for longer than a lease: a sweep took it offline
        assert presence_sweep(now=_renewed("tab") + (LEASE + 1) * S) == 1
        assert _seat(table, index).disconnected_at is not None

        assert leases_keep() == 1
        seat = _seat(table, index)
        assert (seat.connections, seat.disconnected_at) == (1, None)
        assert SocketLease.objects.get().process == presence.PROCESS_ID
        assert leases_keep() == 0  # renewed now, nothing missing

    def test_a_lease_whose_socket_this_process_no_longer_holds_expires(self, held):
        """Issue #31: a socket whose end went unrecorded kept its lease renewed for as long as
        the process lived (its user locked out of more tabs, his seat shown connected)."""
        table, user, index = _awaited()
        services.seat_connect(table_id=table.pk, user=user, channel_name="tab")
        held.socket_held(channel_name="tab", table_id=table.pk, user=user)
        services.seat_connect(table_id=table.pk, user=user, channel_name="gone")
        opened = _renewed("gone")
        assert leases_keep(now=opened + 25 * S) == 0
        assert presence_sweep(now=opened + 40 * S) == 0  # the seat stays on line: "tab" lives
        assert list(SocketLease.objects.values_list("channel_name", flat=True)) == ["tab"]
        assert _seat(table, index).connections == 1

    def test_a_released_socket_is_never_recorded_again(self, held):
        table, user, index = _awaited()
        services.seat_connect(table_id=table.pk, user=user, channel_name="tab")
        held.socket_held(channel_name="tab", table_id=table.pk, user=user)
        held.socket_released(channel_name="tab")
        services.seat_disconnect(table_id=table.pk, user=user, channel_name="tab")
        assert leases_keep() == 0
        assert not SocketLease.objects.exists()
        assert _seat(table, index).disconnected_at is not None

    def test_a_socket_closing_while_its_lease_is_recorded_again_leaves_no_lease(
        self, held, monkeypatch
    ):
        table, user, _ = _awaited()
        services.seat_connect(table_id=table.pk, user=user, channel_name="tab")
        held.socket_held(channel_name="tab", table_id=table.pk, user=user)
        SocketLease.objects.all().delete()  # swept while this process stalled
        connect = services.seat_connect

        def connect_then_close(**kwargs):
            result = connect(**kwargs)
            held.socket_released(channel_name=kwargs["channel_name"])  # the tab closes now
            return result

        monkeypatch.setattr(services, "seat_connect", connect_then_close)
        assert leases_keep() == 0
        assert not SocketLease.objects.exists()
