"""Reads of private tables and sessions (issue #8): who may watch a table or see a session,
a session's score sheet (each player's beans are the sums of the ledger's entries of its hands,
so its totals are the ledger's by construction), and the facts the #table-session region shows."""

from __future__ import annotations

import csv
import io
from fractions import Fraction
from typing import Any

from django.db.models import Sum
from django.utils.functional import lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.models import BeanEntry
from games.models import Hand, HandPlayer, Seat, Table, TableSession
from games.reads import selectors
from games.table.hooks import hooks
from games.table.invites import code_matches
from games.table.stakes import table_seconds, table_stakes


def may_watch(table: Table, user: Any, codes: Any = ()) -> bool:
    """May ``user`` see ``table``'s screen? Public tables: anyone. Private: the host and the
    seated, and code holders when the host lets spectators watch; never while a hook hides it."""
    if not hooks.may_watch(table=table, user=user):
        return False
    if not table.is_private:
        return True
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    if table.host_id == user.pk or Seat.objects.filter(table=table, user_id=user.pk).exists():
        return True
    return table.allow_spectators and any(code_matches(table, c) for c in codes or ())


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
    # outside the f-strings: xgettext does not look inside them
    units, beans = _("units"), _("beans")
    for name in sheet["players"]:
        head += [f"{name} {units}", f"{name} {beans}"]
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


def session_facts(*, table: Table, seats: list[Seat] | None = None) -> dict[str, Any]:
    """What #table-session shows every audience alike: the seats (``seats``: already read, each
    with its user), the session's sheet, the next deal's stakes and clocks (a push reads them
    once for all its audiences)."""
    session = table_session(table)
    turn, bid = table_seconds(table)
    stakes = table_stakes(table)
    return {
        "seats": list(seats) if seats is not None else selectors.table_seats(table=table),
        "sheet": session_sheet(session) if session is not None else None,
        "stake": f"{stakes.base_score}×{stakes.coefficient}",
        "turn": turn,
        "bid": bid,
    }
