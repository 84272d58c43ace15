"""Writes of events: creating, registering, withdrawing, pausing, cancelling, finishing and
settling. Each is one transaction that locks the event row first (one lock order: event, then
the players' rows in the ledger); pushes go after commit (competitions.broadcast).

Money: a fee is a ``BeanEntry`` pair (the player pays, the house holds it) under the event's
``ledger_ref``; refunds and prizes are pairs the other way. ``event_settle`` runs once per event:
its ``Settlement`` row is checked under the event lock and unique, so a second or concurrent
call settles nothing more.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import BeanEntry, User
from accounts.services import InsufficientBeans, beans_event_move
from club.services.outcomes import hand_finished_record
from competitions import broadcast, duplicate, prizes, selectors
from competitions.errors import EventCode, EventRefused
from competitions.models import Board, Entry, Event, Format, Game, Schedule, Settlement
from competitions.selectors import seat_units, seat_won
from games.api import ActionRejected, Hand, hand_state, hooks, table_deal_for, wake
from games.engine import BotLevel, new_seed, seed_commitment

logger = logging.getLogger(__name__)

Reason = BeanEntry.Reason


def event_create(**fields: Any) -> Event:
    """A one-off event after full validation (room, format, bands, entrants)."""
    event = Event(**fields)
    event.full_clean()
    event.save()
    return event


def schedule_create(**fields: Any) -> Schedule:
    schedule = Schedule(**fields)
    schedule.full_clean()
    schedule.save()
    return schedule


def lock_event(event_id: int, *, skip_locked: bool = False) -> Event | None:
    """The event, its row locked (PostgreSQL: FOR UPDATE; SQLite serialises writers)."""
    rows = Event.objects.select_for_update(skip_locked=skip_locked).select_related("room")
    return rows.filter(pk=event_id).first()


def _locked(event_id: int) -> Event:
    event = lock_event(event_id)
    if event is None:
        raise Event.DoesNotExist(event_id)
    return event


def _open_locked(event_id: int) -> Event:
    """The event, locked; refused as over once it finished or was cancelled (a player's
    register, withdraw, pause or resume then changes nothing)."""
    event = _locked(event_id)
    if event.status in (Event.Status.FINISHED, Event.Status.CANCELLED):
        raise EventRefused(EventCode.OVER)
    return event


def event_register(*, event_id: int, user: User, now: datetime.datetime | None = None) -> Entry:
    """Enter ``user``: before the start, or during an arena until it stops forming tables. The
    fee is taken at once (refunded if the event is cancelled or he withdraws before it
    starts); in a running arena he joins the waiting pool."""
    now = now or timezone.now()
    with transaction.atomic():
        event = _open_locked(event_id)
        if not event.is_open:
            raise EventRefused(EventCode.CLOSED)
        if not hooks.user_may_sit(user=user):
            raise EventRefused(EventCode.SUSPENDED)
        entry = Entry.objects.filter(event=event, user=user).first()
        if entry is not None and entry.active:
            raise EventRefused(EventCode.ALREADY)
        if entry is not None and entry.removed_by_id is not None:
            raise EventRefused(EventCode.CLOSED)  # an operator took him out
        taken = Entry.objects.filter(event=event, active=True).count()
        if event.max_entrants is not None and taken >= event.max_entrants:
            raise EventRefused(EventCode.FULL)
        if event.entry_fee:
            try:
                beans_event_move(
                    user=user,
                    delta=-event.entry_fee,
                    reason=Reason.EVENT_FEE,
                    event_ref=event.ledger_ref,
                )
            except InsufficientBeans:
                raise EventRefused(EventCode.BEANS, fee=event.entry_fee) from None
        running = event.status == Event.Status.RUNNING
        fields = {
            "active": True,
            "paused": False,
            "fee_paid": (entry.fee_paid if entry else 0) + event.entry_fee,
            "waiting_since": now if running else None,
        }
        if entry is None:
            entry = Entry.objects.create(event=event, user=user, joined_at=now, **fields)
        else:
            Entry.objects.filter(pk=entry.pk).update(**fields)
            entry.refresh_from_db()
        broadcast.event_changed_on_commit(event.pk)
    return entry


def event_withdraw(*, event_id: int, user: User, actor: User | None = None) -> Entry:
    """Take ``user`` out of the event (himself, or an operator: ``actor``). Before the start
    his fee is refunded; once it runs it stays in the pool and he leaves the standings (a hand
    he is playing is played out)."""
    with transaction.atomic():
        event = _open_locked(event_id)
        entry = Entry.objects.filter(event=event, user=user, active=True).first()
        if entry is None:
            raise EventRefused(EventCode.NOT_ENTERED)
        refund = entry.fee_paid if event.status == Event.Status.SCHEDULED else 0
        if refund:
            _refund(event, entry, refund)
        entry.active = False
        entry.waiting_since = None
        entry.removed_by = actor if actor is not None and actor.pk != user.pk else None
        entry.save(update_fields=["active", "waiting_since", "removed_by", "fee_paid"])
        broadcast.event_changed_on_commit(event.pk)
    return entry


def _refund(event: Event, entry: Entry, amount: int) -> None:
    beans_event_move(
        user=entry.user,
        delta=amount,
        reason=Reason.EVENT_REFUND,
        event_ref=event.ledger_ref,
    )
    entry.fee_paid -= amount
    Entry.objects.filter(pk=entry.pk).update(fee_paid=entry.fee_paid)


def entry_pause(
    *, event_id: int, user: User, paused: bool, now: datetime.datetime | None = None
) -> Entry:
    """Arena: leave the waiting pool (a hand being played is finished first) or come back."""
    now = now or timezone.now()
    with transaction.atomic():
        event = _open_locked(event_id)
        if event.format != Format.ARENA:
            raise EventRefused(EventCode.NOT_ARENA)
        entry = Entry.objects.filter(event=event, user=user, active=True).first()
        if entry is None:
            raise EventRefused(EventCode.NOT_ENTERED)
        entry.paused = paused
        at_table = selectors.entry_at_table(entry=entry)
        running = event.status == Event.Status.RUNNING
        entry.waiting_since = now if (running and not paused and not at_table) else None
        entry.save(update_fields=["paused", "waiting_since"])
        broadcast.event_changed_on_commit(event.pk)
    return entry


def event_start_now(*, event_id: int, now: datetime.datetime | None = None) -> bool:
    """An operator starts a scheduled event now (the runner does at its next pass; an arena's
    length counts from now). Returns whether it was still to start."""
    now = now or timezone.now()
    with transaction.atomic():
        event = _locked(event_id)
        if event.status != Event.Status.SCHEDULED:
            return False
        event.starts_at = min(event.starts_at, now)
        event.save(update_fields=["starts_at"])
        transaction.on_commit(wake)
    return True


def event_cancel(*, event_id: int, reason: str = "") -> Event:
    """Cancel an event that has not finished: every fee held is refunded (its settlement)."""
    with transaction.atomic():
        event = _locked(event_id)
        if event.status in (Event.Status.FINISHED, Event.Status.CANCELLED):
            raise EventRefused(EventCode.OVER)
        cancel_locked(event, reason=reason, now=timezone.now())
    return event


def cancel_locked(event: Event, *, reason: str, now: datetime.datetime) -> None:
    """(inside the event lock) Refund every fee held, mark cancelled."""
    _settle(event, refund_all=True)
    event.status = Event.Status.CANCELLED
    event.cancel_reason = reason[:200]
    event.finished_at = now
    event.save(update_fields=["status", "cancel_reason", "finished_at"])
    _boards_left_open(event)
    broadcast.event_changed_on_commit(event.pk, everyone=True)


def event_finish(*, event_id: int, now: datetime.datetime | None = None) -> Event:
    """End the event: final ranks, prizes paid by band (or every fee refunded when nobody
    finished a hand). Exactly once: a second or concurrent call finds it finished."""
    with transaction.atomic():
        event = _locked(event_id)
        if event.status in (Event.Status.FINISHED, Event.Status.CANCELLED):
            return event
        finish_locked(event, now=now or timezone.now())
    return event


def finish_locked(event: Event, *, now: datetime.datetime) -> None:
    """(inside the event lock) Rank, settle, mark finished."""
    ranked = selectors.final_order(event=event)
    for rank, entry in enumerate(ranked, start=1):
        Entry.objects.filter(pk=entry.pk).update(rank=rank)
    _settle(event, ranked=ranked, refund_all=not ranked)
    event.status = Event.Status.FINISHED
    event.finished_at = now
    event.save(update_fields=["status", "finished_at"])
    _boards_left_open(event)
    broadcast.event_changed_on_commit(event.pk, everyone=True)


def board_hands_open(*, hands: Iterable[Hand]) -> None:
    """(inside the event lock, once its boards open) A duplicate board's hands are hidden while
    any table plays it, and the club keeps nothing of them meanwhile (outcomes, standings,
    ratings: ``club.services.outcomes.hand_finished_record`` skips a hidden hand); when the
    board opens (every table played it, or the event is over) the club records its finished
    hands, in the order they finished. So the rating sequence numbers them after every hand
    rated before the board opened, and ``rating_recompute``, which replays that sequence, gives
    the same."""
    finished = [h for h in hands if h.status == Hand.Status.FINISHED]
    for hand in sorted(finished, key=lambda h: (h.finished_at or timezone.now(), h.pk)):
        hand_finished_record(hand=hand)


def event_hand_finished(*, hand: Hand) -> None:
    """(games.table.hooks ``hand_finished``, in the hand's finishing transaction) A hand of an
    event ended: wake this process's runner after commit, so that the standings and the next
    table follow at once rather than at its next poll. The runner counts the hand itself,
    under the event's lock: taking that lock here, after the settlement locked the players'
    ledger rows, would reverse the one lock order (event, then the players' rows)."""
    if Game.objects.filter(hand_id=hand.pk).exists():
        transaction.on_commit(wake)


def _boards_left_open(event: Event) -> None:
    """The event is over: the boards some table had not finished open too."""
    board_hands_open(
        hands=Hand.objects.filter(event_game__event=event, event_game__board__scored=False)
    )


def _settle(event: Event, *, ranked: list[Entry] | None = None, refund_all: bool) -> None:
    """(inside the event lock) Refund every fee held, or pay the prizes and keep the cut."""
    if Settlement.objects.filter(event=event).exists():
        return
    entries = list(
        Entry.objects.filter(event=event, fee_paid__gt=0).select_related("user").order_by("pk")
    )
    fees = sum(e.fee_paid for e in entries)
    paid: dict[str, int] = {}
    refunded = 0
    if refund_all:
        for entry in entries:
            refunded += entry.fee_paid
            _refund(event, entry, entry.fee_paid)
        house = 0
    else:
        house = prizes.house_cut(fees, event.room.rake_percent)
        bands = prizes.parse_bands(event.prize_bands)
        amounts = prizes.payouts(pool=fees - house, bands=bands, ranked=len(ranked or []))
        if not amounts:
            house = fees  # no bands: the fees are the house's
        for entry, amount in zip(ranked or [], amounts, strict=False):
            if amount:
                beans_event_move(
                    user=entry.user,
                    delta=amount,
                    reason=Reason.EVENT_PRIZE,
                    event_ref=event.ledger_ref,
                )
                Entry.objects.filter(pk=entry.pk).update(prize=amount)
                paid[str(entry.user_id)] = amount
    Settlement.objects.create(event=event, fees=fees, house=house, refunded=refunded, prizes=paid)


# --------------------------------------------------------------------------- the runner's writes
# What the events' due work changes (competitions/runner.py), inside the event's lock.

# the fields an event takes from the schedule that plans it
_SHARED_FIELDS = [
    f
    for f in Schedule._meta.concrete_fields
    if f.name in {g.name for g in Event._meta.fields} and f.name not in {"id"}
]


def event_create_scheduled(*, plan: Schedule, starts_at: datetime.datetime) -> bool:
    """The schedule's event that starts at ``starts_at``; False when another process created it
    (the unique schedule and start refuse a second)."""
    try:
        with transaction.atomic():
            Event.objects.create(
                schedule=plan,
                starts_at=starts_at,
                **{f.name: getattr(plan, f.name) for f in _SHARED_FIELDS},
            )
    except IntegrityError:
        return False
    return True


def schedule_advance(*, plan: Schedule, until: datetime.datetime) -> None:
    """The schedule's events are created up to ``until``."""
    Schedule.objects.filter(pk=plan.pk).update(created_until=until)


def event_begin(*, event: Event, now: datetime.datetime) -> None:
    """The event runs from ``now``; an arena's entrants wait for a table from then."""
    event.status = Event.Status.RUNNING
    event.started_at = now
    event.save(update_fields=["status", "started_at"])
    if event.format == Format.ARENA:
        Entry.objects.filter(event=event, active=True, paused=False).update(waiting_since=now)


def games_void_unfinished(*, event: Event) -> None:
    """The event ends: the hands still in play count for nothing."""
    Game.objects.filter(event=event, finished_at__isnull=True).update(void=True)


def game_void(*, game: Game) -> None:
    """An arena hand that ended after the event's end does not count."""
    game.void = True
    game.save(update_fields=["void"])


def game_arena_count(*, game: Game, entries: dict[int, Entry], now: datetime.datetime) -> None:
    """An arena hand that ended in time counts: each active entrant's line (points, wins,
    streak), his last mates, a pause for one who ended it under 托管; and the game's results.
    Each entrant's own region (waiting, or paused) is pushed to him: his table page says so."""
    hand = game.hand
    state = hand_state(hand)
    results = []
    counted = []
    for seat, user_id in enumerate(game.players):
        won = seat_won(hand, seat)
        results.append(won)
        entry = entries.get(user_id) if user_id is not None else None
        if entry is None:
            continue
        if entry.active:
            line = selectors.line_of(entry).after(won)
            entry.points, entry.wins, entry.played = line.points, line.wins, line.played
            entry.streak = line.streak
        entry.last_mates = [p for p in game.players if p is not None and p != user_id]
        # 托管 at the end of his hand (he left or vanished): paused until he comes back
        if state.autoplay[seat]:
            entry.paused = True
        entry.waiting_since = None if entry.paused or not entry.active else now
        entry.save(
            update_fields=[
                "points",
                "wins",
                "played",
                "streak",
                "last_mates",
                "paused",
                "waiting_since",
            ]
        )
        counted.append(user_id)
    game.results = results
    game.finished_at = hand.finished_at or now
    game.counted = True
    game.save(update_fields=["results", "finished_at", "counted"])
    broadcast.player_moved_on_commit(game.event_id, counted)


def game_deal(
    *,
    event: Event,
    players: tuple[int | None, ...],
    now: datetime.datetime,
    board: Board | None = None,
    group: int = 0,
) -> Game | None:
    """A table of the event dealt to ``players`` (None: a bot), ``board``'s deal for a
    duplicate table; None when it could not be dealt (a player sits elsewhere meanwhile)."""
    users = User.objects.in_bulk([p for p in players if p is not None])
    try:
        with transaction.atomic():
            hand = table_deal_for(
                room=event.room,
                players=[users[p] if p is not None else None for p in players],
                seed=board.seed if board is not None else None,
                bot_level=BotLevel(board.bot_level) if board and board.bot_level else None,
            )
            game = Game.objects.create(
                event=event,
                hand=hand,
                table_id=hand.table_id,
                board=board,
                round=board.round if board is not None else 0,
                group=group,
                players=list(players),
                created_at=now,
            )
    except (ActionRejected, IntegrityError) as error:
        logger.info("event %s: a table could not be dealt: %s", event.pk, error)
        return None
    Entry.objects.filter(event=event, user_id__in=list(users)).update(waiting_since=None)
    broadcast.player_moved_on_commit(event.pk, list(users))
    return game


def event_round_begin(
    *, event: Event, number: int, sitting_out: Iterable[int], sat_out: dict[int, int]
) -> list[Board]:
    """Round ``number`` begins: who sits it out has it counted (``sat_out``: the rounds each
    entrant sat out so far), and its boards are drawn (their commitments public from now)."""
    for user_id in sitting_out:
        Entry.objects.filter(event=event, user_id=user_id).update(sat_out=sat_out[user_id] + 1)
    boards = []
    for n in range(1, event.boards_per_round + 1):
        seed = new_seed()
        boards.append(
            Board.objects.create(
                event=event,
                round=number,
                number=n,
                seed=seed,
                commitment=seed_commitment(seed),
                bot_level=event.room.bot_level,
            )
        )
    event.round = number
    event.next_round_at = None
    event.save(update_fields=["round", "next_round_at"])
    return boards


def game_duplicate_record(*, game: Game, now: datetime.datetime) -> None:
    """A duplicate hand ended: each seat's units are its results."""
    game.results = seat_units(game.hand, len(game.players))
    game.finished_at = game.hand.finished_at or now
    game.save(update_fields=["results", "finished_at"])


def event_break_begin(*, event: Event, now: datetime.datetime) -> None:
    """Every board of the round is scored: the next round begins after the event's break."""
    event.next_round_at = now + datetime.timedelta(seconds=event.break_seconds)
    event.save(update_fields=["next_round_at"])


def board_score(*, event: Event, board: Board, games: list[Game]) -> None:
    """Every table played the board: matchpoints per seat-role, added to the entrants."""
    results = {g.group: [Fraction(u) for u in g.results] for g in games}
    points = duplicate.board_matchpoints(results)
    top = len(games) - 1
    entries = {e.user_id: e for e in Entry.objects.filter(event=event, active=True)}
    for game in games:
        for seat, user_id in enumerate(game.players):
            entry = entries.get(user_id) if user_id is not None else None
            if entry is None:
                continue
            entry.matchpoints = str(Fraction(entry.matchpoints) + points[(game.group, seat)])
            entry.matchpoints_top = str(Fraction(entry.matchpoints_top) + top)
            entry.played += 1
            entry.save(update_fields=["matchpoints", "matchpoints_top", "played"])
        Game.objects.filter(pk=game.pk).update(counted=True)
    board.scored = True
    board.save(update_fields=["scored"])
    board_hands_open(hands=[g.hand for g in games])
