"""Invite codes of private tables (issue #8): drawn, compared in constant time, checked before
a seat is taken, and kept in the browser session for the page and its socket."""

from __future__ import annotations

import hmac
import secrets
from typing import Any

from accounts.models import User
from games.models import Table
from games.table.errors import ActionRejected, ErrorCode

# No 0/O, 1/I/L: read aloud or typed from a phone without mistakes. 31**12 ≈ 7.9e17 codes:
# at the throttle's 10 wrong codes a minute from an address (services.private.invite_table),
# guessing any one of a thousand open private tables' codes takes an address about 1.5e8 years
# on average (README.md, "Who can learn what"). Codes of 7 made before stay valid.
INVITE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
INVITE_LENGTH = 12


def new_invite_code() -> str:
    return "".join(secrets.choice(INVITE_ALPHABET) for _ in range(INVITE_LENGTH))


def normalise_code(code: Any) -> str:
    return str(code or "").strip().upper()[:16]


def code_matches(table: Table, code: Any) -> bool:
    if not table.invite_code or not code:
        return False
    return hmac.compare_digest(table.invite_code, normalise_code(code))


def check_invite(table: Table, user: User, code: Any) -> None:
    """May ``user`` sit at private ``table``? The host always; others with the code, unlocked."""
    if table.host_id == user.pk:
        return
    if table.locked:
        raise ActionRejected.of(ErrorCode.TABLE_LOCKED)
    if not code_matches(table, code):
        raise ActionRejected.of(ErrorCode.INVITE_REQUIRED)


def save_invite(session: Any, code: Any) -> None:
    """Remember an invite code in the browser session (for the page and its websocket)."""
    code = normalise_code(code)
    codes = [c for c in session.get("ddz_invites", []) if c != code][-19:]
    session["ddz_invites"] = [*codes, code]
