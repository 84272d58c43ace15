"""The #table-session region: the table's session as one audience sees it (a session: the hands
the same people play in a row), that is who sits where with the seat moves and swap requests,
the next hand's stakes and clocks, a private table's invite link and settings, and the session's
score sheet. It changes between hands (seats, the finished hand's line on the
sheet) or on a host's or a player's request, and is pushed then, each audience its own
rendering like the other regions; not on every move (the hot path of a hand)."""

from __future__ import annotations

from typing import Any

from django.template.loader import render_to_string

from games.models import Table


def private_context(*, table: Table, user: Any, facts: dict[str, Any]) -> dict[str, Any]:
    """What the #table-session region shows ``user``: the table's private facts (the invite link
    only to its players and host), pending swap requests, stand-up state, and the session's
    sheet, from ``facts`` (games.reads.private.session_facts: the same for every audience)."""
    uid = getattr(user, "pk", None) if getattr(user, "is_authenticated", False) else None
    seats = facts["seats"]
    mine = next((s for s in seats if uid is not None and s.user_id == uid), None)
    asks_me = [s for s in seats if mine is not None and s.swap_with == mine.index and s.user_id]
    return {
        "session_stake": facts["stake"],
        "session_private": table.is_private,
        "session_is_host": uid is not None and table.host_id == uid,
        "session_invite_code": table.invite_code
        if (mine is not None or table.host_id == uid)
        else "",
        "session_mine": mine,
        "session_asks_me": asks_me,
        "session_seats": seats,
        "session_has_bot": any(s.is_bot for s in seats),  # such a hand is never rated
        "session_sheet": facts["sheet"],
        "session_turn_seconds": facts["turn"],
        "session_bid_seconds": facts["bid"],
    }


def render_session(
    *, table: Table, user: Any, hand_over: bool, facts: dict[str, Any] | None = None
) -> str:
    """The #table-session region for ``user`` (``facts``: None reads them in the template's
    ``session_panel`` tag, a page load's)."""
    return render_to_string(
        "games/table/session.html",
        {"table": table, "user": user, "hand_over": hand_over, "session_facts": facts, "oob": True},
    )
