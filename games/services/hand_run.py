"""A hand's changes inside one service call (issue #5): ``HandRun`` applies actions in memory,
lets 托管 seats and decided bots act, and saves them at ``finish`` (the HandAction rows, the
record and the version in one round trip, the next deadline), all inside the caller's
transaction and table lock; a new hand's deal and its automatic opening, and a classic3
all-pass deal's re-deal, go through it too. Finishing a hand is games/services/hand_finish.py."""

from __future__ import annotations

import datetime
import logging
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from games.engine.dealing import deal, new_seed, next_landlord_seat, seed_commitment
from games.engine.errors import EngineError
from games.engine.flows import flow_for
from games.engine.hand import apply, autoplay_action, start_hand, step_closable, waiting_seats
from games.engine.record import hand_record
from games.engine.state import CLOSE, PHASE_REDEAL, Action, HandState
from games.engine.variants import find_variant
from games.models import Hand, HandAction, HandPlayer, Seat, Table, TableSession
from games.push import outbox
from games.push.outbox import notify
from games.reads import selectors
from games.services.base import next_version
from games.services.hand_finish import finish_hand
from games.table import life
from games.table.errors import ActionRejected, ErrorCode, from_engine_error
from games.table.prepared import PreparedInsert, PreparedUpdate, write_together
from games.table.stakes import (
    decision_seconds,
    disconnect_grace,
    table_options,
    table_seconds,
    table_stakes,
)
from games.table.wake import wake

logger = logging.getLogger(__name__)

Source = HandAction.Source


# Safety bound for one service call's automatic actions (a whole new5 hand is ~250 actions).
_MAX_AUTOMATIC_ACTIONS = 2000
# A classic3 table whose deals keep ending with three passes re-deals at most this often per call.
_MAX_REDEALS = 20

# and writes its three rows
_MOVE_HAND_FIELDS = ("record", "version", "decision_started_at", "deadline_at")
_MOVE_HAND = PreparedUpdate(Hand, fields=_MOVE_HAND_FIELDS, where=("id", "version"))
_APPEND_ACTIONS = PreparedInsert(
    HandAction, fields=("hand", "seq", "seat", "phase", "payload", "source", "created_at")
)
_MOVE_TABLE = PreparedUpdate(Table, fields=("version", "changed_at"), where=("id",))


def deal_hand(
    table: Table,
    seats: list[Seat],
    *,
    now: datetime.datetime,
    redeals: int = 0,
    redeal_of: Hand | None = None,
    seed: str | None = None,
) -> Hand:
    """Deal, store and play the automatic opening of a new hand (inside the table lock);
    ``redeal_of``: the deal everyone passed, which this one deals again as the same hand."""
    variant = find_variant(table.room.variant, **table_options(table))
    previous = redeal_of or selectors.table_current_hand(table=table)
    previous_landlord = None
    if previous is not None and previous.result:
        previous_landlord = previous.result.get("landlord")
    number = redeal_of.number if redeal_of is not None else table.hand_number + 1
    seed = seed or new_seed()
    dealt = deal(
        variant,
        seed,
        hand_number=number,
        landlord_seat=next_landlord_seat(variant, previous_landlord),
    )
    balances = [s.user.beans if s.user is not None else None for s in seats]
    state = start_hand(variant, dealt, table_stakes(table), balances=balances, sealed_steps=True)
    # A private table's hand keeps the host's seconds of its deal; a public table's hands
    # follow the room (an operator's change reaches the pending decision, as before).
    turn_seconds, bid_seconds = table_seconds(table) if table.is_private else (None, None)
    hand = Hand.objects.create(
        table=table,
        number=number,
        redeal=redeal_of.redeal + 1 if redeal_of is not None else 0,
        variant_key=variant.key,
        options=dict(variant.options),
        stakes=hand_record(state)["room"],
        seed=seed,
        commitment=seed_commitment(seed),
        record=hand_record(state),
        version=0,
        decision_started_at=now,
        turn_seconds=turn_seconds,
        bid_seconds=bid_seconds,
        session=_session_for(table, seats, previous, now),
    )
    HandPlayer.objects.bulk_create(
        HandPlayer(hand=hand, seat=s.index, user=s.user, is_bot=s.is_bot) for s in seats
    )
    for seat in seats:
        seat.autoplay = False
        seat.sit_out_after_hand = False
    Seat.objects.filter(table=table).update(
        autoplay=False, sit_out_after_hand=False, swap_with=None
    )
    table.hand_number = number
    table.status = Table.Status.PLAYING
    Table.objects.filter(pk=table.pk).update(hand_number=number, status=table.status)
    run = HandRun(
        table=table, hand=hand, state=state, now=now, seats=seats, fresh=True, redeals=redeals
    )
    run.finish()
    return run.hand


def _session_for(
    table: Table, seats: list[Seat], previous: Hand | None, now: datetime.datetime
) -> TableSession:
    """The table's running session while the same people sit (bots aside); else a new one."""
    humans = sorted(s.user_id for s in seats if s.user_id is not None)
    session = previous.session if previous is not None else None
    if session is not None and session.player_ids == humans:
        TableSession.objects.filter(pk=session.pk).update(last_hand_at=now)
        return session
    last = TableSession.objects.filter(table=table).order_by("-number").first()
    return TableSession.objects.create(
        table=table,
        number=(last.number + 1) if last is not None else 1,
        player_ids=humans,
        started_at=now,
        last_hand_at=now,
    )


# --------------------------------------------------------------------------- the engine loop


def awaited_bots(state: HandState, seats: list[Seat]) -> list[int]:
    if state.finished:
        return []
    bots = {s.index for s in seats if s.is_bot}
    return [index for index in waiting_seats(state) if index in bots]


@dataclass(frozen=True)
class BotReplies:
    """The moves of the bots a hand awaited at ``version``, decided outside any transaction."""

    version: int
    actions: dict[int, Action]


@dataclass
class HandRun:
    """The changes of one service call to one hand: actions applied in memory, then saved at
    ``finish`` (append the HandAction rows, store record and version, set the deadline,
    settle when over), all inside the caller's transaction and table lock.

    Bots never decide here: an awaited bot's reply is due after the room's delay
    (``deadline_for``), and the deadline runner decides it outside the lock
    (``hand_decide_bots``) and hands it in as ``replies``."""

    table: Table
    hand: Hand
    state: HandState
    now: datetime.datetime
    seats: list[Seat] | None = None
    holders: dict[int, int | None] | None = None  # seat -> user id, when already read
    fresh: bool = False
    rows: list[HandAction] = field(default_factory=list)
    redeals: int = 0
    replies: BotReplies | None = None

    def __post_init__(self) -> None:
        self.start_version = self.hand.version
        fits = self.replies is not None and self.replies.version == self.start_version
        # each decided once, for the state it was decided on
        self.bot_moves = dict(self.replies.actions) if fits and self.replies else {}
        self.start_public = self.state.public_version
        self.start_phase = self.state.phase
        self.start_state = self.state
        if self.seats is None:
            self.seats = selectors.table_seats(table=self.table)

    def apply(self, action: Action, source: str) -> None:
        phase = self.state.phase
        try:
            self.state = apply(self.state, action)
        except EngineError as error:
            raise from_engine_error(error) from error
        except (TypeError, ValueError, KeyError, AttributeError, IndexError) as error:
            # a value of the wrong type that the engine did not type-check first
            raise ActionRejected.of(ErrorCode.BAD_VALUE, detail=repr(error)) from error
        self.rows.append(
            HandAction(
                hand=self.hand,
                seq=self.start_version + len(self.rows) + 1,
                seat=action.seat,
                phase=phase,
                payload=action.to_json(),
                source=source,
                created_at=self.now,
            )
        )

    def automate(self) -> None:
        """托管 seats that the hand waits for act now, and bots whose replies were decided for
        this run, one appended action each, until a human or another bot reply is awaited or
        the hand is over.

        托管 stays inline: it is the engine's cheap fixed policy (no search), and a player
        who went 托管 is taken to be away, so no pace is owed to him."""
        assert self.seats is not None
        bots = {s.index for s in self.seats if s.is_bot}
        for _ in range(_MAX_AUTOMATIC_ACTIONS):
            if self.state.finished:
                return
            waiting = waiting_seats(self.state)
            autoplayed = [s for s in waiting if s not in bots and self.state.autoplay[s]]
            if autoplayed:
                self.apply(autoplay_action(self.state, autoplayed[0]), Source.AUTOPLAY)
                continue
            replying = [s for s in waiting if s in self.bot_moves]
            if replying:
                self.apply(self._bot_move(replying[0]), Source.BOT)
                continue
            if self._step_close_due():
                self.apply(Action(self._close_seat(), CLOSE), Source.SERVER)
                continue
            return
        raise RuntimeError(f"hand {self.hand.pk}: automatic play does not end")  # pragma: no cover

    def _step_started(self) -> datetime.datetime:
        """When the pending decision step opened: now if it opened in this run."""
        same = not self.fresh and self.state.phase == self.start_phase
        started = self.hand.decision_started_at if same else None
        return started or self.now

    def _step_close_due(self) -> bool:
        """A sealed step all asked have decided closes once it has been open the room's
        shortest step: sooner, its length would tell how many it asked."""
        if not step_closable(self.state):
            return False
        shortest = datetime.timedelta(seconds=self.table.room.step_min_seconds)
        return self._step_started() + shortest <= self.now

    def _close_seat(self) -> int:
        # the close is the table's: it is logged under the 明牌 holder, a public seat
        return self.state.deal.face_up_seat or 0

    def _bot_move(self, seat: int) -> Action:
        move = self.bot_moves.pop(seat)
        try:
            apply(self.state, move)
            return move
        except EngineError:
            # decided on the step's state before another seat's sealed decision: still the
            # bot's turn, so the cheap policy answers rather than a second search in the lock
            logger.warning("bot move of hand %s seat %s no longer fits", self.hand.pk, seat)
        return autoplay_action(self.state, seat)

    def finish(self) -> None:
        self.automate()
        hand = self.hand
        state = self.state
        if not self.rows and not self.fresh:
            return
        new_version = self.start_version + len(self.rows)
        hand.record = hand_record(state)
        hand.version = new_version
        if self.rows or self.fresh:
            simultaneous = flow_for(state.variant).simultaneous_phases
            same_step = (
                not self.fresh
                and state.phase == self.start_phase
                and state.phase in simultaneous
                and hand.decision_started_at is not None
            )
            if not same_step:
                hand.decision_started_at = self.now
        if state.finished:
            hand.deadline_at = None
        else:
            assert self.seats is not None
            hand.deadline_at = deadline_for(self.table, hand, state, self.seats)
            if awaited_bots(state, self.seats):
                transaction.on_commit(wake)  # a runner here replies on time, not at its poll
        # only decisions inside a sealed step: its deciders see their own choices, and nothing
        # else moves (no table version, no frame) for anyone until it closes
        sealed = not self.fresh and state.public_version == self.start_public
        if not sealed:
            next_version(self.table)
            self.table.changed_at = self.now
        if self.fresh:
            hand.save(update_fields=_MOVE_HAND_FIELDS)
            _APPEND_ACTIONS.run(self.rows)
            _MOVE_TABLE.run(
                where={"id": self.table.pk}, version=self.table.version, changed_at=self.now
            )
        else:
            # the move's writes in one round trip; the optimistic guard on top of the lock:
            # exactly one writer moves a version forward
            moved = write_together(
                _MOVE_HAND.statement(
                    where={"id": hand.pk, "version": self.start_version},
                    **{name: getattr(hand, name) for name in _MOVE_HAND_FIELDS},
                ),
                _APPEND_ACTIONS.statement(self.rows),
                *(
                    ()
                    if sealed
                    else (
                        _MOVE_TABLE.statement(
                            where={"id": self.table.pk},
                            version=self.table.version,
                            changed_at=self.now,
                        ),
                    )
                ),
            )
            if moved != 1:
                raise ActionRejected.of(ErrorCode.CONFLICT, detail="version moved")
        self._sync_seat_autoplay()
        self._remember_on_commit(hand, state)
        if state.finished:
            finish_hand(self.table, hand, state, self.now)
            _redeal_after(self.table, hand, state, self.now, redeals=self.redeals)
        if sealed:
            actors = tuple(sorted({row.seat for row in self.rows}))
            outbox.table_moved(self.table.pk, written=self._written(), deciders=actors)
            return
        # a finished hand also changed the table and the ledger: the push reads them
        outbox.table_moved(self.table.pk, written=None if state.finished else self._written())

    def _written(self) -> outbox.Written:
        assert self.seats is not None
        return outbox.Written(
            table=self.table,
            hand=self.hand,
            seats=self.seats,
            holders=self.holders,
            state=self.state,
            before=None if self.fresh else self.start_state,
        )

    def _sync_seat_autoplay(self) -> None:
        """Seat.autoplay mirrors the hand's 托管 flags (for screens and the lobby)."""
        assert self.seats is not None
        for seat in self.seats:
            flag = bool(self.state.autoplay[seat.index])
            if seat.autoplay != flag:
                seat.autoplay = flag
                Seat.objects.filter(pk=seat.pk).update(autoplay=flag)

    @staticmethod
    def _remember_on_commit(hand: Hand, state: HandState) -> None:
        key = Hand(pk=hand.pk, version=hand.version, commitment=hand.commitment)
        transaction.on_commit(lambda: selectors.hand_state_remember(key, state))


def deadline_for(
    table: Table, hand: Hand, state: HandState, seats: list[Seat]
) -> datetime.datetime | None:
    """The next moment something must happen: the pending decision's timeout, or earlier the
    end of a disconnected awaited player's grace; for a sealed step all asked have decided,
    the end of its shortest time."""
    if state.finished:
        return None
    start = hand.decision_started_at or timezone.now()
    if step_closable(state):
        return start + datetime.timedelta(seconds=table.room.step_min_seconds)
    waiting = [s for s in waiting_seats(state) if not state.autoplay[s]]
    if not waiting:
        return None
    deadline = start + datetime.timedelta(seconds=decision_seconds(table.room, state, hand))
    if awaited_bots(state, seats):
        deadline = min(deadline, start + datetime.timedelta(milliseconds=table.room.bot_delay_ms))
    if state.phase in flow_for(state.variant).simultaneous_phases:
        # a decider who drops waits for the step's clock: 托管 at his grace's end would show
        # everybody that the step asked him
        return deadline
    grace = disconnect_grace()
    by_index = {s.index: s for s in seats}
    for index in waiting:
        seat = by_index.get(index)
        since = life.absent_since(seat) if seat is not None else None
        if since is not None:
            deadline = min(deadline, since + grace)
    return deadline


def _redeal_after(
    table: Table, hand: Hand, state: HandState, now: datetime.datetime, *, redeals: int
) -> None:
    """A classic3 deal everyone passed goes straight to the re-deal, while the table is full,
    its players are here and the call has not re-dealt too often."""
    if state.phase == PHASE_REDEAL and redeals < _MAX_REDEALS and not table.managed:
        seats = selectors.table_seats(table=table)
        if any(s.is_empty for s in seats):
            return
        if life.may_redeal(seats, state.autoplay, now=now, grace=disconnect_grace()):
            next_hand = deal_hand(table, seats, now=now, redeals=redeals + 1, redeal_of=hand)
            logger.debug("re-dealt hand %s after all passed", next_hand.pk)
        else:
            notify(table.pk, "redeals_stopped")
