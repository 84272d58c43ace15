"""Spectators and quick chat over the table websocket: the public view only (never a seat's
hidden cards, over whole hands of every variant, chat and count pushes included), a spectator
count kept in the database, spectators cannot act, chat bubbles to the right audiences, the
per-user rate limit, escaping of free text."""

from __future__ import annotations

import datetime

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from club.models import ChatMessage
from games import services
from games.engine.hand import waiting_seats
from games.models import HandAction, SocketLease
from games.reads.selectors import hand_state
from games.runner.deadlines import presence_sweep
from tests.support.leaks import check_frame, views_of
from tests.support.tables import (
    Socket,
    active_hand,
    drain,
    make_player,
    make_room,
    play_over_sockets,
    seated_table,
    table_version,
)

pytestmark = [pytest.mark.asyncio, pytest.mark.usefixtures("live_db", "fresh_layer")]

db = database_sync_to_async


def _setup(variant: str = "classic3", humans: int = 3, watchers: int = 1):
    room = make_room(variant)
    users = [make_player() for _ in range(humans)]
    table = seated_table(room, users)
    return table.pk, users, [make_player() for _ in range(watchers)]


async def _open(table_id, users, watchers):
    seats = {i: await Socket(u, table_id, f"seat{i}").open() for i, u in enumerate(users)}
    watching = [await Socket(w, table_id, "watcher").open() for w in watchers]
    await drain([*seats.values(), *watching])
    return seats, watching


async def _close(socks):
    for s in socks:
        await s.close()


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["qq5", "new5", "classic3", "fenzhou5"])
async def test_a_spectator_never_sees_a_hidden_card_over_a_whole_hand(variant):
    """Every frame a spectator gets (table pushes, chat bubbles of players and spectators,
    spectator counts) shows only what the public view holds at that moment."""
    table_id, users, watchers = await db(_setup)(variant)
    seats, watching = await _open(table_id, users, watchers)
    watcher = watching[0]
    await db(services.hand_start)(table_id=table_id)
    dealt = await db(table_version)(table_id)
    for s in [*seats.values(), watcher]:
        await s.reach(dealt)
    checked = 0
    step = 0

    async def check(marks):
        nonlocal checked, step
        step += 1
        if step == 3:  # a player's and the spectator's chat in the middle of the hand
            await seats[0].send({"intent": "chat", "key": "nice"})
            await watcher.send({"intent": "chat", "key": "smile"})
            for s in seats.values():
                bubble = (await s.expect(1))[0]
                assert 'class="club-bubble' in bubble
                s.frames.pop()  # keep the last table frame last (its version is read)
            await watcher.expect(2)
        views = await db(views_of)(table_id, len(users))
        for html in watcher.frames[marks["watcher"] :]:
            check_frame("watcher", html, views["watcher"])
            checked += 1

    await play_over_sockets(table_id, seats, [watcher], after_step=check)
    # every version of the hand came to the spectator and was checked (a hand's length is the
    # bots': a quick one had 18 versions, under a fixed floor of 20 frames)
    played = await db(table_version)(table_id) - dealt
    assert played > 0 and checked >= played
    assert sum('class="club-bubble' in f for f in watcher.frames) == 1
    assert sum("club-watch-line" in f for f in watcher.frames) == 1
    await _close([*seats.values(), watcher])


async def _count_pushes(sock) -> list[str]:
    mark = len(sock.frames)
    await drain([sock])
    return [f for f in sock.frames[mark:] if 'id="club-spectators"' in f]


async def test_spectator_count_in_the_database_and_pushed_to_the_table():
    from club.selectors.tables import spectator_count

    table_id, users, watchers = await db(_setup)("classic3", 1, 2)
    player = await Socket(users[0], table_id, "seat0").open()
    await drain([player])
    assert await db(SocketLease.objects.filter(table_id=table_id).count)() == 1
    assert await db(spectator_count)(table_id=table_id) == 0
    first = await Socket(watchers[0], table_id, "w1").open()
    pushed = await _count_pushes(player)
    assert len(pushed) == 1 and 'data-count="1"' in pushed[0]
    # a second tab of the same spectator changes nothing
    again = await Socket(watchers[0], table_id, "w1b").open()
    assert await _count_pushes(player) == []
    second = await Socket(watchers[1], table_id, "w2").open()
    pushed = await _count_pushes(player)
    assert len(pushed) == 1 and 'data-count="2"' in pushed[0]
    assert await db(spectator_count)(table_id=table_id) == 2
    await second.close()
    assert len(await _count_pushes(player)) == 1
    assert await db(spectator_count)(table_id=table_id) == 1
    await _close([again, first, player])
    assert await db(SocketLease.objects.filter(table_id=table_id).count)() == 0


def _spectator_elsewhere(table_id, user, settings) -> None:
    """A socket of ``user`` at the table held by another process, which stopped a lease ago."""
    services.seat_connect(table_id=table_id, user=user, channel_name="elsewhere!w")
    SocketLease.objects.filter(channel_name="elsewhere!w").update(process="elsewhere")
    return lambda: SocketLease.objects.filter(channel_name="elsewhere!w").update(
        renewed_at=timezone.now() - datetime.timedelta(seconds=settings.DDZ_SOCKET_LEASE_SECONDS)
    )


async def test_a_stopped_process_takes_its_spectators_with_its_leases(settings):
    """Issue #31: a killed process's spectators stayed in the count for good (their rows were
    never swept). The count is the leases': past a lease it leaves them out, and the sweep of
    their leases pushes the new count."""
    from club.selectors.tables import spectator_count

    table_id, users, watchers = await db(_setup)("classic3", 1, 1)
    player = await Socket(users[0], table_id, "seat0").open()
    await drain([player])
    stop = await db(_spectator_elsewhere)(table_id, watchers[0], settings)
    assert await db(spectator_count)(table_id=table_id) == 1
    await db(stop)()
    assert await db(spectator_count)(table_id=table_id) == 0
    await db(presence_sweep)()
    pushed = await _count_pushes(player)
    assert len(pushed) == 1 and 'data-count="0"' in pushed[0]
    assert await db(SocketLease.objects.filter(table_id=table_id).count)() == 1
    await player.close()


def _snapshot(table_id):
    hand = active_hand(table_id)
    return (hand.version, HandAction.objects.filter(hand=hand).count())


async def test_a_spectator_cannot_act():
    table_id, users, watchers = await db(_setup)("classic3", 3)
    await db(services.hand_start)(table_id=table_id)
    seats, watching = await _open(table_id, users, watchers)
    watcher = watching[0]
    hand = await db(active_hand)(table_id)
    state = await db(hand_state)(hand)
    assert waiting_seats(state)
    before = await db(_snapshot)(table_id)
    for frame in (
        {"intent": "act", "version": str(hand.version), "act": "bid", "value": "3"},
        {"intent": "act", "version": str(hand.version), "act": "pass"},
        {"intent": "autoplay", "value": "true"},
    ):
        await watcher.send(frame)
        got = await watcher.expect(1)
        assert 'id="table-error"' in got[-1]
    assert await db(_snapshot)(table_id) == before
    for s in seats.values():
        assert await s.quiet()
    await _close([*seats.values(), watcher])


async def test_chat_audiences_rate_limit_and_refusals(settings):
    settings.DDZ_CHAT_RATE_COUNT = 2
    settings.DDZ_CHAT_RATE_SECONDS = 60
    table_id, users, watchers = await db(_setup)("classic3", 2, 2)
    seats, watching = await _open(table_id, users, watchers)
    await drain([*seats.values(), *watching])
    everyone = [*seats.values(), *watching]
    # a player's phrase: a bubble over his seat for everyone at the table
    await seats[0].send({"intent": "chat", "key": "hurry", "HEADERS": {"HX-Request": "true"}})
    for s in everyone:
        got = await s.expect(1)
        assert "club-bubble" in got[0] and users[0].username in got[0]
    # a spectator's emote: the other spectators (and himself) only, never the players
    await watching[0].send({"intent": "chat", "key": "wink"})
    for s in watching:
        got = await s.expect(1)
        assert "club-watch-line" in got[0] and "😉" in got[0]
    for s in seats.values():
        assert await s.quiet()
    # the rate limit is per user: the third message within the window is refused, clearly
    await seats[0].send({"intent": "chat", "key": "sorry"})
    for s in everyone:
        await s.expect(1)
    await seats[0].send({"intent": "chat", "key": "again"})
    got = await seats[0].expect(1)
    assert 'id="table-error"' in got[0] and "10" not in got[0] and "60" in got[0]
    for s in everyone[1:]:
        assert await s.quiet()
    # unknown phrases and free text (off by default) are refused to the sender alone
    await seats[1].send({"intent": "chat", "key": "<b>boo</b>"})
    assert 'id="table-error"' in (await seats[1].expect(1))[0]
    await seats[1].send({"intent": "chat", "text": "hello"})
    assert 'id="table-error"' in (await seats[1].expect(1))[0]
    for s in [seats[0], *watching]:
        assert await s.quiet()
    assert await db(ChatMessage.objects.filter(table_id=table_id).count)() == 3
    await _close(everyone)


async def test_free_text_when_the_operator_allows_it_is_escaped_and_limited(settings):
    settings.DDZ_CHAT_FREE_TEXT = True
    settings.DDZ_CHAT_MAX_CHARS = 20
    table_id, users, watchers = await db(_setup)("classic3", 1, 1)
    seats, watching = await _open(table_id, users, watchers)
    await seats[0].send({"intent": "chat", "text": "<script>x()</script>"})
    for s in [seats[0], *watching]:
        got = (await s.expect(1))[0]
        assert "<script>" not in got and "&lt;script&gt;x()&lt;/script&gt;" in got
    await seats[0].send({"intent": "chat", "text": "y" * 21})
    got = (await seats[0].expect(1))[0]
    assert 'id="table-error"' in got and "20" in got
    assert await watching[0].quiet()
    await _close([seats[0], *watching])
