"""Inbound websocket frames -> typed intents. Pure parsing: no database, no state.

A frame is one JSON object (the htmx ws extension sends a form's values plus ``HEADERS``,
which is ignored). Every value may arrive as a string, because HTML forms only have strings:

  {"intent": "act", "version": "7", "act": "play", "cards": "3s 3h"}
  {"intent": "act", "version": "7", "act": "bid", "value": "2"}          # 0 = 不叫
  {"intent": "act", "version": "7", "act": "reveal", "value": "true"}    # reveal/double/show
  {"intent": "act", "version": "7", "act": "grab", "value": "9h"}        # "" = grab no more
  {"intent": "act", "version": "7", "act": "partner", "value": "call_friend"}
  {"intent": "act", "version": "7", "act": "call", "value": "Ah"}
  {"intent": "act", "version": "7", "act": "pass"}
  {"intent": "autoplay", "value": "false"}                               # take control back
  {"intent": "resync"}
  {"intent": "chat", "key": "hurry"}                                     # quick chat (club app)
  {"intent": "chat", "text": "gg"}                                       # free text, if allowed

Optional ``table`` and ``hand`` ids pin a frame to the table/hand the client shows: a frame
for another table is refused, one for an older hand is treated as stale.
Anything else raises ``ActionRejected`` (MALFORMED, TOO_LARGE, UNKNOWN_INTENT, UNKNOWN_ACT,
BAD_VALUE); nothing here raises another exception.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from games.table.errors import ActionRejected, ErrorCode

MAX_FRAME_CHARS = 4096
MAX_CARDS_CHARS = 400  # 38-card hands in suited notation take about 115 characters
INTENTS = ("act", "autoplay", "resync", "chat")
MAX_CHAT_CHARS = 200  # the club checks its own, lower limit (DDZ_CHAT_MAX_CHARS)
CLIENT_ACTS = ("play", "pass", "bid", "grab", "reveal", "double", "show", "partner", "call")
PARTNER_VALUES = ("open_solo", "hidden_solo", "call_friend")
_TRUE = ("true", "1", "yes", "on")
_FALSE = ("false", "0", "no", "off")


@dataclass(frozen=True)
class Intent:
    kind: str  # act | autoplay | resync | chat
    version: int | None = None
    action: dict[str, Any] | None = None  # §8.4 action without "seat" (the server adds it)
    enabled: bool | None = None  # autoplay
    table_id: int | None = None
    hand_id: int | None = None
    chat_key: str = ""  # chat: a phrase key (club.phrases)
    text: str = ""  # chat: free text (refused by the club unless allowed)


def _bad(code: ErrorCode, detail: str) -> ActionRejected:
    return ActionRejected.of(code, detail=detail)


def _optional_int(data: dict[str, Any], key: str) -> int | None:
    value = data.get(key)
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise _bad(ErrorCode.BAD_VALUE, f"{key} must be an integer")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit() and len(value) < 19:
        return int(value.strip())
    raise _bad(ErrorCode.BAD_VALUE, f"{key} must be an integer")


def _bool(value: Any, what: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE:
        return True
    if isinstance(value, str) and value.strip().lower() in _FALSE:
        return False
    raise _bad(ErrorCode.BAD_VALUE, f"{what} takes true or false")


def _text(value: Any, what: str, limit: int = 16) -> str:
    if value is None:
        return ""
    if not isinstance(value, str) or len(value) > limit:
        raise _bad(ErrorCode.BAD_VALUE, f"{what} must be a short text")
    return value.strip()


def _act(data: dict[str, Any]) -> dict[str, Any]:
    act = data.get("act")
    if not isinstance(act, str) or act not in CLIENT_ACTS:
        raise _bad(ErrorCode.UNKNOWN_ACT, f"unknown act {str(act)[:20]!r}")
    raw = data.get("value")
    if act == "play":
        cards = data.get("cards")
        if isinstance(cards, list) and all(isinstance(c, str) for c in cards):
            cards = " ".join(cards)
        if not isinstance(cards, str) or len(cards) > MAX_CARDS_CHARS:
            raise _bad(ErrorCode.BAD_VALUE, "a play needs its cards")
        if not cards.strip():
            raise _bad(ErrorCode.NOT_A_COMBINATION, "no cards selected")
        out: dict[str, Any] = {"act": "play", "cards": cards.strip()}
        declared = _text(data.get("kind"), "kind", 32)
        if declared:
            out["value"] = declared
        return out
    if act == "pass":
        return {"act": "pass"}
    if act == "bid":
        if isinstance(raw, int) and not isinstance(raw, bool):
            return {"act": "bid", "value": raw}
        text = _text(raw, "bid", 4)
        if not text.isdigit():
            raise _bad(ErrorCode.BAD_VALUE, "bid takes 0-3")
        return {"act": "bid", "value": int(text)}
    if act in ("reveal", "double", "show"):
        return {"act": act, "value": _bool(raw, act)}
    if act in ("grab", "call"):
        text = _text(raw, act, 8)
        return {"act": act, "value": text or None}
    # partner
    text = _text(raw, "partner", 16)
    if text not in PARTNER_VALUES:
        raise _bad(ErrorCode.BAD_VALUE, f"partner takes one of {', '.join(PARTNER_VALUES)}")
    return {"act": "partner", "value": text}


def parse_frame(text: Any) -> Intent:
    """The intent of one inbound frame, or ActionRejected."""
    if not isinstance(text, str):
        raise _bad(ErrorCode.MALFORMED, "frames are JSON text")
    if len(text) > MAX_FRAME_CHARS:
        raise _bad(ErrorCode.TOO_LARGE, f"{len(text)} characters")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise _bad(ErrorCode.MALFORMED, "not JSON") from None
    if not isinstance(data, dict):
        raise _bad(ErrorCode.MALFORMED, "a frame is a JSON object")
    kind = data.get("intent")
    if not isinstance(kind, str) or kind not in INTENTS:
        raise _bad(ErrorCode.UNKNOWN_INTENT, f"unknown intent {str(kind)[:20]!r}")
    table_id = _optional_int(data, "table")
    hand_id = _optional_int(data, "hand")
    if kind == "resync":
        return Intent("resync", table_id=table_id, hand_id=hand_id)
    if kind == "chat":
        return Intent(
            "chat",
            chat_key=_text(data.get("key"), "key", 32),
            text=_text(data.get("text"), "text", MAX_CHAT_CHARS),
            table_id=table_id,
        )
    if kind == "autoplay":
        return Intent(
            "autoplay",
            enabled=_bool(data.get("value"), "autoplay"),
            version=_optional_int(data, "version"),
            table_id=table_id,
            hand_id=hand_id,
        )
    version = _optional_int(data, "version")
    if version is None:
        raise _bad(ErrorCode.BAD_VALUE, "an action needs the version it was made at")
    return Intent("act", version=version, action=_act(data), table_id=table_id, hand_id=hand_id)
