"""Private tables, seat management and the night's score sheet (issue #8).

Writes follow games/services.py: one transaction, the table row locked first, version bumped,
broadcast and notices after commit. The host's rule options, decision seconds and stakes are
stored on the table (``Table.settings``) and only read when the next hand is dealt: a hand
snapshots them (``Hand.options``/``stakes``/``record``, ``Hand.turn_seconds``/``bid_seconds``),
so a change never reaches a hand in play. Seats change only between hands.

The score sheet of a session reads each player's beans from the ledger entries of its hands
(``BeanEntry.hand_ref``), so its totals are the ledger's by construction.
"""

from __future__ import annotations

import csv
import hmac
import io
import secrets
from fractions import Fraction
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Sum
from django.utils import translation
from django.utils.functional import lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.models import BeanEntry, User
from games.engine.variants import find_variant
from games.models import Hand, HandPlayer, Room, Seat, Table, TableSession
from games.reads import selectors
from games.screen.notify import notify
from games.services.base import (
    broadcast_on_commit,
    bump,
    create_seats,
    lock_between_hands,
    lock_seated,
    lock_table,
    require_user,
    seat_moves,
    vacate,
    write,
)
from games.services.seating import table_join, table_leave
from games.table import life
from games.table.errors import ActionRejected, ErrorCode

# No 0/O, 1/I/L: read aloud or typed from a phone without mistakes. 31**7 ≈ 2.8e10 codes.
INVITE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
INVITE_LENGTH = 7
SECONDS_RANGE = (5, 120)

SETTING_LABELS = {
    "options": _("rule options"),
    "turn_seconds": _("turn seconds"),
    "bid_seconds": _("bid seconds"),
    "coefficient": _("coefficient"),
    "allow_bots": _("bots"),
    "allow_spectators": _("spectators"),
}


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


def may_watch(table: Table, user: Any, codes: Any = ()) -> bool:
    """May ``user`` see ``table``'s screen? Public tables: anyone. Private: the host and the
    seated, and code holders when the host lets spectators watch."""
    if not table.is_private:
        return True
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    if table.host_id == user.pk or Seat.objects.filter(table=table, user_id=user.pk).exists():
        return True
    return table.allow_spectators and any(code_matches(table, c) for c in codes or ())


# --------------------------------------------------------------------------- writes


def table_create_private(*, room: Room, user: User, coefficient: Any = None) -> Table:
    """Open a private table in ``room`` with ``user`` as host, seated. Operators may set a
    coefficient between the room's and ``room.private_coefficient_max``."""
    user = require_user(user)
    if not room.is_active:
        raise ActionRejected.of(ErrorCode.ROOM_CLOSED)
    if not room.private_tables:
        raise ActionRejected.of(ErrorCode.PRIVATE_NOT_ALLOWED)
    settings: dict[str, Any] = {}
    if coefficient not in (None, ""):
        settings["coefficient"] = _coefficient(room, user, coefficient)
    variant = find_variant(room.variant, **(room.options or {}))
    for _attempt in range(5):
        try:
            with write(), transaction.atomic():
                table = Table.objects.create(
                    room=room,
                    is_private=True,
                    invite_code=new_invite_code(),
                    host=user,
                    settings=settings,
                )
                create_seats(table, variant.seats)
        except ActionRejected as error:  # an invite code collision: draw again
            if error.code is not ErrorCode.CONFLICT:
                raise
            continue
        break
    else:  # pragma: no cover
        raise ActionRejected.of(ErrorCode.CONFLICT)
    table_join(table_id=table.pk, user=user)
    return table


def _coefficient(room: Room, user: User, value: Any) -> int:
    try:
        value = int(value)
    except (TypeError, ValueError):
        raise ActionRejected.of(ErrorCode.BAD_SETTING) from None
    if value == room.coefficient:
        return value
    limit = room.private_coefficient_max
    if not user.is_staff or limit is None or not room.coefficient <= value <= limit:
        raise ActionRejected.of(ErrorCode.BAD_SETTING, detail=f"coefficient {value}")
    return value


def _host_table(table_id: Any, user: Any) -> Table:
    user = require_user(user)
    table = lock_table(table_id)
    assert table is not None
    if not table.is_private or table.host_id != user.pk:
        raise ActionRejected.of(ErrorCode.NOT_HOST)
    return table


def host_option_choices(room: Room) -> dict[str, tuple[Any, ...]]:
    """The rule options a host may set in ``room`` and their values."""
    choices = find_variant(room.variant).option_choices
    return {name: tuple(choices[name]) for name in room.host_options or [] if name in choices}


def _option_value(choices: tuple[Any, ...], raw: Any) -> Any:
    for value in choices:
        if raw == value or str(raw) == str(value):
            return value
    raise ActionRejected.of(ErrorCode.BAD_SETTING, detail=f"option value {raw!r}")


def _seconds(raw: Any) -> int:
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise ActionRejected.of(ErrorCode.BAD_SETTING) from None
    if not SECONDS_RANGE[0] <= value <= SECONDS_RANGE[1]:
        raise ActionRejected.of(ErrorCode.BAD_SETTING, detail=f"seconds {value}")
    return value


def table_update_settings(
    *,
    table_id: Any,
    user: User,
    options: dict[str, Any] | None = None,
    turn_seconds: Any = None,
    bid_seconds: Any = None,
    coefficient: Any = None,
    allow_bots: bool | None = None,
    allow_spectators: bool | None = None,
) -> Table:
    """The host's settings. Rule options, seconds and coefficient wait for the next deal (a
    hand in play keeps its snapshot); the bots and spectators switches apply at once."""
    with write():
        table = _host_table(table_id, user)
        room = table.room
        new = dict(table.settings or {})
        if options is not None:
            allowed = host_option_choices(room)
            chosen = dict(new.get("options") or {})
            for name, raw in options.items():
                if name not in allowed:
                    raise ActionRejected.of(ErrorCode.BAD_SETTING, detail=f"option {name}")
                chosen[name] = _option_value(allowed[name], raw)
            new["options"] = chosen
        if turn_seconds not in (None, ""):
            new["turn_seconds"] = _seconds(turn_seconds)
        if bid_seconds not in (None, ""):
            new["bid_seconds"] = _seconds(bid_seconds)
        if coefficient not in (None, ""):
            new["coefficient"] = _coefficient(room, user, coefficient)
        changed = [
            k
            for k in ("options", "turn_seconds", "bid_seconds", "coefficient")
            if (table.settings or {}).get(k) != new.get(k)
        ]
        fields = ["settings"]
        if allow_bots is not None and bool(allow_bots) != table.allow_bots:
            table.allow_bots = bool(allow_bots)
            changed.append("allow_bots")
            fields.append("allow_bots")
        if allow_spectators is not None and bool(allow_spectators) != table.allow_spectators:
            table.allow_spectators = bool(allow_spectators)
            changed.append("allow_spectators")
            fields.append("allow_spectators")
            if not table.allow_spectators:
                _close_watchers_on_commit(table)
        if not changed:
            return table
        table.settings = new
        table.save(update_fields=fields)
        in_hand = selectors.table_active_hand(table=table) is not None
        key = "settings_next" if in_hand else "settings"
        notify(table.pk, key, name=user.username, what=_Joined(changed))
        club_on_commit(table.pk)
        bump(table)
        broadcast_on_commit(table.pk)
    return table


def _close_watchers_on_commit(table: Table) -> None:
    """Close the spectators' sockets (everyone but the seated and the host) after commit."""
    from games.push import broadcast

    keep = [*Seat.objects.filter(table=table, user__isnull=False).values_list("user_id", flat=True)]
    if table.host_id is not None:
        keep.append(table.host_id)
    event = {"type": "table.close_watchers", "skip_users": keep}
    transaction.on_commit(lambda: broadcast._send(broadcast.public_group(table.pk), event))


class _Joined:
    """Setting labels joined, translated when rendered (per notice language)."""

    def __init__(self, keys: list[str]) -> None:
        self.keys = keys

    def __str__(self) -> str:
        return ", ".join(str(SETTING_LABELS[k]) for k in self.keys)


def table_set_locked(*, table_id: Any, user: User, locked: bool) -> Table:
    """The host locks (nobody new may sit) or unlocks the table."""
    with write():
        table = _host_table(table_id, user)
        if table.locked != bool(locked):
            table.locked = bool(locked)
            table.save(update_fields=["locked"])
            notify(table.pk, "locked" if locked else "unlocked", name=user.username)
            bump(table)
            broadcast_on_commit(table.pk)
    return table


def table_remove_seat(*, table_id: Any, user: User, seat_index: Any) -> None:
    """The host frees an idle seat between hands: a bot, or a player with no open connection.
    Never during a hand."""
    with write():
        table = _host_table(table_id, user)
        if selectors.table_active_hand(table=table) is not None:
            raise ActionRejected.of(ErrorCode.HAND_IN_PROGRESS)
        seat = next(
            (s for s in selectors.table_seats(table=table) if str(s.index) == str(seat_index)), None
        )
        if seat is None or seat.is_empty or seat.user_id == user.pk:
            raise ActionRejected.of(ErrorCode.BAD_SEAT)
        if seat.user_id is not None and seat.connections > 0:
            raise ActionRejected.of(ErrorCode.SEAT_NOT_IDLE)
        other = seat.user.username if seat.user is not None else str(_("a bot"))
        vacate(seat)
        notify(table.pk, "removed", name=user.username, other=other)
        bump(table)
        broadcast_on_commit(table.pk)


def _between_hands_seat(table_id: Any, user: Any) -> tuple[Table, list[Seat], Seat]:
    user = require_user(user)
    table, seats = lock_between_hands(table_id, user=user)
    mine = next(s for s in seats if s.user_id == user.pk)
    return table, seats, mine


# a seated player's open sockets: they follow him to another seat
_PRESENCE_FIELDS = ("connections", "connected_at", "disconnected_at")


def seat_move(*, table_id: Any, user: User, seat_index: Any) -> Seat:
    """Move to a free seat between hands."""
    with write():
        table, seats, mine = _between_hands_seat(table_id, user)
        target = next((s for s in seats if str(s.index) == str(seat_index)), None)
        if target is None:
            raise ActionRejected.of(ErrorCode.BAD_SEAT)
        if not target.is_empty:
            raise ActionRejected.of(ErrorCode.SEAT_TAKEN)
        seat_moves(mine, life.Event.LEAVE)
        seat_moves(target, life.Event.SIT)
        # his tabs stay open (no reload): the new seat keeps their count and times
        presence = {field: getattr(mine, field) for field in _PRESENCE_FIELDS}
        vacate(mine)
        target.user = user
        for field, value in presence.items():
            setattr(target, field, value)
        target.save(update_fields=["user", *_PRESENCE_FIELDS])
        bump(table)
        broadcast_on_commit(table.pk)
    return target


def seat_request_swap(*, table_id: Any, user: User, seat_index: Any) -> None:
    """Ask the player on ``seat_index`` to swap seats (again: withdraw the request)."""
    with write():
        table, seats, mine = _between_hands_seat(table_id, user)
        target = next((s for s in seats if str(s.index) == str(seat_index)), None)
        if target is None or target.user_id is None or target is mine:
            raise ActionRejected.of(ErrorCode.BAD_SEAT)
        mine.swap_with = None if mine.swap_with == target.index else target.index
        mine.save(update_fields=["swap_with"])
        if mine.swap_with is not None:
            notify(table.pk, "swap_asked", name=user.username, other=target.user.username)
        bump(table)
        broadcast_on_commit(table.pk)


def seat_accept_swap(*, table_id: Any, user: User, seat_index: Any) -> None:
    """Accept the swap asked by the player on ``seat_index``: both change seats."""
    with write():
        table, seats, mine = _between_hands_seat(table_id, user)
        other = next((s for s in seats if str(s.index) == str(seat_index)), None)
        if other is None or other.user_id is None or other.swap_with != mine.index:
            raise ActionRejected.of(ErrorCode.NO_SWAP_REQUEST)
        mine_user, other_user = mine.user, other.user
        fields = _PRESENCE_FIELDS
        mine_state = [getattr(mine, f) for f in fields]
        other_state = [getattr(other, f) for f in fields]
        mine.user = None
        mine.save(update_fields=["user"])
        other.user = mine_user
        other.swap_with = None
        for f, v in zip(fields, mine_state, strict=True):
            setattr(other, f, v)
        other.save()
        mine.user = other_user
        mine.swap_with = None
        for f, v in zip(fields, other_state, strict=True):
            setattr(mine, f, v)
        mine.save()
        assert mine_user is not None and other_user is not None
        notify(table.pk, "swapped", name=other_user.username, other=mine_user.username)
        bump(table)
        broadcast_on_commit(table.pk)


def seat_stand_after_hand(*, table_id: Any, user: User, enabled: bool = True) -> None:
    """Stand up once the hand in play is over (the player keeps playing it); between hands
    this is simply leaving."""
    with write():
        table, seat = lock_seated(table_id, user)
        in_hand = selectors.table_active_hand(table=table) is not None
        if in_hand:
            seat.sit_out_after_hand = bool(enabled)
            seat.save(update_fields=["sit_out_after_hand"])
            if enabled:
                notify(table.pk, "stand_after", name=user.username)
            club_on_commit(table.pk)
            bump(table)
            broadcast_on_commit(table.pk)
            return
    table_leave(table_id=table_id, user=user)


# --------------------------------------------------------------------------- score sheet


# a sheet is read once for every audience of a push: a bot is named in each reader's language
_bot_name = lazy(lambda n: gettext("Bot %(n)s") % {"n": n}, str)


def _player_key(row: HandPlayer) -> str:
    return f"u{row.user_id}" if row.user_id is not None else f"b{row.seat}"


def session_sheet(session: TableSession) -> dict[str, Any]:
    """Every settled hand of the session: each player's units and beans, and totals. Beans are
    the sum of that player's ledger entries for the hand (settlement, house take, rake)."""
    hands = list(
        Hand.objects.filter(session=session, status=Hand.Status.FINISHED).order_by("number")
    )
    rows_by_hand: dict[int, list[HandPlayer]] = {}
    for row in HandPlayer.objects.filter(hand__in=hands).select_related("user").order_by("seat"):
        rows_by_hand.setdefault(row.hand_id, []).append(row)
    ledger: dict[tuple[str, int], int] = {}
    for entry in (
        BeanEntry.objects.filter(hand_ref__in=[str(h.pk) for h in hands], user__isnull=False)
        .values("hand_ref", "user_id")
        .annotate(total=Sum("delta"))
    ):
        ledger[(entry["hand_ref"], entry["user_id"])] = int(entry["total"])
    players: dict[str, str] = {}
    for hand in hands:
        for row in rows_by_hand.get(hand.pk, []):
            key = _player_key(row)
            if key not in players:
                if row.user is not None:
                    players[key] = row.user.username
                else:
                    players[key] = _bot_name(row.seat + 1)
    keys = list(players)
    totals_units = {k: Fraction(0) for k in keys}
    totals_beans = dict.fromkeys(keys, 0)
    lines = []
    for hand in hands:
        result = hand.result or {}
        units = result.get("units") if isinstance(result, dict) else None
        if not isinstance(units, list):
            continue  # a re-dealt (all passed) hand settles nothing
        cells: dict[str, dict[str, Any]] = {}
        for row in rows_by_hand.get(hand.pk, []):
            key = _player_key(row)
            unit = Fraction(units[row.seat]) if row.seat < len(units) else Fraction(0)
            beans = ledger.get((str(hand.pk), row.user_id), 0) if row.user_id else 0
            cells[key] = {"units": _fmt(unit), "beans": beans}
            totals_units[key] += unit
            totals_beans[key] += beans
        lines.append(
            {
                "hand": hand,
                "number": hand.number,
                "cells": [cells.get(k) for k in keys],
            }
        )
    return {
        "session": session,
        "players": [players[k] for k in keys],
        "keys": keys,
        "lines": lines,
        "totals": [{"units": _fmt(totals_units[k]), "beans": totals_beans[k]} for k in keys],
    }


def _fmt(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"


def session_sheet_csv(session: TableSession) -> str:
    sheet = session_sheet(session)
    out = io.StringIO()
    writer = csv.writer(out)
    head = [str(_("Hand"))]
    for name in sheet["players"]:
        head += [f"{name} {_('units')}", f"{name} {_('beans')}"]
    writer.writerow(head)
    for line in sheet["lines"]:
        row: list[Any] = [line["number"]]
        for cell in line["cells"]:
            row += [cell["units"], cell["beans"]] if cell else ["", ""]
        writer.writerow(row)
    total: list[Any] = [str(_("Total"))]
    for cell in sheet["totals"]:
        total += [cell["units"], cell["beans"]]
    writer.writerow(total)
    return out.getvalue()


def table_session(table: Table) -> TableSession | None:
    return TableSession.objects.filter(table=table).order_by("-number").first()


def user_sessions(user: Any) -> Any:
    return (
        TableSession.objects.filter(hands__players__user=user)
        .select_related("table__room")
        .distinct()
        .order_by("-last_hand_at", "-id")
    )


def may_see_session(session: TableSession, user: Any, codes: Any = ()) -> bool:
    if not getattr(user, "is_authenticated", False):
        return False
    if HandPlayer.objects.filter(hand__session=session, user_id=user.pk).exists():
        return True
    return may_watch(session.table, user, codes)


def club_facts(*, table: Table) -> dict[str, Any]:
    """What #table-club shows every audience alike: the seats, the session's sheet, the next
    deal's stakes and clocks (a push reads them once for all its audiences)."""
    session = table_session(table)
    turn, bid = _next_seconds(table)
    from games.table.stakes import table_stakes

    stakes = table_stakes(table)
    return {
        "seats": list(Seat.objects.filter(table=table).select_related("user").order_by("index")),
        "sheet": session_sheet(session) if session is not None else None,
        "stake": f"{stakes.base_score}×{stakes.coefficient}",
        "turn": turn,
        "bid": bid,
    }


def private_context(
    *, table: Table, user: Any, facts: dict[str, Any] | None = None
) -> dict[str, Any]:
    """What the #table-club region shows: the table's private facts (the invite link only to
    its players and host), pending swap requests, stand-up state, and the session's sheet.
    ``facts``: ``club_facts`` of the table, when the caller has them."""
    if facts is None:
        facts = club_facts(table=table)
    uid = getattr(user, "pk", None) if getattr(user, "is_authenticated", False) else None
    seats = facts["seats"]
    mine = next((s for s in seats if uid is not None and s.user_id == uid), None)
    asks_me = [s for s in seats if mine is not None and s.swap_with == mine.index and s.user_id]
    return {
        "club_stake": facts["stake"],
        "club_private": table.is_private,
        "club_is_host": uid is not None and table.host_id == uid,
        "club_invite_code": table.invite_code if (mine is not None or table.host_id == uid) else "",
        "club_mine": mine,
        "club_asks_me": asks_me,
        "club_seats": seats,
        "club_sheet": facts["sheet"],
        "club_turn_seconds": facts["turn"],
        "club_bid_seconds": facts["bid"],
    }


def _next_seconds(table: Table) -> tuple[int, int]:
    from games.table.stakes import table_seconds

    return table_seconds(table)


def save_invite(session: Any, code: Any) -> None:
    """Remember an invite code in the browser session (for the page and its websocket)."""
    code = normalise_code(code)
    codes = [c for c in session.get("ddz_invites", []) if c != code][-19:]
    session["ddz_invites"] = [*codes, code]


# --------------------------------------------------------------------------- the club region
# #table-club is not one of the regions re-rendered on every push (the hot path of a hand): it
# changes between hands (seats, the finished hand's line on the sheet) or on a host's or a
# player's request, and is pushed then, each audience its own rendering like the others.


def render_club(
    *, table: Table, user: Any, hand_over: bool, facts: dict[str, Any] | None = None
) -> str:
    from django.template.loader import render_to_string

    return render_to_string(
        "games/table/club.html",
        {"table": table, "user": user, "hand_over": hand_over, "club_facts": facts, "oob": True},
    )


def with_club(
    table_id: int,
    frames: list[tuple[str, dict[str, Any]]],
    *,
    notices: list[str] | None = None,
    force: bool = False,
) -> list[tuple[str, dict[str, Any]]]:
    """The push's frames (``broadcast.audience_frames`` with ``every_seat``) with the notices
    appended to the public frame's shared regions (everyone's) and, between hands (or with
    ``force``), #table-club rendered for each audience: a seat's in its own frame, a
    spectator's (for nobody, so never an invite code) in the public frame's spectator part."""
    from games.push import broadcast

    table = selectors.table_get(table_id=table_id)
    if table is None:
        return frames
    hand_over = selectors.table_active_hand(table=table) is None
    club = hand_over or force
    facts = club_facts(table=table) if club else None
    users = {s.user_id: s.user for s in facts["seats"] if s.user_id} if facts else {}
    tail = "".join(notices or ())

    def region(user: Any, language: str | None) -> str:
        if not club:
            return ""
        with translation.override(language or settings.LANGUAGE_CODE):
            return render_club(table=table, user=user, hand_over=hand_over, facts=facts)

    out = []
    for group, event in frames:
        # each rendering in the language of the regions it joins (a seat frame's reader's, a
        # public frame's one per language), never that of whoever caused the push
        if group != broadcast.public_group(table.pk):
            user = users.get(int(group.rsplit(".", 1)[-1]))
            html = event.get("html", "") + region(user, event.get("language"))
            out.append((group, {**event, "html": html}))
            continue
        extended = {**event, "html": event.get("html", "") + tail}
        extended["html_by_language"] = {
            language: html + tail for language, html in event["html_by_language"].items()
        }
        extended["watcher_by_language"] = {
            language: html + region(None, language)
            for language, html in event["watcher_by_language"].items()
        }
        out.append((group, extended))
    return out


def club_on_commit(table_id: int) -> None:
    """Include #table-club in this transaction's push even mid-hand (a host's or a player's
    own change)."""

    broadcast_on_commit(table_id, club=True)
