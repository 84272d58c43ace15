"""Simultaneous steps tell nothing of the hidden structure (issue #18).

A farmer and a spectator receive the same frames, at the same versions, with the same phase
text, whether a qq5 hand has a 暗地主 (two landlords choose 亮身份 or 放弃) or one landlord
alone, and whether a new5 grab asks several seats or none; the deciders of a step see their own
choices only. A step everybody asked has decided stays open for the room's shortest step time,
so its length does not tell how many it asked either.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable

import pytest
from channels.db import database_sync_to_async

from games import services
from games.engine.dealing import deal
from games.engine.hand import start_hand, step_closable, waiting_seats
from games.engine.state import PHASE_DOUBLE, PHASE_GRAB, PHASE_PLAY, PHASE_REVEAL, HandState
from games.engine.variants import find_variant
from games.models import Hand, HandAction
from games.reads.selectors import hand_state
from games.runner.deadlines import hand_apply_due_deadlines
from games.services import hand_run
from games.table.stakes import decision_seconds
from tests.support.tables import (
    FRAME_RE,
    Socket,
    active_hand,
    drain,
    frame_for_action,
    make_player,
    make_room,
    play_over_sockets,
    seated_table,
    table_version,
)

pytestmark = pytest.mark.slow
db = database_sync_to_async
SHORTEST = 60  # the room's shortest step: long enough that only the deadline closes a step

TABLE_VERSION = re.compile(r'id="table-clock"[^>]*data-table-version="(\d+)"')
VERSION = re.compile(r'id="table-clock"[^>]*data-version="(\d+)"')
PHASE = re.compile(r'<span class="st-phase">(.*?)</span>\s*<span class="st-mult"', re.S)
MULTIPLIER = re.compile(r'class="st-mult".*?<b>(.*?)</b>', re.S)
ACTING = re.compile(r'<div class="seat-play acting"')
TAG = re.compile(r"<[^>]+>")


def seed_where(variant: str, wanted: Callable[[HandState], bool]) -> str:
    """The first of a fixed list of seeds whose first hand at a table starts as ``wanted``."""
    v = find_variant(variant)
    for i in range(5000):
        seed = f"{i:064x}"
        if wanted(start_hand(v, deal(v, seed, hand_number=1), sealed_steps=True)):
            return seed
    raise AssertionError("no such seed in the list")


def shape(html: str, start_table_version: int) -> tuple:
    """What a frame says of the hand's progress, apart from the cards and names of its deal: a
    public frame's shared regions, or that a seat's own frame came, and at what version."""
    found = FRAME_RE.search(html)
    if found[3] == "seat":
        return ("own", int(found[1]) - start_table_version)
    phase = PHASE.search(html)
    return (
        int(TABLE_VERSION.search(html).group(1)) - start_table_version,
        VERSION.search(html).group(1) if VERSION.search(html) else None,
        TAG.sub("", phase.group(1)).split("·")[-1].strip() if phase else None,
        MULTIPLIER.search(html).group(1) if MULTIPLIER.search(html) else None,
        len(ACTING.findall(html)),
    )


def _table(variant: str, seed: str, monkeypatch) -> tuple[int, list]:
    monkeypatch.setattr(hand_run, "new_seed", lambda: seed)
    room = make_room(variant, step_min_seconds=SHORTEST)
    users = [make_player() for _ in range(6)]  # five seated, the last one watches
    return seated_table(room, users[:5]).pk, users


def _state(table_id: int) -> tuple[HandState, Hand]:
    hand = Hand.objects.filter(table_id=table_id).order_by("-number").first()
    return hand_state(hand), hand


def _close_at_deadline(table_id: int) -> datetime.datetime:
    """Run the deadlines at the hand's deadline (the step's shortest time, all decided)."""
    _state_now, hand = _state(table_id)
    assert hand.deadline_at is not None
    assert hand_apply_due_deadlines(now=hand.deadline_at) == 1
    return hand.deadline_at


class Watch:
    """Five seats and a spectator on sockets; ``observers`` are the frames compared."""

    def __init__(self, table_id: int, users: list) -> None:
        self.table_id = table_id
        self.users = users

    async def open(self) -> Watch:
        self.seats = {
            i: await Socket(u, self.table_id, f"seat{i}").open()
            for i, u in enumerate(self.users[:5])
        }
        self.watcher = await Socket(self.users[5], self.table_id, "watcher").open()
        self.everyone = [*self.seats.values(), self.watcher]
        await drain(self.everyone)
        self.marks = {s.label: len(s.frames) for s in self.everyone}
        await db(services.hand_start)(table_id=self.table_id)
        self.start = await db(table_version)(self.table_id)
        for s in self.everyone:
            await s.reach(self.start)
        return self

    async def decide(self, seat: int, action: dict) -> None:
        """A decision inside a sealed step: its sender's tab alone gets a frame."""
        sock = self.seats[seat]
        shown = sock.shown
        await sock.send(frame_for_action(action, sock.version()))
        got = (await sock.expect(1))[0]
        assert 'id="table-error"' not in got, got
        # it keeps the step's version: the page takes it as no gap (no resync asked)
        assert int(FRAME_RE.search(got).group(1)) == shown == sock.shown
        assert sock.resyncs == 0
        for s in self.everyone:
            if s is not sock:
                assert await s.quiet(), f"{s.label} heard of seat {seat}'s decision"

    async def close(self) -> None:
        await db(_close_at_deadline)(self.table_id)
        version = await db(table_version)(self.table_id)
        for s in self.everyone:
            await s.reach(version)

    def shapes(self, sock: Socket) -> list[tuple]:
        return [shape(html, self.start) for html in sock.frames[self.marks[sock.label] :]]

    async def finish(self) -> None:
        await play_over_sockets(self.table_id, self.seats, [self.watcher])
        state, _hand = await db(_state)(self.table_id)
        assert state.finished
        for s in self.everyone:
            await s.close()


# --------------------------------------------------------------------------- qq5


def _qq5_farmer(state: HandState) -> int:
    return next(s for s in range(state.seats) if s not in (state.landlord, state.partner))


async def _qq5_hand(seed: str, monkeypatch) -> tuple[list[tuple], list[tuple], HandState]:
    """Both landlords choose 放弃, everybody 不加倍, then the hand is played out; returns the
    step frames' shapes of a farmer and of the spectator."""
    table_id, users = await db(_table)("qq5", seed, monkeypatch)
    w = await Watch(table_id, users).open()
    state, _hand = await db(_state)(table_id)
    assert state.phase == PHASE_REVEAL
    for seat in state.asked:
        await w.decide(seat, {"act": "reveal", "value": False})
    state, _hand = await db(_state)(table_id)
    assert state.phase == PHASE_REVEAL and step_closable(state)
    await w.close()
    state, _hand = await db(_state)(table_id)
    assert state.phase == PHASE_DOUBLE and not state.revealed
    for seat in range(state.seats):
        await w.decide(seat, {"act": "double", "value": False})
    await w.close()
    state, _hand = await db(_state)(table_id)
    assert state.phase == PHASE_PLAY
    farmer = w.shapes(w.seats[_qq5_farmer(state)])
    spectator = w.shapes(w.watcher)
    await w.finish()
    return farmer, spectator, state


@pytest.mark.asyncio
@pytest.mark.usefixtures("live_db", "fresh_layer")
async def test_qq5_reveal_and_double_look_the_same_with_and_without_a_hidden_landlord(
    monkeypatch,
):
    two = seed_where("qq5", lambda s: s.partner is not None)
    one = seed_where("qq5", lambda s: s.partner is None)
    farmer_two, spectator_two, state_two = await _qq5_hand(two, monkeypatch)
    farmer_one, spectator_one, state_one = await _qq5_hand(one, monkeypatch)
    assert len(state_two.asked) != len(state_one.asked) or state_two.partner != state_one.partner
    # the deal, the reveal's close, the double's close: three public frames whatever the
    # structure, the farmer's the spectator's; his own frames among them (his own 不加倍 too)
    # the same whatever the structure
    assert len(spectator_two) == 3
    assert [f for f in farmer_two if f[0] != "own"] == spectator_two
    assert farmer_two == farmer_one
    assert spectator_two == spectator_one
    # the versions moved by one public transition each, the phase text followed the steps
    assert [f[1] for f in spectator_two] == ["0", "1", "2"]
    assert [f[0] for f in spectator_two] == [0, 1, 2]
    assert [f[1] for f in farmer_two if f[0] == "own"] == [0, 1, 1, 2]
    assert spectator_two[0][2] != spectator_two[1][2] != spectator_two[2][2]


# --------------------------------------------------------------------------- new5


def _grabbers(state: HandState) -> tuple[int, ...]:
    return tuple(waiting_seats(state))


def _no_auto_win_after(state: HandState) -> bool:
    """The hand goes on to the partner choice after every grabber passes."""
    from games.engine.flows import flow_for

    closed = flow_for(state.variant).close_step(state)
    return not closed.finished


async def _new5_hand(seed: str, monkeypatch) -> tuple[list[tuple], list[tuple], tuple[int, ...]]:
    """Every grabber grabs once then stops; returns the step frames' shapes of a seat that
    could not grab and of the spectator, and who could grab."""
    table_id, users = await db(_table)("new5", seed, monkeypatch)
    w = await Watch(table_id, users).open()
    state, _hand = await db(_state)(table_id)
    assert state.phase == PHASE_GRAB
    grabbers = _grabbers(state)
    for seat in grabbers:
        await w.decide(seat, {"act": "grab", "value": None})
    state, _hand = await db(_state)(table_id)
    assert step_closable(state)
    await w.close()
    state, _hand = await db(_state)(table_id)
    assert state.phase != PHASE_GRAB and not state.finished
    outsider = next(s for s in range(state.seats) if s not in grabbers)
    seat_shapes = w.shapes(w.seats[outsider])
    spectator = w.shapes(w.watcher)
    await w.finish()
    return seat_shapes, spectator, grabbers


@pytest.mark.asyncio
@pytest.mark.usefixtures("live_db", "fresh_layer")
async def test_new5_grabbing_looks_the_same_however_many_seats_may_grab(monkeypatch):
    def with_grabbers(low: int, high: int) -> Callable[[HandState], bool]:
        return lambda s: low <= len(_grabbers(s)) <= high and _no_auto_win_after(s)

    many = seed_where("new5", with_grabbers(3, 4))
    none = seed_where("new5", with_grabbers(0, 0))
    seat_many, spectator_many, grabbers_many = await _new5_hand(many, monkeypatch)
    seat_none, spectator_none, grabbers_none = await _new5_hand(none, monkeypatch)
    assert len(grabbers_many) >= 3 and not grabbers_none
    # the deal and the grab's close: two public frames, whoever could grab
    assert len(spectator_many) == 2
    assert [f for f in seat_many if f[0] != "own"] == spectator_many
    assert seat_many == seat_none
    assert spectator_many == spectator_none


# --------------------------------------------------------------------------- the clock


def _dealt_qq5(monkeypatch, *, hidden_landlord: bool) -> tuple[int, list, HandState, Hand]:
    seed = seed_where("qq5", lambda s: (s.partner is not None) == hidden_landlord)
    table_id, users = _table("qq5", seed, monkeypatch)
    services.hand_start(table_id=table_id)
    return table_id, users, *_state(table_id)


def _give_up(table_id: int, users: list, seat: int, act: str = "reveal") -> None:
    """``seat`` chooses 放弃 on the version the screens show at the step's opening."""
    services.hand_submit_action(
        table_id=table_id,
        user=users[seat],
        action={"act": act, "value": False},
        expected_version=0,
    )


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("hidden_landlord", [True, False])
def test_a_decided_step_closes_after_the_rooms_shortest_time_and_not_before(
    monkeypatch, hidden_landlord
):
    table_id, users, state, hand = _dealt_qq5(monkeypatch, hidden_landlord=hidden_landlord)
    opened = hand.decision_started_at
    for seat in state.asked:
        _give_up(table_id, users, seat)
    state, hand = _state(table_id)
    assert state.phase == PHASE_REVEAL and state.public_version == 0
    # the same deadline with one landlord or two: the step's opening plus the shortest time
    assert hand.deadline_at == opened + datetime.timedelta(seconds=SHORTEST)
    just_before = hand.deadline_at - datetime.timedelta(milliseconds=1)
    assert hand_apply_due_deadlines(now=just_before) == 0
    assert _state(table_id)[0].phase == PHASE_REVEAL
    assert hand_apply_due_deadlines(now=hand.deadline_at) == 1
    state, hand = _state(table_id)
    assert state.phase == PHASE_DOUBLE and state.public_version == 1
    close = HandAction.objects.filter(hand=hand).order_by("-seq").first()
    assert close.payload["act"] == "close" and close.source == HandAction.Source.SERVER


@pytest.mark.django_db(transaction=True)
def test_a_step_decided_after_its_shortest_time_closes_with_the_last_decision(monkeypatch):
    table_id, users, state, hand = _dealt_qq5(monkeypatch, hidden_landlord=False)
    Hand.objects.filter(pk=hand.pk).update(
        decision_started_at=hand.decision_started_at - datetime.timedelta(seconds=SHORTEST)
    )
    _give_up(table_id, users, state.landlord)
    assert _state(table_id)[0].phase == PHASE_DOUBLE


@pytest.mark.django_db(transaction=True)
def test_a_client_cannot_close_a_step(monkeypatch):
    from games.table.errors import ActionRejected, ErrorCode

    table_id, users, state, _hand = _dealt_qq5(monkeypatch, hidden_landlord=False)
    _give_up(table_id, users, state.landlord)
    with pytest.raises(ActionRejected) as refused:
        services.hand_submit_action(
            table_id=table_id,
            user=users[state.landlord],
            action={"act": "close"},
            expected_version=0,
        )
    assert refused.value.code is ErrorCode.UNKNOWN_ACT
    assert active_hand(table_id) is not None and _state(table_id)[0].phase == PHASE_REVEAL


@pytest.mark.django_db(transaction=True)
def test_a_players_hand_page_counts_no_other_seats_decision_in_a_sealed_step(monkeypatch, client):
    from django.urls import reverse

    position = re.compile(r'class="replay-pos">([^<]*)<')
    pages = {}
    for hidden_landlord in (True, False):
        table_id, users, state, hand = _dealt_qq5(monkeypatch, hidden_landlord=hidden_landlord)
        for seat in state.asked:
            _give_up(table_id, users, seat)
        client.force_login(users[_qq5_farmer(_state(table_id)[0])])
        page = client.get(reverse("hand_detail", args=[hand.pk]), HTTP_ACCEPT_LANGUAGE="en")
        assert page.status_code == 200
        pages[hidden_landlord] = position.search(page.text).group(1).strip()
        # the landlord's own page lists his own decision
        client.force_login(users[state.landlord])
        own = client.get(reverse("hand_detail", args=[hand.pk]), HTTP_ACCEPT_LANGUAGE="en")
        assert position.search(own.text).group(1).strip().endswith("1")
    assert pages[True] == pages[False]
    assert pages[True].endswith("0")


# --------------------------------------------------------------------------- the views


def _others_views(state: HandState, decider: int) -> list[dict]:
    from games.engine.views import public_view, view_for

    return [public_view(state)] + [view_for(state, s) for s in range(state.seats) if s != decider]


def _boldest(state: HandState, seat: int):
    """The decision that would change the most: 亮, 加倍, the first grab."""
    from games.engine.hand import legal_actions

    return next(
        a for a in legal_actions(state, seat) if a.value is not False and a.value is not None
    )


@pytest.mark.parametrize("variant", ["qq5", "new5"])
@pytest.mark.parametrize("number", range(6))
def test_a_decision_in_an_open_step_changes_no_other_audiences_view(variant, number):
    """Over the simultaneous steps of a few deals, each 亮, 加倍 or grab changes its decider's
    view alone, so the seats a step does not ask and the spectator see it as it opened until
    it closes."""
    from games.engine.hand import apply
    from games.engine.state import CLOSE, Action
    from games.engine.views import public_view, view_for

    def views(state: HandState, seats) -> list[dict]:
        return [public_view(state)] + [view_for(state, s) for s in seats]

    v = find_variant(variant)
    state = start_hand(v, deal(v, f"{number:064x}", hand_number=1), sealed_steps=True)
    closes = 0
    while state.phase in (PHASE_REVEAL, PHASE_DOUBLE, PHASE_GRAB):
        asked = set(waiting_seats(state))
        outsiders = [s for s in range(state.seats) if s not in asked]
        opened = views(state, outsiders)
        for seat in sorted(asked):
            while seat in waiting_seats(state):
                others = [s for s in range(state.seats) if s != seat]
                before = views(state, others)
                state = apply(state, _boldest(state, seat))
                assert views(state, others) == before
        assert step_closable(state) and views(state, outsiders) == opened
        state = apply(state, Action(state.deal.face_up_seat, CLOSE))
        closes += 1
    assert closes >= 1 and state.public_version == closes


@pytest.mark.django_db(transaction=True)
def test_a_hidden_landlord_who_drops_waits_for_the_steps_clock_not_his_grace(monkeypatch):
    """托管 at the end of his disconnect grace would show everybody the step asked him."""
    from games.models import Seat

    table_id, users, state, hand = _dealt_qq5(monkeypatch, hidden_landlord=True)
    long_ago = hand.decision_started_at - datetime.timedelta(hours=1)
    Seat.objects.filter(table_id=table_id, index=state.partner).update(
        connections=0, disconnected_at=long_ago
    )
    _give_up(table_id, users, state.landlord)
    state, hand = _state(table_id)
    bid = decision_seconds(hand.table.room, state, hand)
    assert hand.deadline_at == hand.decision_started_at + datetime.timedelta(seconds=bid)
    assert hand_apply_due_deadlines(now=hand.deadline_at) == 1
    state, hand = _state(table_id)
    # he timed out (放弃, sealed), nobody was put on 托管; the step closes at its shortest time
    assert state.phase == PHASE_REVEAL and step_closable(state) and not any(state.autoplay)
    assert hand_apply_due_deadlines(now=hand.deadline_at) == 1
    state, _hand = _state(table_id)
    assert state.phase == PHASE_DOUBLE and not any(state.autoplay)
