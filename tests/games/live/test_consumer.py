"""The table websocket: authentication, full hands of every variant with humans and bots, and
every bad frame answered to its sender alone with nothing changed."""

from __future__ import annotations

import asyncio
import re

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.test import Client

from accounts.models import HandSettlement
from games import services
from games.engine.hand import waiting_seats
from games.models import Hand, HandAction
from games.push import frames as table_frames
from games.reads.selectors import hand_state
from tests.support.tables import (
    ORIGIN,
    Socket,
    active_hand,
    client_action,
    drain,
    frame_for_action,
    fresh_screen,
    make_player,
    make_room,
    next_move,
    play_over_sockets,
    play_until_play_phase,
    regions_differing,
    seated_table,
    table_version,
)

pytestmark = [pytest.mark.asyncio, pytest.mark.usefixtures("live_db", "fresh_layer")]

db = database_sync_to_async


def _setup(variant: str, humans: int, **room_fields):
    room = make_room(variant, **room_fields)
    users = [make_player() for _ in range(humans)]
    table = seated_table(room, users)
    watcher = make_player()
    return table.pk, users, watcher


async def _open(table_id, users, watcher):
    sockets = {i: await Socket(u, table_id, f"seat{i}").open() for i, u in enumerate(users)}
    watchers = [await Socket(watcher, table_id, "watcher").open()]
    await drain([*sockets.values(), *watchers])
    return sockets, watchers


async def _close(socks):
    for s in socks:
        await s.close()


class TestConnect:
    async def test_a_connect_renders_its_state_once(self):
        """A seat coming on line pushes the table to every audience, the new socket included:
        that push is its first state, not a second rendering of the same. A second tab of
        the same player (nothing visible changes) and a spectator render their own."""
        table_id, users, watcher = await db(_setup)("qq5", 1)
        await db(services.hand_start)(table_id=table_id)
        first = await Socket(users[0], table_id, "first tab").open()
        assert await first.quiet()
        assert len(first.frames) == 1 and 'id="table-hand"' in first.frames[0]
        second = await Socket(users[0], table_id, "second tab").open()
        assert await second.quiet()
        assert len(second.frames) == 1 and 'id="table-hand"' in second.frames[0]
        assert await first.quiet()  # nothing changed for the table: no push
        spectator = await Socket(watcher, table_id, "watcher").open()
        assert 'id="table-seats"' in spectator.frames[0]
        await _close([first, second, spectator])

    async def test_a_pushed_frame_does_not_wait_for_the_database_thread(self, monkeypatch):
        """channels' dispatch would run close_old_connections in the database thread before
        every handler: a pushed frame would queue behind the table's database work."""
        import channels.consumer

        hops = []

        async def counted() -> None:
            hops.append(1)

        monkeypatch.setattr(channels.consumer, "aclose_old_connections", counted)
        table_id, users, _ = await db(_setup)("qq5", 1)
        sock = await Socket(users[0], table_id, "seat").open()
        assert await sock.quiet()
        await db(services.hand_start)(table_id=table_id)
        (deal,) = await sock.expect(1)
        assert 'id="table-hand"' in deal
        assert hops == []
        await sock.close()

    async def test_anonymous_is_closed_4401(self):
        from ddz_site.asgi import application

        table_id, _, _ = await db(_setup)("classic3", 1)
        comm = WebsocketCommunicator(application, f"/ws/table/{table_id}/", headers=ORIGIN)
        connected, _ = await comm.connect()
        assert connected
        assert (await comm.receive_output(timeout=5))["code"] == 4401

    async def test_the_handshake_does_not_wait_for_the_database_thread(self):
        """Daphne drops a handshake not accepted in 5 s: a busy database thread (a burst of
        reconnects after a restart) must not hold the accept back."""
        import asyncio
        import threading

        from ddz_site.asgi import application

        table_id, _, _ = await db(_setup)("classic3", 1)
        started, release = threading.Event(), threading.Event()

        def hold_the_database_thread() -> None:
            started.set()
            release.wait(timeout=120)

        busy = asyncio.ensure_future(db(hold_the_database_thread)())
        await asyncio.to_thread(started.wait, 60)
        comm = WebsocketCommunicator(application, f"/ws/table/{table_id}/", headers=ORIGIN)
        try:
            # held for longer than this: an accept that waited for the thread never comes
            connected, _ = await comm.connect(timeout=60)
            assert connected
        finally:
            release.set()
            await busy
        assert (await comm.receive_output(timeout=5))["code"] == 4401

    async def test_session_user_connects_through_the_real_stack(self):
        from ddz_site.asgi import application

        table_id, users, _ = await db(_setup)("classic3", 1)

        def login():
            client = Client()
            client.force_login(users[0])
            return client.cookies["sessionid"].value

        session = await db(login)()
        headers = [*ORIGIN, (b"cookie", f"sessionid={session}".encode())]
        comm = WebsocketCommunicator(application, f"/ws/table/{table_id}/", headers=headers)
        connected, _ = await comm.connect()
        assert connected
        first = await comm.receive_from(timeout=5)
        assert 'id="table-seats"' in first
        await comm.disconnect()

    async def test_no_origin_is_refused(self):
        from ddz_site.asgi import application

        table_id, _, _ = await db(_setup)("classic3", 1)
        comm = WebsocketCommunicator(application, f"/ws/table/{table_id}/")
        connected, _ = await comm.connect()
        assert not connected

    async def test_unknown_table_is_closed_4404(self):
        user = await db(make_player)()
        sock = Socket(user, 987654, "x")
        connected, _ = await sock.comm.connect()
        assert connected
        assert (await sock.comm.receive_output(timeout=5))["code"] == 4404

    async def test_reconnect_shows_the_exact_current_state(self):
        table_id, users, _watcher = await db(_setup)("qq5", 1)
        await db(services.hand_start)(table_id=table_id)
        sock = await Socket(users[0], table_id, "a").open()
        await drain([sock])
        first = sock.frames[-1]
        await sock.close()
        again = await Socket(users[0], table_id, "b").open()
        await drain([again])
        hand = await db(active_hand)(table_id)
        assert again.version() == (await db(hand_state)(hand)).public_version
        # the same regions as before (presence may differ, the hand does not)
        assert again.frames[0].split('id="table-hand"')[1] == first.split('id="table-hand"')[1]
        await again.close()


@pytest.mark.slow
class TestFullHands:
    @pytest.mark.parametrize(
        "variant,humans", [("qq5", 2), ("new5", 2), ("classic3", 3), ("fenzhou5", 1)]
    )
    async def test_a_whole_hand_over_websockets(self, variant, humans):
        table_id, users, watcher = await db(_setup)(variant, humans, house_take=1)
        sockets, watchers = await _open(table_id, users, watcher)
        await db(services.hand_start)(table_id=table_id, user=users[0])
        dealt = await db(table_version)(table_id)
        for s in [*sockets.values(), *watchers]:
            await s.reach(dealt)
        steps = await play_over_sockets(table_id, sockets, watchers)
        assert steps > 0
        hand = await db(
            lambda: Hand.objects.filter(table_id=table_id).order_by("-number").first()
        )()
        assert hand.status == Hand.Status.FINISHED
        assert await db(HandSettlement.objects.filter(hand_ref=str(hand.pk)).exists)()
        # everyone saw the end: every tab shows what a fresh load shows, the seed revealed
        everyone = [*sockets.values(), *watchers]
        await drain(everyone)
        for s in everyone:
            fresh = await db(fresh_screen)(table_id, s.user)
            assert regions_differing(s.screen, fresh) == [], s.label
            assert hand.seed in "".join(s.screen.values()), s.label
        await _close([*sockets.values(), *watchers])


def _snapshot(table_id):
    hand = active_hand(table_id)
    return hand.pk, hand.version, hand.record, HandAction.objects.filter(hand=hand).count()


class TestBadFrames:
    async def test_every_bad_frame_is_answered_to_its_sender_alone(self):
        table_id, users, watcher = await db(_setup)("classic3", 3)
        other_table, _, _ = await db(_setup)("classic3", 1)
        await db(services.hand_start)(table_id=table_id)
        sockets, watchers = await _open(table_id, users, watcher)
        everyone = [*sockets.values(), *watchers]

        async def refused(sock, data, *, resync=False):
            before = await db(_snapshot)(table_id)
            await sock.send(data)
            frames = await sock.expect(2 if resync else 1)
            assert 'id="table-error"' in frames[-1], frames[-1][:300]
            if resync:
                assert 'id="table-hand"' in frames[0]
            assert await db(_snapshot)(table_id) == before

        hand = await db(active_hand)(table_id)
        state = await db(hand_state)(hand)
        turn = waiting_seats(state)[0]
        idle = (turn + 1) % 3
        me, other = sockets[turn], sockets[idle]
        v = hand.version
        await refused(me, "{not json")
        await refused(me, "[1, 2]")
        await refused(me, '"text"')
        await refused(me, {"intent": "dance"})
        await refused(me, {"act": "bid"})
        await refused(me, {"intent": "act", "version": str(v), "act": "shout"})
        await refused(me, {"intent": "act", "version": str(v), "act": "timeout"})
        await refused(me, {"intent": "act", "version": str(v), "act": "bid", "value": "x"})
        await refused(me, {"intent": "act", "version": str(v), "act": "bid", "value": "9"})
        await refused(me, {"intent": "act", "version": {"a": 1}, "act": "bid", "value": "1"})
        await refused(me, {"intent": "act", "act": "bid", "value": "1"})
        await refused(me, {"intent": "act", "version": str(v), "act": "play", "cards": "3s"})
        await refused(me, {"intent": "act", "version": str(v), "act": "pass"})
        await refused(other, {"intent": "act", "version": str(v), "act": "bid", "value": "1"})
        await refused(
            me, {"intent": "act", "version": str(v + 5), "act": "bid", "value": "1"}, resync=True
        )
        await refused(
            me,
            {"intent": "act", "version": str(v), "act": "bid", "value": "1", "table": other_table},
        )
        await refused(
            me,
            {"intent": "act", "version": str(v), "act": "bid", "value": "1", "hand": 10**9},
            resync=True,
        )
        await refused(
            me, {"intent": "act", "version": str(v), "act": "bid", "value": "1", "x": "y" * 5000}
        )
        await refused(watchers[0], {"intent": "act", "version": str(v), "act": "bid", "value": "1"})
        await me.comm.send_to(bytes_data=b"\x00\x01")
        assert 'id="table-error"' in (await me.expect(1))[0]
        for sock in everyone:  # nothing reached anyone else, nothing extra reached the sender
            assert await sock.quiet(), f"{sock.label} got a frame"

        # in play: cards not held, not a combination, does not beat
        hand = await db(play_until_play_phase)(table_id, users)
        await drain(everyone)
        state = await db(hand_state)(hand)
        leader = sockets[state.turn]
        from games.engine.cards import format_cards

        foreign = [c for s in range(3) if s != state.turn for c in state.hands[s]]
        missing = next(c for c in foreign if c not in state.hands[state.turn])
        v = leader.version()
        await refused(
            leader,
            {"intent": "act", "version": str(v), "act": "play", "cards": format_cards([missing])},
        )
        await refused(leader, {"intent": "act", "version": str(v), "act": "play", "cards": "zz"})
        await refused(leader, {"intent": "act", "version": str(v), "act": "play", "cards": ""})
        await refused(leader, {"intent": "act", "version": str(v), "act": "pass"})
        for sock in everyone:
            assert await sock.quiet(), f"{sock.label} got a frame"
        # and a good frame still works afterwards
        action = await db(client_action)(state, state.turn)
        await leader.send(frame_for_action(action, v))
        for s in everyone:
            await s.expect(1)
        await _close(everyone)


class TestAutoplay:
    async def test_hand_over_and_take_back_control(self):
        table_id, users, watcher = await db(_setup)("classic3", 3)
        await db(services.hand_start)(table_id=table_id)
        await db(play_until_play_phase)(table_id, users)
        sockets, watchers = await _open(table_id, users, watcher)
        hand = await db(active_hand)(table_id)
        state = await db(hand_state)(hand)
        nxt = (state.turn + 1) % 3
        sock = sockets[nxt]
        await sock.send({"intent": "autoplay", "value": "true"})
        for s in [*sockets.values(), *watchers]:
            await s.expect(1)
        hand = await db(active_hand)(table_id)
        assert (await db(hand_state)(hand)).autoplay[nxt]
        await sock.send({"intent": "autoplay", "value": "false"})
        for s in [*sockets.values(), *watchers]:
            await s.expect(1)
        hand = await db(active_hand)(table_id)
        assert not (await db(hand_state)(hand)).autoplay[nxt]
        await _close([*sockets.values(), *watchers])


class TestLanguages:
    async def test_a_spectator_reads_pushes_in_his_browsers_language(self):
        table_id, users, watcher = await db(_setup)("classic3", 3)
        sockets = {i: await Socket(u, table_id, f"seat{i}").open() for i, u in enumerate(users)}
        english = Socket(watcher, table_id, "watcher")
        english.comm.scope["headers"] = [
            *english.comm.scope["headers"],
            (b"accept-language", b"en"),
        ]
        await english.open()
        await drain([*sockets.values(), english])
        mark = len(english.frames)
        await db(services.hand_start)(table_id=table_id)
        await drain([*sockets.values(), english])
        pushed = english.frames[mark:]
        assert pushed and all("倍数" not in frame for frame in pushed)
        assert any("Multiplier" in frame for frame in pushed)
        await _close([*sockets.values(), english])


@pytest.mark.asyncio
async def test_a_push_crossing_a_closing_tab_is_dropped_without_an_error():
    """daphne's protocol refuses a frame once the tab has gone (autobahn's Disconnected); the
    consumer would otherwise die with "Exception inside application" on a routine close."""
    from types import SimpleNamespace

    from autobahn.exception import Disconnected

    from games.live.consumers import TableConsumer

    consumer = TableConsumer()
    consumer.user = SimpleNamespace(pk=7)
    consumer.language = "en"
    sent = []

    async def closed(message):
        sent.append(message)
        raise Disconnected("Attempt to send on a closed protocol")

    consumer.base_send = closed
    seat = table_frames.SeatFrame(
        table_id=1, user_id=7, language="en", html='<div id="table-status"></div>'
    )
    await consumer.frame_html(table_frames.to_message(seat)[1])
    assert sent and sent[0]["type"] == "websocket.send"


class _Dropping:
    """Wraps the layer's sending: the next push loses its frames for ``groups``."""

    def __init__(self, layer) -> None:
        self.layer = layer
        self.send = layer.group_send_many
        self.groups: set[str] = set()
        self.dropped: list[str] = []
        layer.group_send_many = self.group_send_many

    async def group_send_many(self, frames):
        if self.groups:
            self.dropped = [group for group, _event in frames if group in self.groups]
            frames = [(group, event) for group, event in frames if group not in self.groups]
            self.groups = set()
        await self.send(frames)


async def _move(table_id: int, seats: dict[int, Socket]) -> Socket:
    seat, action = await db(next_move)(table_id, set(seats))
    sock = seats[seat]
    await sock.send(frame_for_action(action, sock.version()))
    return sock


def _phase(table_id: int) -> str:
    return hand_state(active_hand(table_id)).phase


async def _to_the_play(table_id: int, seats: dict[int, Socket], everyone: list[Socket]) -> int:
    """Deal, and move every seat until the play phase; the table version every tab shows."""
    await db(services.hand_start)(table_id=table_id)
    shown = await db(table_version)(table_id)
    for s in everyone:
        await s.reach(shown)
    while await db(_phase)(table_id) != "play":
        sock = await _move(table_id, seats)
        await sock.expect(1)  # his own frame (in a sealed step, the only one)
        shown = await db(table_version)(table_id)
        for s in everyone:
            await s.reach(shown)
    return shown


async def test_a_lost_push_heals_by_a_resync_to_the_exact_screen():
    """Versioned frames (issue #17): a push lost on its way (a full channel queue drops a
    message) shows as a version gap at the next push; the page asks for a resync and ends with
    exactly the screen a fresh load renders."""
    # without the 记牌器, which a play changes for every seat that had not seen its cards
    options = {"card_counter": False}
    table_id, users, watcher = await db(_setup)("classic3", 3, options=options)
    seats, (spectator,) = await _open(table_id, users, watcher)
    everyone = [*seats.values(), spectator]

    # in play a move changes the own regions of the mover and of the next to act alone
    dealt = await _to_the_play(table_id, seats, everyone)

    # the next push's public frame is lost: every tab misses its shared regions; the mover and
    # the next to act have their own frames of it, a player who acts after the next one has none
    mover, _action = await db(next_move)(table_id, set(seats))
    victim = seats[(mover + 2) % 3]  # not the next to act: his screen is stale
    dropping = _Dropping(get_channel_layer())
    lose = {table_frames.public_group(table_id)}
    dropping.groups = set(lose)
    sock = await _move(table_id, seats)
    await sock.expect(1)
    assert set(dropping.dropped) == lose
    lost = await db(table_version)(table_id)
    assert lost == dealt + 1
    for s in everyone:
        if s not in (victim, spectator):
            while s.shown != lost:
                await s.expect(1)
    assert await victim.quiet() and await spectator.quiet()
    assert victim.shown == spectator.shown == dealt  # they still show the deal

    # the push after the lost one skips a version for the pages that had no frame of it: they
    # ask for the full screen. (Not a move: every seat's forms send the lost hand version.)
    first = seats[mover]
    hand = await db(active_hand)(table_id)
    await db(services.seat_set_autoplay)(
        table_id=table_id, hand_id=hand.pk, user=first.user, enabled=True
    )
    after = await db(table_version)(table_id)
    assert after == lost + 1
    for s in everyone:
        await s.reach(after)
    await drain(everyone)
    assert victim.resyncs >= 1 and spectator.resyncs >= 1
    assert seats[(mover + 1) % 3].resyncs == first.resyncs == 0  # they had a frame of it
    for s in everyone:
        fresh = await db(fresh_screen)(table_id, s.user)
        assert regions_differing(s.screen, fresh) == [], s.label
    await _close(everyone)


async def test_a_lost_own_frame_heals_by_a_resync_to_the_exact_screen():
    """A seat's own frame of a version is sent only when his regions change, so its loss shows
    at no version gap: his copy of the version's public frame says that one was sent, and the
    page that has none asks for the full screen."""
    table_id, users, watcher = await db(_setup)("classic3", 3)
    seats, (spectator,) = await _open(table_id, users, watcher)
    everyone = [*seats.values(), spectator]
    await _to_the_play(table_id, seats, everyone)

    mover, _action = await db(next_move)(table_id, set(seats))
    victim = seats[(mover + 1) % 3]  # the next to act: his controls change
    dropping = _Dropping(get_channel_layer())
    dropping.groups = {table_frames.user_group(table_id, victim.user.pk)}
    sock = await _move(table_id, seats)
    await sock.expect(1)
    assert dropping.dropped == [table_frames.user_group(table_id, victim.user.pk)]
    moved = await db(table_version)(table_id)
    for s in everyone:
        await s.reach(moved)
    await drain(everyone)
    assert victim.resyncs == 1
    assert all(s.resyncs == 0 for s in everyone if s is not victim)
    for s in everyone:
        fresh = await db(fresh_screen)(table_id, s.user)
        assert regions_differing(s.screen, fresh) == [], s.label
    await _close(everyone)


async def test_a_seat_can_move_on_its_own_frame_before_the_shared_regions_come():
    """A seat's own frame of a version comes before the version's shared regions: the controls
    that make it his turn carry the hand version his move must name (static/games/table.js
    sends theirs), so a move made at once is not refused as stale."""
    table_id, users, watcher = await db(_setup)("classic3", 3)
    seats, (spectator,) = await _open(table_id, users, watcher)
    everyone = [*seats.values(), spectator]
    await _to_the_play(table_id, seats, everyone)
    mover, _action = await db(next_move)(table_id, set(seats))
    await _move(table_id, seats)
    nxt = seats[(mover + 1) % 3]
    (own,) = await nxt.expect(1)
    assert 'data-part="seat"' in own and 'data-my-turn="1"' in own
    version = int(re.search(r'id="table-controls"[^>]*data-version="(\d+)"', own)[1])
    hand = await db(active_hand)(table_id)
    assert version == (await db(hand_state)(hand)).public_version
    _seat, action = await db(next_move)(table_id, set(seats))
    await nxt.send(frame_for_action(action, version))
    for _ in range(600):  # the move is taken (a refusal would leave the hand where it was)
        if (await db(active_hand)(table_id)).version > hand.version:
            break
        await asyncio.sleep(0.1)
    await drain(everyone)
    assert (await db(active_hand)(table_id)).version > hand.version
    assert not any("error-msg" in frame for frame in nxt.frames)
    await _close(everyone)
