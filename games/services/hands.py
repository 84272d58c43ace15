"""Hands: dealing, players' actions, 托管 and bots, deadlines, and finishing (issue #5).

Each table/hand service is one transaction that first locks the table row
(``select_for_update(no_key=True)``; one lock order everywhere: table, then users in the ledger),
rebuilds the hand from its stored record, calls the engine, appends ``HandAction`` rows, saves
the new record and version, lets bots and 托管 seats act, settles a finished hand through the
ledger and broadcasts only after commit (``transaction.on_commit``). No game state lives in
process memory: a second process or a restart serves any table from the database.

Refusals are ``games.table.errors.ActionRejected`` (code + translated message).
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from ddz_site import logs
from games.engine.beans import RoomStakes, round_half_up
from games.engine.bot import bot_action
from games.engine.dealing import deal, new_seed, next_landlord_seat, seed_commitment
from games.engine.errors import EngineError
from games.engine.flows import flow_for
from games.engine.hand import (
    apply,
    autoplay_action,
    start_hand,
    step_closable,
    summary,
    waiting_seats,
)
from games.engine.record import hand_record
from games.engine.scoring import tie_order
from games.engine.state import (
    AUTOPLAY,
    CLOSE,
    PHASE_PLAY,
    PHASE_REDEAL,
    TIMEOUT,
    Action,
    HandState,
)
from games.engine.variants import find_variant
from games.models import Hand, HandAction, HandPlayer, Room, Seat, Table, TableSession
from games.push import outbox
from games.push.outbox import notify
from games.reads import selectors
from games.services import presence
from games.services.base import (
    bump,
    create_seats,
    lock_between_hands,
    lock_table_for_move,
    next_version,
    put_bot,
    require_user,
    seat_moves,
    vacate,
    write,
)
from games.table import life
from games.table.errors import ActionRejected, ErrorCode, from_engine_error
from games.table.hooks import hooks
from games.table.prepared import PreparedInsert, PreparedUpdate, write_together
from games.table.stakes import (
    decision_seconds,
    disconnect_grace,
    table_min_balance,
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


def hand_start(*, table_id: int, user: User | None = None) -> Hand:
    """Deal a new hand (with ``user``: only a seated player may). Before the deal, players below
    the table's minimum balance and players away past the disconnect grace are stood up, each
    with a notice (a bot takes an absent player's seat where the room says so); the deal then
    goes ahead only at a filled table with a player present (games/table/life.py). Stand-ups
    commit even when the deal is then refused."""
    now = timezone.now()
    with write():
        table, seats = lock_between_hands(table_id, user=user)
        refusal = _stand_up_before_deal(table, seats, user=user, now=now)
        if refusal is None:
            hand = _deal_hand(table, seats, now=now)
            # the club region too: seat moves and swaps are offered between hands only
            bump(table, club=True)
            return hand
        bump(table)
    raise refusal


def _stand_up_before_deal(
    table: Table, seats: list[Seat], *, user: User | None, now: datetime.datetime
) -> ActionRejected | None:
    """Stand up who may not be dealt in, and say why the deal cannot go ahead (None: deal).
    The player asking for the deal is at the table, socket or not."""
    minimum = table_min_balance(table)
    broke = [s for s in seats if s.user_id is not None and s.user.beans < minimum]
    broke_names = ", ".join(s.user.username for s in broke)
    for seat in broke:
        notify(table.pk, "stood_up_balance", name=seat.user.username, minimum=minimum)
        vacate(seat)
    if user is not None:  # the player asking is here, whatever his sockets say
        for seat in seats:
            if seat.user_id == user.pk and seat.connections == 0:
                seat.disconnected_at = None
    plan = life.deal_plan(
        seats,
        now=now,
        grace=disconnect_grace(),
        bots_take_absent_seats=table.room.bots_take_absent_seats and table.allow_bots,
    )
    absent = [s for s in seats if s.index in plan.stand_up]
    absent_names = ", ".join(s.user.username for s in absent)
    for seat in absent:
        notify(table.pk, "stood_up_absent", name=seat.user.username)
        if seat.index in plan.bots:
            notify(table.pk, "bot_took_seat", name=seat.user.username)
            put_bot(seat)
        else:
            vacate(seat)
    if broke:
        return ActionRejected.of(
            ErrorCode.STOOD_UP_BALANCE,
            detail="stood up below the minimum: " + broke_names,
            names=broke_names,
            minimum=minimum,
        )
    if plan.deal:
        return None
    if absent and len(plan.bots) < len(absent):
        return ActionRejected.of(
            ErrorCode.STOOD_UP_ABSENT, detail="stood up away: " + absent_names, names=absent_names
        )
    if plan.why == "nobody_here":
        return ActionRejected.of(ErrorCode.NOBODY_HERE)
    return ActionRejected.of(ErrorCode.SEATS_NOT_FILLED)


def table_deal_for(*, room: Room, players: Sequence[User | None], seed: str | None = None) -> Hand:
    """Open a managed table in ``room`` with ``players`` on seats 0.. (None: a house bot) and
    deal its one hand at once; from ``seed`` when given, so that every table given it plays the
    same deal under the same commitment. Nobody else sits at a managed table, its hand moves no
    beans and is never dealt again, and its seats are freed when the hand ends (CONFLICT when a
    player holds a seat elsewhere in the room)."""
    variant = find_variant(room.variant, **(room.options or {}))
    if len(players) != variant.seats:
        raise ValueError(f"{variant.key} seats {variant.seats} players")
    now = timezone.now()
    with write():
        table = Table.objects.create(room=room, managed=True, changed_at=now)
        create_seats(table, variant.seats)
        for seat, user in zip(selectors.table_seats(table=table), players, strict=True):
            seat_moves(seat, life.Event.SIT if user is not None else life.Event.ADD_BOT)
            if user is None:
                put_bot(seat)
            else:
                seat.user = user
                seat.save(update_fields=["user"])
        hand = _deal_hand(table, selectors.table_seats(table=table), now=now, seed=seed)
        bump(table)
    return hand


def _deal_hand(
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


def _action_from_client(seat: int, action: Any) -> Action:
    if not isinstance(action, dict):
        raise ActionRejected.of(ErrorCode.MALFORMED)
    act = action.get("act")
    if act in (TIMEOUT, AUTOPLAY, CLOSE):
        raise ActionRejected.of(ErrorCode.UNKNOWN_ACT, detail=f"{act} is server-side")
    data = {k: v for k, v in action.items() if k in ("act", "value", "cards")}
    data["seat"] = seat  # the seat is the server's business, never the client's
    try:
        return Action.from_json(data)
    except EngineError as error:
        raise from_engine_error(error) from error
    except (TypeError, ValueError, AttributeError, KeyError) as error:
        raise ActionRejected.of(ErrorCode.BAD_VALUE, detail=str(error)) from error


def _locked_hand(*, table_id: Any, hand_id: Any) -> tuple[Table, list[Seat], Hand]:
    """Lock the table and return it with its seats and the hand, read after the lock. With
    ``table_id`` (a socket knows its table): the table's active hand; a ``hand_id`` given too
    must name it, else the client shows an older hand (STALE_VERSION); no active hand, or no
    such table, is HAND_NOT_FOUND. With only ``hand_id``: that hand, whatever its status."""
    if table_id is None and hand_id is None:
        raise TypeError("table_id or hand_id is required")
    if hand_id is not None:
        try:
            hand_id = int(hand_id)
        except (TypeError, ValueError):
            raise ActionRejected.of(ErrorCode.HAND_NOT_FOUND) from None
    if table_id is None:
        table_id = Hand.objects.filter(pk=hand_id).values_list("table_id", flat=True).first()
        if table_id is None:
            raise ActionRejected.of(ErrorCode.HAND_NOT_FOUND)
        table, seats, hand = lock_table_for_move(table_id, missing=ErrorCode.HAND_NOT_FOUND)
        if hand is None or hand.pk != hand_id:  # that hand is over
            hand = Hand.objects.get(pk=hand_id)
        return table, seats, hand
    table, seats, hand = lock_table_for_move(table_id, missing=ErrorCode.HAND_NOT_FOUND)
    if hand is None:
        raise ActionRejected.of(ErrorCode.HAND_NOT_FOUND)
    if hand_id is not None and hand_id != hand.pk:
        raise ActionRejected.of(
            ErrorCode.STALE_VERSION, detail=f"hand {hand_id} is not the current hand"
        )
    return table, seats, hand


def _player_seat(hand: Hand, user: Any) -> tuple[int, dict[int, int | None]]:
    """The seat ``user`` holds in the hand, and who holds each seat (the push shows each
    seat's cards to its holder only)."""
    user = require_user(user)
    holders: dict[int, int | None] = {}
    seat = None
    for index, user_id in selectors.hand_holders(hand=hand):
        holders.setdefault(index, user_id)
        if seat is None and user_id == user.pk:
            seat = index
    if seat is None:
        raise ActionRejected.of(ErrorCode.NOT_SEATED)
    return seat, holders


@dataclass(frozen=True)
class _PlayerHand:
    table: Table
    seats: list[Seat]
    hand: Hand
    seat: int  # the player's, in the hand
    holders: dict[int, int | None]
    state: HandState

    def run(self) -> HandRun:
        return HandRun(
            table=self.table,
            hand=self.hand,
            state=self.state,
            now=timezone.now(),
            seats=self.seats,
            holders=self.holders,
        )


def _locked_player_hand(table_id: Any, hand_id: Any, user: Any) -> _PlayerHand:
    """The locked table, its seats, its active hand, the user's seat in it, who holds each
    seat, and the hand's state (HAND_OVER for a finished hand)."""
    table, seats, hand = _locked_hand(table_id=table_id, hand_id=hand_id)
    # the log records of the player's move name its hand from here on (the caller's scope ends
    # it: the socket's frame, ddz_site/logs.py)
    logs.bind(hand_id=hand.pk)
    if hand.status != Hand.Status.ACTIVE:
        raise ActionRejected.of(ErrorCode.HAND_OVER)
    seat, holders = _player_seat(hand, user)
    return _PlayerHand(table, seats, hand, seat, holders, selectors.hand_state(hand))


def _check_version(hand: Hand, state: HandState, expected_version: Any) -> None:
    """The client must have seen the current version: the one screens show, which the
    decisions inside a sealed step do not move (they are secret until it closes), or the
    hand's own count of actions (a caller that read the hand; it is never above the screens'
    of a newer state). For a hand dealt before sealed steps, a version that only misses
    actions of the same simultaneous step is as good as the current one, for the same reason."""
    try:
        expected = int(expected_version)
    except (TypeError, ValueError):
        raise ActionRejected.of(ErrorCode.STALE_VERSION, detail="no version") from None
    if expected in (state.public_version, hand.version):
        return
    if 0 <= expected < hand.version and state.phase in flow_for(state.variant).simultaneous_phases:
        missed = HandAction.objects.filter(hand=hand, seq__gt=expected)
        if not missed.exclude(phase=state.phase).exists():
            return
    raise ActionRejected.of(
        ErrorCode.STALE_VERSION, detail=f"expected {expected}, current {hand.version}"
    )


def hand_submit_action(
    *,
    table_id: int | None = None,
    hand_id: int | None = None,
    user: User,
    action: dict[str, Any],
    expected_version: Any,
) -> Hand:
    """Apply a player's action (docs/rules.md §8.4 shape without ``seat``: the server knows it) to
    the active hand of ``table_id``, or to the hand ``hand_id`` (see ``_locked_hand``).

    Raises ActionRejected: STALE_VERSION when ``expected_version`` is not the hand's version
    (or ``hand_id`` not the table's active hand), HAND_NOT_FOUND, HAND_OVER, NOT_SEATED, or
    the engine's refusal mapped to a code and a translated message.
    """
    with write():
        player = _locked_player_hand(table_id, hand_id, user)
        _check_version(player.hand, player.state, expected_version)
        decision = _action_from_client(player.seat, action)
        run = player.run()
        run.apply(decision, Source.HUMAN)
        run.finish()
        return run.hand


def seat_set_autoplay(
    *, table_id: int | None = None, hand_id: int | None = None, user: User, enabled: bool
) -> Hand:
    """Hand the seat to 托管 (``enabled``) or take control back, in the hand found as for
    ``hand_submit_action``."""
    with write():
        player = _locked_player_hand(table_id, hand_id, user)
        enabled = bool(enabled)
        Seat.objects.filter(table=player.table, index=player.seat).update(autoplay=enabled)
        if player.state.autoplay[player.seat] == enabled:
            return player.hand
        for seat in player.seats:  # as just stored
            if seat.index == player.seat:
                seat.autoplay = enabled
        run = player.run()
        run.apply(Action(player.seat, AUTOPLAY, enabled), Source.HUMAN)
        run.finish()
        return run.hand


# --------------------------------------------------------------------------- the engine loop


def _awaited_bots(state: HandState, seats: list[Seat]) -> list[int]:
    if state.finished:
        return []
    bots = {s.index for s in seats if s.is_bot}
    return [index for index in waiting_seats(state) if index in bots]


@dataclass(frozen=True)
class BotReplies:
    """The moves of the bots a hand awaited at ``version``, decided outside any transaction."""

    version: int
    actions: dict[int, Action]


def hand_decide_bots(*, hand_id: int) -> BotReplies | None:
    """Decide the moves of the bots the hand awaits (None: it awaits none). Reads without a
    lock and writes nothing, so a bot's search holds no table row and no transaction:
    ``apply_deadline`` applies the moves only while the hand is still at their version."""
    hand = Hand.objects.filter(pk=hand_id, status=Hand.Status.ACTIVE).first()
    if hand is None:
        return None
    state = selectors.hand_state(hand)
    seats = selectors.table_seats(table=hand.table_id)
    bots = _awaited_bots(state, seats)
    if not bots:
        return None
    return BotReplies(hand.version, {seat: _bot_decision(hand, state, seat) for seat in bots})


def _bot_decision(hand: Hand, state: HandState, seat: int) -> Action:
    try:
        return bot_action(state, seat, think=settings.DDZ_BOT_THINK_SECONDS)
    except Exception:  # a bot bug never stalls a table
        logger.exception("bot failed at hand %s seat %s; using 托管", hand.pk, seat)
    return autoplay_action(state, seat)


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
            if _awaited_bots(state, self.seats):
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
            _finish_hand(self.table, hand, state, self.now, redeals=self.redeals)
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
    if _awaited_bots(state, seats):
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


def _score_moves(state: HandState, units: tuple[Fraction, ...]) -> list[int]:
    """积分 per seat (docs/rules.md §7.4): the units rounded half-up, times the base score B where
    the variant scores by it (qq5, §3.6: X = units × B)."""
    base = state.stakes.base_score if state.variant.score_by_base else 1
    return [round_half_up(Fraction(u) * base) for u in units]


def _title_id(score: int | None) -> int | None:
    from accounts.selectors import title_for

    if score is None:
        return None
    title = title_for(score)
    return title.pk if title is not None else None


def _finish_hand(
    table: Table, hand: Hand, state: HandState, now: datetime.datetime, *, redeals: int = 0
) -> None:
    """Settle (exactly once, through the ledger), reveal the seed, free the seats, and for a
    classic3 all-pass deal go straight to the re-deal."""
    from accounts.services import beans_settle_hand

    players = selectors.hand_players(hand=hand)
    users: list[User | None] = [p.user if not p.is_bot else None for p in players]
    result: dict[str, Any] = {
        "summary": summary(state),
        "landlord": state.landlord,
        "seed": hand.seed,
        "players": [p.user_id for p in players],
    }
    if state.result is not None:
        before = [(u.score if u is not None else None) for u in users]
        titles_before = [_title_id(s) for s in before]
        # a managed table's hand is settled as moving nothing: no beans, no score
        staked = not table.managed
        nothing = [0] * len(users)
        settlement = beans_settle_hand(
            hand_ref=str(hand.pk),
            units=state.result.units if staked else nothing,
            stakes=state.stakes if staked else RoomStakes(),
            seats=users,
            tie_order=tie_order(state),
            scores=_score_moves(state, state.result.units) if staked else nothing,
        )
        after = [
            User.objects.filter(pk=u.pk).values_list("score", flat=True).first()
            if u is not None
            else None
            for u in users
        ]
        result.update(
            {
                "beans": list(settlement.detail.get("deltas", [])),
                "house": settlement.house,
                "units": [str(u) for u in state.result.units],
                "scores": [
                    (a - b) if a is not None and b is not None else 0
                    for a, b in zip(after, before, strict=True)
                ],
                "score_after": after,
                "titles_before": titles_before,
                "titles_after": [_title_id(s) for s in after],
                "multiplier": result["summary"]["multiplier"],
                "spring": state.result.spring,
                "anti_spring": state.result.anti_spring,
            }
        )
    else:
        result["redeal"] = state.phase == PHASE_REDEAL
    hand.status = Hand.Status.FINISHED
    hand.finished_at = now
    hand.deadline_at = None
    hand.result = result
    hand.settled = True
    hand.save(update_fields=["status", "finished_at", "deadline_at", "result", "settled"])
    hooks.hand_finished(hand=hand)  # the club's outcomes and ratings, the events' next step
    seats = selectors.table_seats(table=table)
    regroup = table.managed or (table.room.regroup_between_hands and state.phase != PHASE_REDEAL)
    for seat in seats:
        if seat.sit_out_after_hand or (regroup and not seat.is_empty):
            vacate(seat)
        elif seat.autoplay:
            seat.autoplay = False
            seat.save(update_fields=["autoplay"])
    table.status = Table.Status.WAITING
    Table.objects.filter(pk=table.pk).update(status=table.status)
    if state.phase == PHASE_REDEAL and redeals < _MAX_REDEALS and not table.managed:
        seats = selectors.table_seats(table=table)
        if any(s.is_empty for s in seats):
            return
        if life.may_redeal(seats, state.autoplay, now=now, grace=disconnect_grace()):
            next_hand = _deal_hand(table, seats, now=now, redeals=redeals + 1, redeal_of=hand)
            logger.debug("re-dealt hand %s after all passed", next_hand.pk)
        else:
            notify(table.pk, "redeals_stopped")
