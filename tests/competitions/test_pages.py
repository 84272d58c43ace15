"""Event pages and operator tools: the list and an event's page in every language, register /
withdraw / pause through the page, the lobby and table banners, the admin (one-off and
recurring events, withdraw a player, cancel with refunds), and the event socket pushing live
standings."""

from __future__ import annotations

import asyncio
import datetime

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.urls import reverse
from django.utils import timezone

from competitions import runner
from competitions.models import Entry, Event, Schedule
from ddz_site.routing import websocket_urlpatterns
from tests.competitions.helpers import (
    START,
    assert_audit_clean,
    entrants,
    live_tables,
    make_event,
    step,
)
from tests.support.tables import ORIGIN, make_player, make_room, play_to_end

LANGUAGES = {"en": "Standings", "zh-hans": "排名", "zh-hant": "排名"}


@pytest.mark.django_db
class EventPagesTests:
    def test_list_and_page_in_every_language(self, client, append_only_triggers):
        room = make_room("qq5")
        event = make_event(room, name="Friday arena", min_entrants=5)
        entrants(event, 2)
        for language, word in LANGUAGES.items():
            client.cookies["django_language"] = language
            listing = client.get(reverse("event_list")).content.decode()
            assert "Friday arena" in listing
            page = client.get(reverse("event_detail", args=[event.pk])).content.decode()
            assert word in page and 'id="event-standings"' in page
            lobby = client.get(reverse("lobby")).content.decode()
            assert 'id="lobby-events"' in lobby and "Friday arena" in lobby

    def test_register_withdraw_and_pause_through_the_page(self, client, append_only_triggers):
        room = make_room("classic3")
        event = make_event(room)
        player = make_player(beans=1_000)
        client.force_login(player)
        client.post(reverse("event_register", args=[event.pk]))
        entry = Entry.objects.get(event=event, user=player)
        assert entry.active and entry.fee_paid == 100
        player.refresh_from_db()
        assert player.beans == 900
        page = client.get(reverse("event_detail", args=[event.pk])).content.decode()
        assert reverse("event_withdraw", args=[event.pk]) in page
        client.post(reverse("event_withdraw", args=[event.pk]))
        player.refresh_from_db()
        assert player.beans == 1_000 and not Entry.objects.get(pk=entry.pk).active
        history = client.get(reverse("profile")).content.decode()
        assert "Event entry fee" in history or "比赛报名费" in history
        client.post(reverse("event_register", args=[event.pk]))
        entrants(event, 2)
        event = step(event, START)
        response = client.post(reverse("event_pause", args=[event.pk]), {"paused": "1"})
        assert response.status_code == 302
        assert Entry.objects.get(event=event, user=player).paused

    def test_the_table_banner_links_back_to_the_event(self, client, append_only_triggers):
        room = make_room("classic3")
        event = make_event(room)
        players = entrants(event, 3)
        step(event, START)
        (table,) = live_tables(event)
        client.force_login(players[0])
        page = client.get(reverse("table", args=[table.pk])).content.decode()
        assert 'id="event-banner"' in page and 'data-follow="1"' in page
        assert reverse("event_detail", args=[event.pk]) in page


@pytest.mark.django_db
class OperatorTests:
    def test_admin_creates_withdraws_cancels(self, staff_client, append_only_triggers):
        room = make_room("classic3")
        response = staff_client.post(
            reverse("admin:competitions_event_add"),
            {
                # the admin's times are the club's (TIME_ZONE), not UTC
                "starts_at_0": timezone.localtime(START).strftime("%Y-%m-%d"),
                "starts_at_1": timezone.localtime(START).strftime("%H:%M:%S"),
                "name": "One-off",
                "room": room.pk,
                "format": "arena",
                "minutes": 60,
                "stop_pairing_seconds": 120,
                "rounds": 1,
                "boards_per_round": 1,
                "break_seconds": 0,
                "min_entrants": 3,
                "entry_fee": 200,
                "prize_bands": "1:100",
                "gather_seconds": 10,
                "bot_wait_seconds": 30,
                "entries-TOTAL_FORMS": 0,
                "entries-INITIAL_FORMS": 0,
            },
        )
        assert response.status_code == 302, response.content.decode()[:2000]
        event = Event.objects.get(name="One-off")
        a, b, c = entrants(event, 3)
        staff_client.post(
            reverse("admin:competitions_entry_changelist"),
            {
                "action": "withdraw_players",
                "_selected_action": [Entry.objects.get(event=event, user=a).pk],
            },
        )
        entry = Entry.objects.get(event=event, user=a)
        assert not entry.active and entry.removed_by is not None
        staff_client.post(
            reverse("admin:competitions_event_changelist"),
            {"action": "cancel_events", "_selected_action": [event.pk]},
        )
        event.refresh_from_db()
        assert event.status == Event.Status.CANCELLED
        for player in (a, b, c):
            player.refresh_from_db()
            assert player.beans == 10_000
        results = staff_client.get(reverse("admin:competitions_event_change", args=[event.pk]))
        assert results.status_code == 200
        assert_audit_clean()

    def test_a_weekly_schedule_creates_each_event_once(self, append_only_triggers):
        room = make_room("qq5")
        start = START + datetime.timedelta(days=1)
        Schedule.objects.create(
            name="Weekly qq5",
            room=room,
            format="arena",
            min_entrants=5,
            cadence="weekly",
            weekday=timezone.localtime(start).weekday(),
            time_of_day=timezone.localtime(start).time(),
            open_hours=24 * 8,
        )
        now = START
        assert runner.schedules_create(now=now) == 2
        assert runner.schedules_create(now=now) == 0
        assert runner.schedules_create(now=now + datetime.timedelta(days=7)) == 1
        starts = sorted(Event.objects.values_list("starts_at", flat=True))
        assert starts[1] - starts[0] == datetime.timedelta(days=7)


@pytest.mark.asyncio
@pytest.mark.usefixtures("live_db", "fresh_layer")
async def test_the_event_socket_pushes_live_standings():
    db = database_sync_to_async

    def setup():
        room = make_room("classic3", bot_delay_ms=0)
        event = make_event(room)
        players = entrants(event, 3)
        return event, players

    event, players = await db(setup)()
    comm = WebsocketCommunicator(
        URLRouter(websocket_urlpatterns), f"/ws/events/{event.pk}/", headers=ORIGIN
    )
    comm.scope["user"] = players[0]
    connected, _ = await comm.connect(timeout=10)
    assert connected
    first = await comm.receive_from(timeout=10)
    assert 'id="event-standings"' in first and 'id="event-own"' in first
    await db(step)(event, START)
    frames = []
    while not any("event-goto" in f for f in frames):
        frames.append(await comm.receive_from(timeout=20))
    (table,) = await db(live_tables)(event)
    await db(play_to_end)(table)
    await db(step)(event, START + datetime.timedelta(minutes=1))
    pushed = ""
    while 'data-status="running"' not in pushed or '<td class="num">1</td>' not in pushed:
        pushed = await comm.receive_from(timeout=20)
    await comm.disconnect()
    missing = WebsocketCommunicator(
        URLRouter(websocket_urlpatterns), "/ws/events/999999/", headers=ORIGIN
    )
    missing.scope["user"] = players[0]
    await missing.connect(timeout=10)
    closed = await missing.receive_output(timeout=10)
    while closed.get("type") != "websocket.close":
        closed = await missing.receive_output(timeout=10)
    assert closed["code"] == 4404
    await asyncio.sleep(0)


@pytest.mark.django_db
def test_operators_start_and_end_events_now(staff_client, append_only_triggers):
    room = make_room("classic3", bot_delay_ms=0)
    event = make_event(room)
    entrants(event, 3)
    changelist = reverse("admin:competitions_event_changelist")
    staff_client.post(changelist, {"action": "start_events", "_selected_action": [event.pk]})
    event.refresh_from_db()
    assert event.starts_at <= timezone.now()
    runner.run_due(now=timezone.now())
    (table,) = live_tables(event)
    play_to_end(table)
    runner.run_due(now=timezone.now())
    staff_client.post(changelist, {"action": "end_events", "_selected_action": [event.pk]})
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED
    assert sorted(Entry.objects.filter(event=event).values_list("rank", flat=True)) == [1, 2, 3]
    assert_audit_clean()
    # a visitor: registration is closed, and a post sends him to the login page
    staff_client.logout()
    staff_client.cookies["django_language"] = "en"
    page = staff_client.get(reverse("event_detail", args=[event.pk])).content.decode()
    assert "Registration is closed." in page and 'data-entered="1"' not in page
    response = staff_client.post(reverse("event_register", args=[event.pk]))
    assert response.status_code == 302 and "login" in response["Location"]


@pytest.mark.asyncio
@pytest.mark.usefixtures("live_db", "fresh_layer")
async def test_a_visitor_watches_the_standings_in_his_language():
    from django.contrib.auth.models import AnonymousUser

    event = await database_sync_to_async(lambda: make_event(make_room("qq5"), min_entrants=5))()
    comm = WebsocketCommunicator(
        URLRouter(websocket_urlpatterns),
        f"/ws/events/{event.pk}/",
        headers=ORIGIN,
    )
    comm.scope["user"] = AnonymousUser()
    comm.scope["cookies"] = {"django_language": "zh-hant"}
    connected, _ = await comm.connect(timeout=10)
    assert connected
    first = await comm.receive_from(timeout=10)
    assert "還沒有人報名" in first and 'id="event-own"' not in first
    await comm.disconnect()
