"""Fair-play signals fire on a constructed history and stay silent on a normal one; each
lists the hands behind it and the operator page links them to their replays. Suspensions:
a suspended account cannot sit down (its ledger intact) and is stood up."""

from __future__ import annotations

import itertools

import pytest
from django.urls import reverse

from accounts.models import BeanEntry
from club.models import ConnectionRecord, Suspension
from club.selectors.fair_play import (
    signal_abandons,
    signal_bean_flows,
    signal_frequent_pairs,
    signal_shared_addresses,
)
from club.services.connections import client_ip, connection_record
from club.services.suspensions import user_suspend, user_unsuspend
from games import services as game_services
from games.models import Seat
from games.table.errors import ActionRejected, ErrorCode
from tests.club.history import finished_hand, make_table
from tests.support.tables import make_player, make_room

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def thresholds(settings):
    settings.DDZ_FAIRPLAY_PAIR_MIN_HANDS = 6
    settings.DDZ_FAIRPLAY_PAIR_SHARE = 0.6
    settings.DDZ_FAIRPLAY_FLOW_MIN_HANDS = 5
    settings.DDZ_FAIRPLAY_FLOW_MIN_BEANS = 300
    settings.DDZ_FAIRPLAY_FLOW_SHARE = 0.8
    settings.DDZ_FAIRPLAY_ABANDON_MIN_HANDS = 8
    settings.DDZ_FAIRPLAY_ABANDON_SHARE = 0.25


def _players(n):
    return [make_player(f"u{i}", beans=0) for i in range(n)]


def _normal_history(users, table):
    """Every trio of four players twice, landlords and winners rotating: an ordinary club."""
    hands = []
    for round_ in range(2):
        for k, trio in enumerate(itertools.combinations(users[:4], 3)):
            lord = (k + round_) % 3
            sign = 1 if (k + round_) % 2 else -1
            beans = [(-sign * 50) for _ in range(3)]
            beans[lord] = sign * 100
            hands.append(finished_hand(table, list(trio), landlord=[lord], beans=beans))
    return hands


def _names(signals):
    return [tuple(u.username for u in s.users) for s in signals]


class PairSignalTests:
    def test_silent_on_a_normal_history(self):
        users = _players(4)
        _normal_history(users, make_table())
        assert signal_frequent_pairs() == []

    def test_fires_on_two_accounts_always_together(self):
        users = _players(8)
        table = make_table()
        _normal_history(users, table)
        a, b = users[4], users[5]
        hands = [
            finished_hand(table, [a, b, third], landlord=[0], beans=[100, -50, -50])
            for third in users[:4] + users[6:]
        ]
        signals = signal_frequent_pairs()
        assert _names(signals) == [("u4", "u5")]
        assert signals[0].hand_ids == sorted((h.pk for h in hands), reverse=True)


class FlowSignalTests:
    def test_silent_on_a_normal_history(self):
        users = _players(4)
        _normal_history(users, make_table())
        assert signal_bean_flows() == []

    def test_fires_when_beans_keep_flowing_one_way(self):
        users = _players(5)
        table = make_table()
        _normal_history(users, table)
        feeder, taker, filler = users[4], users[0], users[1]
        hands = [
            finished_hand(table, [taker, feeder, filler], landlord=[0], beans=[200, -100, -100])
            for _ in range(6)
        ]
        signals = signal_bean_flows()
        assert _names(signals)[:1] == [("u4", "u0")]
        assert set(h.pk for h in hands) <= set(signals[0].hand_ids)
        assert signals[0].summary["beans"] >= 300


class AddressSignalTests:
    def test_silent_with_distinct_addresses_or_a_spectator(self):
        users = _players(3)
        table = make_table()
        finished_hand(table, users, landlord=[0], beans=[100, -50, -50])
        for i, user in enumerate(users):
            ConnectionRecord.objects.create(table=table, user=user, ip=f"10.0.0.{i}", seated=True)
        watcher = make_player("watcher", beans=0)
        ConnectionRecord.objects.create(table=table, user=watcher, ip="10.0.0.1", seated=False)
        assert signal_shared_addresses() == []

    def test_fires_on_two_seated_accounts_from_one_address(self):
        users = _players(3)
        table = make_table()
        hand = finished_hand(table, users, landlord=[0], beans=[100, -50, -50])
        ConnectionRecord.objects.create(table=table, user=users[0], ip="10.0.0.9", seated=True)
        ConnectionRecord.objects.create(table=table, user=users[2], ip="10.0.0.9", seated=True)
        ConnectionRecord.objects.create(table=table, user=users[1], ip="10.0.0.1", seated=True)
        signals = signal_shared_addresses()
        assert _names(signals) == [("u0", "u2")]
        assert signals[0].hand_ids == [hand.pk]
        assert signals[0].summary["ip"] == "10.0.0.9"

    def test_the_socket_records_its_address(self):
        user = make_player("ann")
        table = make_table()
        scope = {"client": ("192.0.2.7", 5555), "headers": [(b"x-forwarded-for", b"1.2.3.4")]}
        connection_record(table_id=table.pk, user=user, ip=client_ip(scope))
        assert ConnectionRecord.objects.get(user=user).ip == "192.0.2.7"  # proxy not trusted

    def test_behind_the_proxy_the_address_nginx_appended(self, settings):
        settings.DDZ_TRUST_FORWARDED_FOR = True
        forged = {
            "client": ("1.2.3.4", 1),  # daphne --proxy-headers takes the first entry
            "headers": [(b"x-forwarded-for", b"1.2.3.4, 198.51.100.8")],
        }
        assert client_ip(forged) == "198.51.100.8"
        assert client_ip({"client": ("127.0.0.1", 1), "headers": []}) == "127.0.0.1"


class AbandonSignalTests:
    def test_silent_when_timeouts_are_rare(self):
        users = _players(3)
        table = make_table()
        for i in range(10):
            finished_hand(
                table, users, landlord=[0], beans=[100, -50, -50], timeouts=(1,) if i == 0 else ()
            )
        assert signal_abandons() == []

    def test_fires_on_frequent_timeouts_and_leaving(self):
        users = _players(3)
        table = make_table()
        flagged = []
        for i in range(10):
            hand = finished_hand(
                table,
                users,
                landlord=[0],
                beans=[100, -50, -50],
                timeouts=(2,) if i % 3 == 0 else (),
                left=(2,) if i == 1 else (),
            )
            if i % 3 == 0 or i == 1:
                flagged.append(hand.pk)
        signals = signal_abandons()
        assert _names(signals) == [("u2",)]
        assert signals[0].hand_ids == sorted(flagged, reverse=True)
        assert signals[0].summary["left"] == 1 and signals[0].summary["timeouts"] == 4


class OperatorPageTests:
    def test_staff_see_signals_with_replay_links_and_suspend(self, staff_client, client):
        users = _players(3)
        table = make_table()
        hand = finished_hand(table, users, landlord=[0], beans=[100, -50, -50])
        ConnectionRecord.objects.create(table=table, user=users[0], ip="10.0.0.9", seated=True)
        ConnectionRecord.objects.create(table=table, user=users[1], ip="10.0.0.9", seated=True)
        url = reverse("admin:club_fairplaysignals_changelist")
        page = staff_client.get(url)
        assert page.status_code == 200
        assert reverse("hand_detail", args=[hand.pk]) in page.content.decode()
        suspend = reverse("admin:club_fairplay_suspend", args=[users[0].pk])
        assert staff_client.get(suspend).status_code == 200
        assert staff_client.post(suspend, {"reason": "shared address"}).status_code == 302
        assert Suspension.objects.get(user=users[0]).actor == staff_client.user
        # not for players
        client.force_login(users[1])
        assert client.get(url).status_code == 302
        assert client.post(suspend, {"reason": "x"}).status_code == 302
        assert Suspension.objects.count() == 1


class SuspensionTests:
    def test_a_suspended_account_cannot_sit_and_keeps_its_ledger(
        self, django_capture_on_commit_callbacks
    ):
        room = make_room("classic3")
        ann = make_player("ann")
        table = game_services.table_create(room=room)
        game_services.table_join(table_id=table.pk, user=ann)
        ledger = list(BeanEntry.objects.filter(user=ann).values_list("pk", "delta"))
        with django_capture_on_commit_callbacks(execute=True):
            user_suspend(user=ann, reason="collusion", actor=None)
        assert not Seat.objects.filter(user=ann).exists()  # stood up
        with pytest.raises(ActionRejected) as refused:
            game_services.table_join(table_id=table.pk, user=ann)
        assert refused.value.code is ErrorCode.SUSPENDED
        assert "suspended" in refused.value.message or "停" in refused.value.message
        with pytest.raises(ActionRejected) as refused:
            game_services.table_quick_join(room=room, user=ann)
        assert refused.value.code is ErrorCode.SUSPENDED
        assert list(BeanEntry.objects.filter(user=ann).values_list("pk", "delta")) == ledger
        user_unsuspend(user=ann)
        game_services.table_join(table_id=table.pk, user=ann)

    def test_the_sit_view_shows_the_reason(self, client):
        room = make_room("classic3")
        ann = make_player("ann")
        table = game_services.table_create(room=room)
        user_suspend(user=ann, reason="collusion", actor=None)
        client.force_login(ann)
        client.cookies["django_language"] = "en"
        page = client.post(reverse("table_sit", args=[table.pk]), {"seat": "0"}, follow=True)
        assert "suspended" in page.content.decode()
