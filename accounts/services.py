"""Writes to the bean ledger (docs/rules.md §7). Every function is one transaction that locks the
players' rows in primary-key order, appends entries and updates the cached balances.

Beans enter the club through grants (sign-up, daily relief) and operator adjustments, which
are minted: they have no house counter-entry. The house account's rows record only what the
house takes from hands (house take, rake) and what it pays or keeps for bots, so the house
balance is the club's total intake.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from fractions import Fraction

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import BeanEntry, HandSettlement, User
from games.engine.beans import BeanSettlement, RoomStakes, round_half_up, settle_beans

Reason = BeanEntry.Reason


class BeansError(ValueError):
    """A ledger operation that the rules refuse."""


class InsufficientBeans(BeansError):
    pass


class ReliefNotAvailable(BeansError):
    pass


class ReliefAlreadyClaimed(ReliefNotAvailable):
    pass


def _lock_users(user_ids: Sequence[int]) -> dict[int, User]:
    """Lock the rows in primary-key order (one order everywhere, so no deadlocks)."""
    locked = User.objects.select_for_update().filter(pk__in=set(user_ids)).order_by("pk")
    return {user.pk: user for user in locked}


def _post(
    *,
    user: User,
    delta: int,
    reason: str,
    note: str = "",
    actor: User | None = None,
    relief_day: datetime.date | None = None,
    event_ref: str | None = None,
) -> BeanEntry:
    """Append one entry for a locked user and move his cached balance."""
    if user.is_bot:
        raise BeansError("bots never hold beans")
    if delta == 0:
        raise BeansError("a ledger entry moves at least one bean")
    balance = user.beans + delta
    if balance < 0:
        raise InsufficientBeans(f"{user.username} has {user.beans} beans, cannot take {-delta}")
    entry = BeanEntry.objects.create(
        user=user,
        delta=delta,
        balance_after=balance,
        reason=reason,
        note=note,
        actor=actor,
        relief_day=relief_day,
        event_ref=event_ref,
    )
    User.objects.filter(pk=user.pk).update(beans=balance)
    user.beans = balance
    return entry


@transaction.atomic
def beans_grant(
    *, user: User, amount: int, reason: str = Reason.SIGNUP_GRANT, note: str = ""
) -> BeanEntry:
    """Give a player new beans (the sign-up grant by default)."""
    if amount <= 0:
        raise BeansError("a grant is a positive amount")
    locked = _lock_users([user.pk])[user.pk]
    entry = _post(user=locked, delta=amount, reason=reason, note=note)
    user.beans = locked.beans
    return entry


def user_signed_up(*, user: User) -> None:
    """What a new account gets: the sign-up grant (settings.DDZ_SIGNUP_GRANT; none for a bot or
    when the grant is 0). Called by the sign-up form's adapter once the user is saved."""
    if settings.DDZ_SIGNUP_GRANT > 0 and not user.is_bot:
        beans_grant(user=user, amount=settings.DDZ_SIGNUP_GRANT)


@transaction.atomic
def beans_adjust(*, user: User, delta: int, reason: str, actor: User) -> BeanEntry:
    """An operator's correction, up or down; the reason text is required and kept."""
    if not reason or not reason.strip():
        raise BeansError("an operator adjustment needs a reason")
    locked = _lock_users([user.pk])[user.pk]
    entry = _post(
        user=locked,
        delta=delta,
        reason=Reason.OPERATOR_ADJUSTMENT,
        note=reason.strip(),
        actor=actor,
    )
    user.beans = locked.beans
    return entry


def relief_available(*, user: User) -> bool:
    """Whether the player is below the relief floor (does not check today's claim)."""
    return not user.is_bot and user.beans < settings.DDZ_RELIEF_FLOOR


@transaction.atomic
def beans_claim_relief(*, user: User, today: datetime.date | None = None) -> BeanEntry:
    """Daily relief: a player below DDZ_RELIEF_FLOOR gets DDZ_RELIEF_GRANT once a day."""
    day = today or timezone.localdate()
    locked = _lock_users([user.pk])[user.pk]
    if not relief_available(user=locked):
        raise ReliefNotAvailable("relief is only for players below the floor")
    if BeanEntry.objects.filter(user=locked, reason=Reason.DAILY_RELIEF, relief_day=day).exists():
        raise ReliefAlreadyClaimed("relief already claimed today")
    try:
        with transaction.atomic():
            entry = _post(
                user=locked,
                delta=settings.DDZ_RELIEF_GRANT,
                reason=Reason.DAILY_RELIEF,
                relief_day=day,
            )
    except IntegrityError as error:  # a concurrent claim won the unique constraint
        raise ReliefAlreadyClaimed("relief already claimed today") from error
    user.beans = locked.beans
    return entry


# the house's side of an event movement: it holds the fees until the event is settled
_EVENT_REASONS = (Reason.EVENT_FEE, Reason.EVENT_REFUND, Reason.EVENT_PRIZE)


def beans_event_move(
    *, user: User, delta: int, reason: str, event_ref: str, note: str = ""
) -> BeanEntry:
    """Move beans between a player and the house for an event: his fee (negative), its refund
    or a prize (positive). One player row and its house counter-row under ``event_ref``, so an
    event's rows always sum to zero; the house's rows of an event sum to what it keeps (its
    cut once the event is settled). Must run inside the caller's transaction (it locks the
    player's row)."""
    if reason not in _EVENT_REASONS:
        raise BeansError(f"{reason} is not an event movement")
    if (reason == Reason.EVENT_FEE) != (delta < 0):
        raise BeansError("a fee takes beans, a refund or a prize gives them")
    locked = _lock_users([user.pk])[user.pk]
    entry = _post(user=locked, delta=delta, reason=reason, note=note, event_ref=event_ref)
    BeanEntry.objects.create(user=None, delta=-delta, reason=reason, event_ref=event_ref, note=note)
    user.beans = locked.beans
    return entry


def _default_score(unit: Fraction) -> int:
    return round_half_up(unit)


def beans_settle_hand(
    *,
    hand_ref: str | int,
    units: Sequence[Fraction | int],
    stakes: RoomStakes,
    seats: Sequence[User | None],
    tie_order: Sequence[int],
    scores: Sequence[int] | None = None,
) -> HandSettlement:
    """Settle one finished hand exactly once (docs/rules.md §7) and return its settlement row.

    ``seats`` holds the seated users, ``None`` (or a user with ``is_bot``) for a bot.
    ``scores`` are the per-seat score moves; by default each seat's units rounded half-up
    (callers pass X for ``qq5``). Calling again with the same ``hand_ref``, even concurrently,
    settles nothing more and returns the first settlement.
    """
    hand_ref = str(hand_ref)
    if len(seats) != len(units):
        raise BeansError("one seat per unit")
    humans = [user for user in seats if user is not None and not user.is_bot]
    if len({user.pk for user in humans}) != len(humans):
        raise BeansError("a player can hold only one seat")
    fractions = [Fraction(u) for u in units]
    score_moves = list(scores) if scores is not None else [_default_score(u) for u in fractions]
    with transaction.atomic():
        locked = _lock_users([user.pk for user in humans])
        # Checked after the locks: a concurrent settlement of the same hand has committed.
        existing = HandSettlement.objects.filter(hand_ref=hand_ref).first()
        if existing is not None:
            return existing
        players = [
            locked[user.pk] if user is not None and not user.is_bot else None for user in seats
        ]
        result = settle_beans(
            units=fractions,
            stakes=stakes,
            balances=[p.beans if p is not None else None for p in players],
            tie_order=tie_order,
        )
        try:
            with transaction.atomic():
                settlement = HandSettlement.objects.create(
                    hand_ref=hand_ref,
                    house=result.house,
                    detail={
                        "units": [str(u) for u in fractions],
                        "stakes": {
                            "base_score": stakes.base_score,
                            "coefficient": stakes.coefficient,
                            "house_take": stakes.house_take,
                            "rake_percent": stakes.rake_percent,
                        },
                        "players": [p.pk if p is not None else None for p in players],
                        "deltas": list(result.deltas),
                    },
                )
        except IntegrityError:
            return HandSettlement.objects.get(hand_ref=hand_ref)
        _write_hand_entries(hand_ref=hand_ref, players=players, result=result)
        for seat, player in enumerate(players):
            if player is None:
                continue
            player.beans += result.deltas[seat]
            player.score += score_moves[seat]
            User.objects.filter(pk=player.pk).update(beans=player.beans, score=player.score)
        return settlement


def _write_hand_entries(
    *, hand_ref: str, players: Sequence[User | None], result: BeanSettlement
) -> None:
    now = timezone.now()
    entries: list[BeanEntry] = []
    human_gross = 0
    for seat, player in enumerate(players):
        if player is None:
            continue
        balance = player.beans
        parts = (
            (Reason.HAND_SETTLEMENT, result.gross[seat]),
            (Reason.HOUSE_TAKE, -result.house_takes[seat]),
            (Reason.RAKE, -result.rakes[seat]),
        )
        human_gross += result.gross[seat]
        for reason, delta in parts:
            if delta == 0:
                continue
            balance += delta
            entries.append(
                BeanEntry(
                    user=player,
                    delta=delta,
                    balance_after=balance,
                    reason=reason,
                    hand_ref=hand_ref,
                    created_at=now,
                )
            )
    house_parts = (
        (Reason.HOUSE_TAKE, sum(result.house_takes)),
        (Reason.RAKE, sum(result.rakes)),
        (Reason.HAND_SETTLEMENT, -human_gross),  # the bots' side of the hand
    )
    for reason, delta in house_parts:
        if delta:
            entries.append(
                BeanEntry(user=None, delta=delta, reason=reason, hand_ref=hand_ref, created_at=now)
            )
    BeanEntry.objects.bulk_create(entries)
