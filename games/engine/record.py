"""Hand records (docs/rules.md §8.4): export any state's history as JSON, rebuild a state from one.

    {"variant": "classic3",
     "room": {"base_score": 1, "coefficient": 3, "house_take": 0, "rake_percent": 10},
     "seats": 3,
     "deal": {"hands": [...], "bottom": "...", "face_up": {"card": "9h", "seat": 1}},
     "actions": [{"seat": 1, "act": "bid", "value": 3}, ...]}

Beyond the documented keys, a record carries ``"options"`` only when the variant's rule options
differ from the defaults, ``room.max_multiplier`` only when set, ``"balances"`` only when the
hand was started with balances, and ``"sealed_steps": true`` when its simultaneous steps end
with a ``close`` action (hand.py); ``replay`` accepts all four.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.engine.beans import RoomStakes
from games.engine.dealing import Deal
from games.engine.errors import EngineError
from games.engine.hand import apply, start_hand, summary
from games.engine.state import CALL, PARTNER, Action, HandState
from games.engine.variants import find_variant
from games.engine.views import view_for

__all__ = [
    "ReplayError",
    "actions_seen_by",
    "hand_record",
    "public_marks",
    "replay",
    "replay_summary",
]

_ROOM_KEYS = ("base_score", "coefficient", "house_take", "rake_percent")


class ReplayError(EngineError):
    """A record that cannot be replayed; ``action_index`` is None for a bad header."""

    def __init__(self, message: str, action_index: int | None = None) -> None:
        super().__init__(message)
        self.action_index = action_index


def hand_record(state: HandState) -> dict[str, Any]:
    """The §8.4 JSON document of the hand so far."""
    v = state.variant
    room: dict[str, Any] = {key: getattr(state.stakes, key) for key in _ROOM_KEYS}
    if state.stakes.max_multiplier is not None:
        room["max_multiplier"] = state.stakes.max_multiplier
    record: dict[str, Any] = {"variant": v.key}
    changed = {k: val for k, val in v.options.items() if val != v.option_choices[k][0]}
    if changed:
        record["options"] = changed
    record["room"] = room
    record["seats"] = v.seats
    record["deal"] = state.deal.to_json()
    if state.balances is not None:
        record["balances"] = list(state.balances)
    if state.sealed_steps:
        record["sealed_steps"] = True
    record["actions"] = [a.to_json() for a in state.history]
    return record


def _header(record: Mapping[str, Any]) -> HandState:
    if not isinstance(record, Mapping):
        raise ReplayError("a hand record is a JSON object")
    try:
        variant = find_variant(record["variant"], **(record.get("options") or {}))
        room = record.get("room") or {}
        stakes = RoomStakes(**{k: room[k] for k in (*_ROOM_KEYS, "max_multiplier") if k in room})
        seats = record.get("seats", variant.seats)
        if seats != variant.seats:
            raise ReplayError(f"{variant.key} is played by {variant.seats} seats, not {seats}")
        d = Deal.from_json(variant, record["deal"])
        sealed = record.get("sealed_steps") is True
        return start_hand(variant, d, stakes, balances=record.get("balances"), sealed_steps=sealed)
    except KeyError as exc:
        raise ReplayError(f"a hand record needs {exc.args[0]!r}") from None
    except ReplayError:
        raise
    except (EngineError, TypeError, ValueError) as exc:
        raise ReplayError(str(exc)) from None


def replay(record: Mapping[str, Any]) -> HandState:
    """Rebuild the state a record describes; ReplayError names the first bad action."""
    state = _header(record)
    actions = record.get("actions") or []
    if not isinstance(actions, list):
        raise ReplayError("'actions' must be a list")
    for index, data in enumerate(actions):
        try:
            state = apply(state, Action.from_json(data))
        except (EngineError, TypeError) as exc:
            raise ReplayError(f"{type(exc).__name__}: {exc}", index) from None
    return state


def public_marks(record: Mapping[str, Any]) -> list[bool]:
    """For each action of a (valid) record, whether the table saw it when it happened: False
    for the decisions inside a sealed step, which only their deciders knew of."""
    state = _header(record)
    marks = []
    for data in record.get("actions") or []:
        after = apply(state, Action.from_json(data))
        marks.append(after.public_version != state.public_version)
        state = after
    return marks


# the acts whose value the table may show otherwise than it is (暗独打 looks like 叫朋友 until it
# shows): the key of a seat's view that says what the value looks like to him
VALUE_SHOWN_BY = {PARTNER: "partner_mode", CALL: "marked_card"}


def actions_seen_by(record: Mapping[str, Any], seat: int) -> list[tuple[int, dict[str, Any]]]:
    """The actions of a hand in play as ``seat`` may know them now: (index in the record, the
    action's JSON) for each action the table saw and each of his own (another seat's decision
    inside a sealed step would tell who was asked), every value as his view of the hand as it
    stands shows it (``VALUE_SHOWN_BY``), so a replay says what his table said."""
    view = view_for(replay(record), seat)
    actions = record.get("actions") or []
    return [
        (index, {**data, "value": view.get(VALUE_SHOWN_BY[data["act"]])})
        if data["act"] in VALUE_SHOWN_BY
        else (index, data)
        for index, (data, public) in enumerate(zip(actions, public_marks(record), strict=True))
        if public or data["seat"] == seat
    ]


def replay_summary(record: Mapping[str, Any]) -> dict[str, Any]:
    """What ``python -m games.engine replay`` prints for a record."""
    try:
        return summary(replay(record))
    except ReplayError as exc:
        return {"error": str(exc), "action_index": exc.action_index}
