"""What the deadline runner does to a hand (issue #5): decide the awaited bots' replies outside
any lock, then apply inside the table lock what is due: those replies, timeouts, and 托管 for
players away past their grace."""

from __future__ import annotations

import datetime
import logging

from django.conf import settings

from games.engine.bot import BotLevel, bot_action
from games.engine.hand import autoplay_action, waiting_seats
from games.engine.state import AUTOPLAY, PHASE_PLAY, TIMEOUT, Action, HandState
from games.models import Hand, HandAction, Seat, Table
from games.reads import selectors
from games.services import presence
from games.services.hand_run import BotReplies, HandRun, awaited_bots, deadline_for
from games.table import life
from games.table.stakes import decision_seconds, disconnect_grace, table_bot_level

logger = logging.getLogger(__name__)

Source = HandAction.Source


def hand_decide_bots(*, hand_id: int) -> BotReplies | None:
    """Decide the moves of the bots the hand awaits (None: it awaits none). Reads without a
    lock and writes nothing, so a bot's search holds no table row and no transaction:
    ``apply_deadline`` applies the moves only while the hand is still at their version."""
    hand = (
        Hand.objects.filter(pk=hand_id, status=Hand.Status.ACTIVE)
        .select_related("table__room")  # the bots' level, in the same read
        .first()
    )
    if hand is None:
        return None
    state = selectors.hand_state(hand)
    seats = selectors.table_seats(table=hand.table_id)
    bots = awaited_bots(state, seats)
    if not bots:
        return None
    level = table_bot_level(hand.table)
    return BotReplies(
        hand.version, {seat: _bot_decision(hand, state, seat, level) for seat in bots}
    )


def _bot_decision(hand: Hand, state: HandState, seat: int, level: BotLevel) -> Action:
    try:
        return bot_action(state, seat, think=settings.DDZ_BOT_THINK_SECONDS, level=level)
    except Exception:  # a bot bug never stalls a table
        logger.exception("bot failed at hand %s seat %s; using 托管", hand.pk, seat)
    return autoplay_action(state, seat)


def apply_deadline(
    *, table: Table, hand: Hand, now: datetime.datetime, replies: BotReplies | None = None
) -> bool:
    """Apply what is due at ``hand`` (inside the table lock): the bots' ``replies`` (decided
    by ``hand_decide_bots``; ignored if the hand moved since), timeouts of the pending decision
    (托管 for plays: the seat is marked auto-play and keeps being played), and 托管 for awaited
    players whose disconnect grace is over. Returns whether anything changed."""
    if hand.status != Hand.Status.ACTIVE or hand.deadline_at is None or hand.deadline_at > now:
        return False
    state = selectors.hand_state(hand)
    seats = selectors.table_seats(table=table)
    run = HandRun(table=table, hand=hand, state=state, now=now, seats=seats, replies=replies)
    start = hand.decision_started_at or now
    timed_out = start + datetime.timedelta(seconds=decision_seconds(table.room, state, hand)) <= now
    grace = disconnect_grace()
    by_index = {s.index: s for s in seats}
    for index in list(waiting_seats(state)):
        if run.state.finished or index not in waiting_seats(run.state):
            continue
        seat = by_index[index]
        if seat.is_bot:  # its reply is in ``replies``, or the next run decides it
            continue
        gone = life.gone(seat, now=now, grace=grace) and not (
            # the lease table is the truth: never 托管 for a user with a live socket here
            selectors.user_live_sockets(
                table_id=table.pk,
                user_id=seat.user_id,
                now=now,
                lease_seconds=presence.lease_seconds(),
            )
        )
        if run.state.autoplay[index]:
            continue
        if timed_out and run.state.phase == PHASE_PLAY:
            run.apply(Action(index, AUTOPLAY, True), Source.TIMEOUT)
            run.apply(Action(index, TIMEOUT), Source.TIMEOUT)
        elif timed_out:
            run.apply(Action(index, TIMEOUT), Source.TIMEOUT)
        elif gone:
            run.apply(Action(index, AUTOPLAY, True), Source.AUTOPLAY)
        else:
            continue
        if run.state.autoplay[index]:
            Seat.objects.filter(pk=seat.pk).update(autoplay=True)
    run.automate()  # the bots' replies; a sealed step whose shortest time is over closes
    if not run.rows:
        # nothing was due after all (e.g. a reconnect): just move the deadline on
        deadline = deadline_for(table, hand, state, seats)
        Hand.objects.filter(pk=hand.pk).update(deadline_at=deadline)
        return False
    run.finish()
    return True
