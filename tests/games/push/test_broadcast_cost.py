"""The cost of one table push stays pinned (issue #6: 200 tables on one process), and the
shared rendering of a push gives every audience exactly what rendering it alone gives."""

from __future__ import annotations

import re

import pytest
from django.conf import settings

from games import services
from games.engine.hand import waiting_seats
from games.engine.views import view_for
from games.models import Seat, Table
from games.push import frames as table_frames
from games.push import send
from games.reads.selectors import hand_state, table_current_hand, table_get
from games.reads.snapshot import table_snapshot
from games.runner.deadlines import hand_apply_due_deadlines
from games.screen import render_cache
from tests.support.tables import (
    active_hand,
    awaits_bot,
    client_action,
    make_player,
    make_room,
    push_frames,
    regions,
    screen_html,
    seated_table,
    swap_in,
)

pytestmark = pytest.mark.django_db

# table, hand, seats (+users), hand players, the players' and spectators' languages (one
# query): the title ladder is in memory once read
MAX_QUERIES_PER_PUSH = 5
# after a move, the service hands its push what it just wrote: only the languages are read
MAX_QUERIES_KNOWN = 1


def _alone(table_id: int, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every audience rendered on its own (the page's and a resync's path), nothing reused
    from earlier renderings."""
    with monkeypatch.context() as patch:
        patch.setattr(render_cache, "cached", lambda key, render: render())
        return _rendered_alone(table_id)


def _rendered_alone(table_id: int) -> dict[str, str]:
    """Each audience's rendering by the group its frames go to."""
    table = table_get(table_id=table_id)
    seats = Seat.objects.filter(table=table, user__isnull=False).select_related("user")
    out = {
        table_frames.user_group(table_id, s.user_id): screen_html(
            table, seat_index=s.index, user=s.user
        )
        for s in seats.order_by("index")
    }
    out[table_frames.public_group(table_id)] = screen_html(table, seat_index=None, user=None)
    return out


def _apply(screens: dict[str, dict[str, str]], frames: list) -> None:
    """What each audience's page shows after ``frames``, by region (the consumer's choice of a
    public frame's parts: a seated user's shared regions, a spectator's with his own)."""
    for frame in frames:
        if isinstance(frame, table_frames.SeatFrame):
            swap_in(screens.setdefault(frame.group, {}), frame.html)
            continue
        for uid, language in frame.seated_languages.items():
            user = table_frames.user_group(frame.table_id, uid)
            swap_in(screens.setdefault(user, {}), frame.html_by_language[language])
        # a spectator's socket (no seated user has id 0), as the consumer picks it
        watcher = frame.text_for(user_id=0, language=settings.LANGUAGE_CODE)
        swap_in(screens.setdefault(frame.group, {}), watcher)


def _pushed(table_id: int) -> dict[str, dict[str, str]]:
    screens: dict[str, dict[str, str]] = {}
    _apply(screens, push_frames(table_id))
    return screens


def _same_but_clock(a: dict[str, dict[str, str]], b: dict[str, str]) -> None:
    """Every screen of ``a`` is its group's rendering alone in ``b``, region by region, but for
    the clock and the frame's header (a push's, a fresh load's, or none)."""
    now = re.compile(r' data-now="[^"]*"')

    def clean(screen: dict[str, str]) -> dict[str, str]:
        return {k: now.sub("", v) for k, v in screen.items() if k != "table-frame"}

    fresh = {g: clean(regions(b[g])) for g in a}
    # what rides along (#table-session between hands, notices) is no part of a rendering alone
    assert {g: clean({k: x[k] for k in fresh[g] if k in x}) for g, x in a.items()} == fresh


def test_queries_per_push_are_pinned(django_assert_max_num_queries):
    room = make_room("qq5")
    humans = [make_player() for _ in range(5)]
    table = seated_table(room, humans)
    push_frames(table.pk)  # the ladder read once
    with django_assert_max_num_queries(MAX_QUERIES_PER_PUSH - 1):  # no hand yet
        push_frames(table.pk)
    services.hand_start(table_id=table.pk)
    with django_assert_max_num_queries(MAX_QUERIES_PER_PUSH):
        frames = push_frames(table.pk)
    assert len(frames) == 6  # one per seat, and the public one with their shared regions
    # the push of a service that just wrote the table reads only the languages
    locked = Table.objects.select_related("room").get(pk=table.pk)  # as the services lock it
    hand = table_current_hand(table=locked)
    known = table_snapshot(
        table=locked,
        hand=hand,
        seats=list(Seat.objects.filter(table=table).select_related("user")),
        holders={seat: user.pk for seat, user in enumerate(humans)},
        state=hand_state(hand),
    )
    with django_assert_max_num_queries(MAX_QUERIES_KNOWN):
        assert len(table_frames.audience_frames(known)) == 6


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)  # every push is sent at its commit
def test_a_push_renders_each_audience_as_alone(monkeypatch):
    """Pushes reuse renderings of earlier pushes and other audiences, and a service's push
    what the service just wrote: over a whole hand, each audience's frame, as sent after a
    move and as read back from the database, is what rendering it alone from scratch gives."""
    sent: list[list] = []
    monkeypatch.setattr(send, "send_frames", sent.append)
    room = make_room("qq5")
    humans = [make_player() for _ in range(4)]  # and one bot
    table = seated_table(room, humans)
    users = dict(enumerate(humans))
    services.seat_connect(table_id=table.pk, user=make_player(), channel_name="watcher")
    services.hand_start(table_id=table.pk)
    screens: dict[str, dict[str, str]] = {}  # each page, by region, as the pushes left it
    for _ in range(400):
        alone = _alone(table.pk, monkeypatch)
        pushed = _pushed(table.pk)
        assert pushed.keys() == alone.keys()
        _same_but_clock(pushed, alone)
        assert sent
        while sent:  # the pushes: to every audience, or a sealed step's decider alone
            _apply(screens, sent.pop(0))
        assert screens.keys() == alone.keys()
        _same_but_clock(screens, alone)
        hand = active_hand(table)
        if hand is None:
            break
        state = hand_state(hand)
        waiting = waiting_seats(state)
        # the bot's reply, or the close of a sealed step everyone has decided: pushed from
        # the deadline runner
        if awaits_bot(hand) or not waiting:
            hand_apply_due_deadlines(now=hand.deadline_at)
            continue
        seat = next(s for s in waiting if s in users)
        services.hand_submit_action(
            hand_id=hand.pk,
            user=users[seat],
            action=client_action(state, seat),
            expected_version=hand.version,
        )
    else:
        raise AssertionError("the hand did not end")


def _three_humans_move_by_move(monkeypatch):
    """A classic3 table of three humans with a hand dealt, and its moves one by one: each
    ``(hand, state, mover, move)``, where ``move()`` makes the mover's move and returns the
    pushes it sent."""
    sent: list[list] = []
    monkeypatch.setattr(send, "send_frames", sent.append)
    humans = [make_player() for _ in range(3)]
    table = seated_table(make_room("classic3"), humans)
    users = dict(enumerate(humans))
    services.hand_start(table_id=table.pk)

    def moves():
        for _ in range(200):
            hand = active_hand(table)
            if hand is None:
                return
            state = hand_state(hand)
            (mover,) = waiting_seats(state)

            def move(hand=hand, state=state, mover=mover) -> list[list]:
                sent.clear()
                services.hand_submit_action(
                    hand_id=hand.pk,
                    user=users[mover],
                    action=client_action(state, mover),
                    expected_version=hand.version,
                )
                return list(sent)

            yield hand, state, mover, move

    return table, users, moves()


@pytest.mark.django_db(transaction=True)  # every push is sent at its commit
def test_a_move_sends_own_regions_to_the_seats_it_changed_alone(monkeypatch):
    """In play a move changes the own regions of the mover (hand, controls) and of the next to
    act (his controls: his hand stays as it is); the others get the public frame, every seat
    the same one, and their 记牌器 alone when the move played cards they had not seen (not the
    shown bottom, say)."""
    from games.engine.combos import BOMB_KINDS

    table, users, moves = _three_humans_move_by_move(monkeypatch)
    checked = counted = 0
    for hand, state, mover, move in moves:
        (push,) = move()
        groups = [frame.group for frame in push]
        assert groups[-1] == table_frames.public_group(table.pk)  # once, after the own frames
        hand.refresh_from_db()
        after = hand_state(hand)
        bomb = after.plays and after.plays[-1].combo.kind in BOMB_KINDS  # every stake moves
        if state.phase != "play" or after.phase != "play" or after.finished or bomb:
            continue
        (following,) = waiting_seats(after)
        onlookers = {
            s
            for s in users
            if s not in (mover, following)
            and view_for(state, s)["unseen"] != view_for(after, s)["unseen"]
        }
        counted += bool(onlookers)
        changed = {mover, following, *onlookers}
        assert set(groups[:-1]) == {table_frames.user_group(table.pk, users[s].pk) for s in changed}
        for frame in push[:-1]:
            if frame.group in {table_frames.user_group(table.pk, users[s].pk) for s in onlookers}:
                assert re.findall(r'<div id="([\w-]+)"', frame.html) == [
                    "table-frame",
                    "table-counter",
                ]
            if frame.group == table_frames.user_group(table.pk, users[following].pk):
                # only the turn came to him: his controls say so, his hand is not sent again
                names = re.findall(r'<div id="([\w-]+)"', frame.html)
                assert "table-controls" in names and "table-hand" not in names, names
        checked += 1
    assert checked > 5 and counted


def _panels(html: str) -> dict[int, str]:
    """The seat panels in ``html`` by seat, as a fresh load shows them (no oob mark)."""
    found = re.findall(r'(<section [^>]*id="table-seat-(\d+)".*?</section>)', html, re.S)
    return {int(seat): panel.replace(' hx-swap-oob="true"', "") for panel, seat in found}


@pytest.mark.django_db(transaction=True)  # every push is sent at its commit
def test_a_move_sends_only_the_seat_panels_it_changed(monkeypatch):
    """A move's public frame carries the seat panels that look different after it, and those
    of the seats to act (their clock starts again), not #table-seats whole; a panel whose
    occupant's lines did not change goes as its play part alone. Swapped in by id, they leave
    every page's panels as a fresh load shows them after the move."""
    table, _users, moves = _three_humans_move_by_move(monkeypatch)
    checked = fewer = play_alone = 0
    for _hand, _state, _mover, move in moves:
        shown = _alone(table.pk, monkeypatch)[table_frames.public_group(table.pk)]
        before = _panels(shown)
        pushes = move()
        if active_hand(table) is None:  # the last move's push reads the settled table
            break
        (push,) = pushes
        public = push[-1]
        assert isinstance(public, table_frames.PublicFrame)
        group = public.group
        html = public.html_by_language[next(iter(public.html_by_language))]
        assert 'id="table-seats"' not in html
        after = _panels(_alone(table.pk, monkeypatch)[group])
        sent = {
            int(m[1]): m[2]
            for m in re.finditer(r"^table-seat-(\d+)(-play)?$", "\n".join(regions(html)), re.M)
        }
        acting = set(waiting_seats(hand_state(active_hand(table))))
        assert sent.keys() == {s for s in after if after[s] != before[s]} | acting
        screen = regions(shown)
        swap_in(screen, html)
        assert _panels(screen["table-seats"]) == after  # each as a fresh load shows it
        checked += 1
        fewer += len(sent) < len(after)
        play_alone += sum(1 for part in sent.values() if part)
    assert checked > 10 and fewer > 5 and play_alone > 10


# the status's clock (shown or hidden) and the server's time it carries, cut out of a rendering
_CLOCK = (
    r'<span id="table-clock"[^>]*>'
    r'(?:<span class="clock-n">.*?</span><span class="muted">.*?</span>)?</span>'
)


def _unclocked(html: str) -> str:
    return re.sub(_CLOCK, "", regions(html)["table-status"])


@pytest.mark.django_db(transaction=True)  # every push is sent at its commit
def test_a_move_sends_the_status_only_when_more_than_its_clock_changed(monkeypatch):
    """A move's public frame carries #table-status when the status shows anything but its
    clock otherwise after the move, else its #table-clock alone, swapped in by id: either way
    the page's status is then a fresh load's."""
    table, _users, moves = _three_humans_move_by_move(monkeypatch)
    whole = clock_alone = 0
    for _hand, _state, _mover, move in moves:
        before = _alone(table.pk, monkeypatch)[table_frames.public_group(table.pk)]
        pushes = move()
        if active_hand(table) is None:  # the last move's push reads the settled table
            break
        (push,) = pushes
        public = push[-1]
        html = public.html_by_language[next(iter(public.html_by_language))]
        after = _alone(table.pk, monkeypatch)[public.group]
        sent = regions(html)
        if "table-status" in sent:
            whole += 1
            assert _unclocked(before) != _unclocked(after)
        else:
            clock_alone += 1
            assert _unclocked(before) == _unclocked(after)
        screen = regions(before)
        swap_in(screen, html)
        now = re.compile(r' data-now="[^"]*"')
        assert now.sub("", screen["table-status"]) == now.sub("", regions(after)["table-status"])
    assert whole > 0 and clock_alone > 10
