"""A player's moves in a hand (issue #5): an action from the client and handing the seat to
托管 or taking it back. Each is one transaction that locks the table row first, rebuilds the
hand from its stored record, refuses a stale version and applies the move through a
``HandRun`` (games/services/hand_run.py).

Refusals are ``games.table.errors.ActionRejected`` (code + translated message)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from accounts.models import User
from games.engine.errors import EngineError
from games.engine.flows import flow_for
from games.engine.state import AUTOPLAY, CLOSE, TIMEOUT, Action, HandState
from games.models import Hand, HandAction, Seat, Table
from games.reads import selectors
from games.services.base import lock_table_for_move, require_user, write
from games.services.hand_run import HandRun
from games.table.errors import ActionRejected, ErrorCode, from_engine_error
from site_kit import logs

Source = HandAction.Source


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
    # it: the socket's frame, site_kit/logs.py)
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
