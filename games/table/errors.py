"""Typed refusals of the table and hand services: a stable code (for tests and clients) and a
translated message (for the player). Nothing a client sends may raise anything else.

Every engine error (games/engine/errors.py) maps to a code here through ``from_engine_error``.
"""

from __future__ import annotations

import enum

from django.utils.translation import gettext_lazy as _

from games.engine import errors as engine_errors


class ErrorCode(enum.Enum):
    # frames
    MALFORMED = "malformed"
    TOO_LARGE = "too_large"
    UNKNOWN_INTENT = "unknown_intent"
    BAD_VALUE = "bad_value"
    # tables and seats
    TABLE_NOT_FOUND = "table_not_found"
    HAND_NOT_FOUND = "hand_not_found"
    WRONG_TABLE = "wrong_table"
    NOT_SEATED = "not_seated"
    ALREADY_SEATED = "already_seated"
    SEAT_TAKEN = "seat_taken"
    TABLE_FULL = "table_full"
    BAD_SEAT = "bad_seat"
    INSUFFICIENT_BALANCE = "insufficient_balance"
    SEATS_NOT_FILLED = "seats_not_filled"
    HAND_IN_PROGRESS = "hand_in_progress"
    ROOM_CLOSED = "room_closed"
    NOT_AUTHENTICATED = "not_authenticated"
    # private tables (issue #8)
    INVITE_REQUIRED = "invite_required"
    INVITE_TRIES = "invite_tries"  # DDZ_INVITE_TRIES wrong codes in DDZ_INVITE_TRIES_SECONDS
    TABLE_LOCKED = "table_locked"
    NOT_HOST = "not_host"
    BOTS_NOT_ALLOWED = "bots_not_allowed"
    BAD_SETTING = "bad_setting"
    NO_SWAP_REQUEST = "no_swap_request"
    SEAT_NOT_IDLE = "seat_not_idle"
    STOOD_UP_BALANCE = "stood_up_balance"
    SEATED_ELSEWHERE = "seated_elsewhere"
    STOOD_UP_ABSENT = "stood_up_absent"
    NOBODY_HERE = "nobody_here"
    PRIVATE_NOT_ALLOWED = "private_not_allowed"
    # hands
    STALE_VERSION = "stale_version"
    HAND_OVER = "hand_over"
    NOT_YOUR_TURN = "not_your_turn"
    WRONG_PHASE = "wrong_phase"
    CARDS_NOT_HELD = "cards_not_held"
    DOES_NOT_BEAT = "does_not_beat"
    NOT_A_COMBINATION = "not_a_combination"
    MUST_PLAY = "must_play"
    INVALID_CHOICE = "invalid_choice"
    UNKNOWN_ACT = "unknown_act"
    INVALID_NOTATION = "invalid_notation"
    ILLEGAL_ACTION = "illegal_action"
    CONFLICT = "conflict"
    TOO_MANY_SOCKETS = "too_many_sockets"  # DDZ_WS_MAX_SOCKETS_PER_USER
    SUSPENDED = "suspended"  # club.services: an operator suspended the account


MESSAGES = {
    ErrorCode.MALFORMED: _("That message could not be read."),
    ErrorCode.TOO_LARGE: _("That message is too large."),
    ErrorCode.UNKNOWN_INTENT: _("Unknown request."),
    ErrorCode.BAD_VALUE: _("That value is not valid here."),
    ErrorCode.TABLE_NOT_FOUND: _("This table does not exist."),
    ErrorCode.HAND_NOT_FOUND: _("There is no hand in progress at this table."),
    ErrorCode.WRONG_TABLE: _("That request belongs to another table."),
    ErrorCode.NOT_SEATED: _("You are not seated at this table."),
    ErrorCode.ALREADY_SEATED: _("You are already seated at this table."),
    ErrorCode.SEAT_TAKEN: _("That seat is taken."),
    ErrorCode.TABLE_FULL: _("This table is full."),
    ErrorCode.BAD_SEAT: _("There is no such seat at this table."),
    ErrorCode.INSUFFICIENT_BALANCE: _("You need at least %(minimum)s beans to sit in this room."),
    ErrorCode.SEATS_NOT_FILLED: _("Every seat must be filled before the deal."),
    ErrorCode.HAND_IN_PROGRESS: _("A hand is in progress; wait until it is over."),
    ErrorCode.ROOM_CLOSED: _("This room is closed."),
    ErrorCode.SUSPENDED: _(
        "Your account is suspended: you cannot sit down. Please contact the club's operators."
    ),
    ErrorCode.NOT_AUTHENTICATED: _("Please sign in first."),
    ErrorCode.INVITE_REQUIRED: _("This is a private table: you need its invite link to sit."),
    ErrorCode.INVITE_TRIES: _(
        "Too many wrong invite codes were tried from this browser or network: wait "
        "%(seconds)s seconds, then open the invite link again."
    ),
    ErrorCode.TABLE_LOCKED: _("The host has locked this table."),
    ErrorCode.NOT_HOST: _("Only the table's host may do that."),
    ErrorCode.BOTS_NOT_ALLOWED: _("The host does not allow bots at this table."),
    ErrorCode.BAD_SETTING: _("That setting is not allowed in this room."),
    ErrorCode.NO_SWAP_REQUEST: _("That player has not asked to swap seats with you."),
    ErrorCode.SEAT_NOT_IDLE: _("Only an idle seat can be removed."),
    ErrorCode.STOOD_UP_BALANCE: _(
        "Stood up before the deal, below the minimum of %(minimum)s beans: %(names)s."
    ),
    ErrorCode.SEATED_ELSEWHERE: _(
        "You already hold a seat at table %(table)s in this room: go back there, or leave it "
        "first (a seat left during a hand is free when that hand ends)."
    ),
    ErrorCode.STOOD_UP_ABSENT: _("Stood up before the deal, away too long: %(names)s."),
    ErrorCode.NOBODY_HERE: _("Nobody is at the table: a hand is dealt when a player is here."),
    ErrorCode.PRIVATE_NOT_ALLOWED: _("This room does not allow private tables."),
    ErrorCode.STALE_VERSION: _("The table changed before your move arrived; here is the latest."),
    ErrorCode.HAND_OVER: _("This hand is over."),
    ErrorCode.NOT_YOUR_TURN: _("It is not your turn."),
    ErrorCode.WRONG_PHASE: _("That is not possible at this stage of the hand."),
    ErrorCode.CARDS_NOT_HELD: _("You do not hold those cards."),
    ErrorCode.DOES_NOT_BEAT: _("Those cards do not beat the play on the table."),
    ErrorCode.NOT_A_COMBINATION: _("Those cards are not a valid combination."),
    ErrorCode.MUST_PLAY: _("You lead this trick: you must play."),
    ErrorCode.INVALID_CHOICE: _("That choice is not available to you now."),
    ErrorCode.UNKNOWN_ACT: _("Unknown action."),
    ErrorCode.INVALID_NOTATION: _("Those cards could not be read."),
    ErrorCode.ILLEGAL_ACTION: _("That move is not allowed now."),
    ErrorCode.CONFLICT: _("Someone else changed the table at the same moment; please try again."),
    ErrorCode.TOO_MANY_SOCKETS: _("Too many table tabs open: close one, then reload this page."),
}


class ActionRejected(Exception):
    """A request the services refuse; ``message`` is translated, ``detail`` for logs/tests."""

    def __init__(self, code: ErrorCode, message: str | None = None, *, detail: str = "") -> None:
        self.code = code
        self.message = str(message) if message is not None else str(MESSAGES[code])
        self.detail = detail
        super().__init__(f"{code.value}: {self.message}" + (f" ({detail})" if detail else ""))

    @classmethod
    def of(cls, code: ErrorCode, *, detail: str = "", **params: object) -> ActionRejected:
        message = str(MESSAGES[code])
        if params:
            message = message % params
        return cls(code, message, detail=detail)


# Most specific first: NotACombination is both an IllegalAction and an IllegalPlay.
_ENGINE_CODES: tuple[tuple[type[engine_errors.EngineError], ErrorCode], ...] = (
    (engine_errors.NotACombination, ErrorCode.NOT_A_COMBINATION),
    (engine_errors.NotYourTurn, ErrorCode.NOT_YOUR_TURN),
    (engine_errors.WrongPhase, ErrorCode.WRONG_PHASE),
    (engine_errors.CardsNotHeld, ErrorCode.CARDS_NOT_HELD),
    (engine_errors.DoesNotBeat, ErrorCode.DOES_NOT_BEAT),
    (engine_errors.MustPlay, ErrorCode.MUST_PLAY),
    (engine_errors.InvalidChoice, ErrorCode.INVALID_CHOICE),
    (engine_errors.UnknownAct, ErrorCode.UNKNOWN_ACT),
    (engine_errors.InvalidNotation, ErrorCode.INVALID_NOTATION),
    (engine_errors.IllegalPlay, ErrorCode.NOT_A_COMBINATION),
    (engine_errors.IllegalAction, ErrorCode.ILLEGAL_ACTION),
)


def code_for_engine_error(error: engine_errors.EngineError) -> ErrorCode:
    for cls, code in _ENGINE_CODES:
        if isinstance(error, cls):
            return code
    return ErrorCode.ILLEGAL_ACTION


def from_engine_error(error: engine_errors.EngineError) -> ActionRejected:
    """The player-facing refusal for an engine error (the engine's English text is the detail)."""
    return ActionRejected.of(code_for_engine_error(error), detail=str(error))
