"""What a screen of one table state is rendered from, read once for all its audiences: the
table, its current hand and state, the seats with their users, who held each seat of the hand,
the result's extras, the title ladder, the players' ratings and one clock reading. A push
reads one snapshot for every audience (a handful of queries in all, fewer when the service
that committed the state hands over what it holds); the screen modules then read no
database."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypedDict, TypeVar, cast

from django.utils import timezone

from accounts.models import Title, User
from accounts.selectors import title_ladder
from games.engine.state import HandState
from games.models import Hand, Seat, Table
from games.reads import selectors
from games.table.hooks import ShownRating, hooks

Built = TypeVar("Built")


class HandExtras(TypedDict, total=False):
    """What a finished hand's stored result adds to its result panel, beyond the engine's
    figures (each key only when the result has it)."""

    # each seat's score move
    scores: list[int]
    # each seat's beans as the ledger settled them (balances and bots applied)
    beans: list[int]
    # the house's intake
    house: int
    # each seat's title (before, after) when a human player's score moved it, else None
    titles: list[tuple[str | None, str | None] | None]


@dataclass
class TableSnapshot:
    """What every audience of one table state is rendered from, read once: the seats with
    their users, who held each seat of the hand, the hand's state and result extras, and one
    clock reading. A push builds one snapshot for all its audiences (a handful of queries in
    all); a single rendering builds its own."""

    table: Table
    hand: Hand | None
    seats: list[Seat]
    holders: dict[int, int | None]
    state: HandState | None
    extras: HandExtras
    now: datetime.datetime
    # user id -> (name, is a bot) of the hand's players who no longer sit at the table
    departed: dict[int, tuple[str, bool]] = field(default_factory=dict)
    # the hand's state before the writes this snapshot shows (their service had it): a push
    # sends a seat its own regions only when they changed. None: unknown, every seat is sent
    # its own regions.
    before: HandState | None = None
    # the title ladder as of this read (the seat panels and the purse name each player's title)
    titles: tuple[Title, ...] = ()
    # user id -> the club's skill rating of each seated player (games.table.hooks ratings_of)
    ratings: Mapping[int, ShownRating] = field(default_factory=dict)
    # what the screen builds once per snapshot (games/screen/seats.py: the seat panels' facts
    # per language): a push renders one snapshot for every audience
    memo: dict[Hashable, object] = field(default_factory=dict, repr=False)

    def remembered(self, key: Hashable, build: Callable[[], Built]) -> Built:
        """``build()``, called once per snapshot and ``key`` (a key names one kind of value,
        so the value kept under it is what ``build`` returns)."""
        if key not in self.memo:
            self.memo[key] = build()
        return cast(Built, self.memo[key])


def table_snapshot(
    *,
    table: Table,
    hand: Hand | None,
    seats: Sequence[Seat] | None = None,
    holders: dict[int, int | None] | None = None,
    state: HandState | None = None,
    before: HandState | None = None,
) -> TableSnapshot:
    """The snapshot of ``table`` and its current ``hand``; what the caller already holds
    (the seats with their users, who held each seat of the hand, the hand's state: a service
    that has just written them) is not read again."""
    if seats is None:
        seats = selectors.table_seats(table=table)
    extras: HandExtras = {}
    if hand is None:
        holders, state = {}, None
    else:
        if holders is None:
            holders = {}
            for seat, user_id in selectors.hand_holders(hand=hand):
                holders.setdefault(seat, user_id)
        if state is None:
            state = selectors.hand_state(hand)
        extras = _hand_extras(hand)
    seats = list(seats)
    return TableSnapshot(
        table=table,
        hand=hand,
        seats=seats,
        holders=holders,
        state=state,
        extras=extras,
        now=timezone.now(),
        departed=_departed(holders, seats),
        before=before if hand is not None else None,
        titles=title_ladder(),
        ratings=hooks.ratings_of(
            user_ids=[s.user_id for s in seats if s.user_id is not None],
            variant_key=table.room.variant,
        ),
    )


def _departed(holders: dict[int, int | None], seats: Sequence[Seat]) -> dict[int, tuple[str, bool]]:
    """(name, is a bot) of the hand's players who have left their seats since (read only when
    someone has: a hand in play keeps its players seated)."""
    gone = {u for u in holders.values() if u is not None} - {s.user_id for s in seats}
    if not gone:
        return {}
    rows = User.objects.filter(pk__in=gone).values_list("pk", "username", "is_bot")
    return {pk: (name, is_bot) for pk, name, is_bot in rows}


def _hand_extras(hand: Hand) -> HandExtras:
    """Score and title moves from the finished hand's result JSON (games.services stores
    ``scores`` per seat and ``titles_before`` / ``titles_after`` as Title ids)."""
    result = getattr(hand, "result", None) or {}
    out: HandExtras = {}
    if not isinstance(result, dict):
        return out
    if isinstance(result.get("scores"), list):
        out["scores"] = result["scores"]
    # the ledger's settlement (balances and bots applied) wins over the engine's figures
    if isinstance(result.get("beans"), list) and result["beans"]:
        out["beans"] = result["beans"]
    if isinstance(result.get("house"), int):
        out["house"] = result["house"]
    before, after = result.get("titles_before"), result.get("titles_after")
    if isinstance(before, list) and isinstance(after, list):
        ids = {i for i in (*before, *after) if i is not None}
        ladder = {t.pk: t for t in title_ladder()}
        if not ids <= ladder.keys():  # a title added since the ladder was read
            ladder = {t.pk: t for t in Title.objects.filter(pk__in=ids)}
        names = {pk: str(ladder[pk]) for pk in ids if pk in ladder}
        out["titles"] = [
            (names.get(b), names.get(a)) if b is not None and a is not None else None
            for b, a in zip(before, after, strict=False)
        ]
    return out


def table_snapshot_read(*, table_id: int) -> TableSnapshot | None:
    """The snapshot of the table's current state, read whole (None: no such table)."""
    table = selectors.table_get(table_id=table_id)
    if table is None:
        return None
    return table_snapshot(table=table, hand=selectors.table_current_hand(table=table))
