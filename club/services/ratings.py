"""Skill ratings (issue #27): a finished hand rated in its transaction, and a variant's ratings
recomputed from its hands."""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from club import skill
from club.models import RatedHand, Rating, RatingChange
from club.selectors.ratings import rated_games, seat_ratings_forget
from club.skill import Game, Shape, Skill
from games.api import Hand, hooks

# A rating is a player's (user id) or a role baseline's (its shape key, "1v2") in one variant.
RatingKey = int | str


def _rating_start(key: RatingKey) -> Skill:
    return Shape.from_key(key).baseline_start() if isinstance(key, str) else skill.default_skill()


def _rating_step(game: Game, skills: dict[RatingKey, Skill]) -> list[tuple[RatingKey, bool, Skill]]:
    """Rate ``game`` from ``skills`` (missing ones at their start), store the new skills in
    it and return (key, on the landlord side, skill before) of each rating it moved. The live
    update and the recompute both go through here, so they do the same arithmetic."""
    baseline_key = game.shape.key
    players = {p: skills.get(p) or _rating_start(p) for p in game.players}
    baseline = skills.get(baseline_key) or _rating_start(baseline_key)
    after, baseline_after = skill.rate(game, players=players, baseline=baseline)
    moved: list[tuple[RatingKey, bool, Skill]] = [
        (p, p in game.landlords, players[p]) for p in game.players
    ]
    moved.append((baseline_key, True, baseline))
    skills.update(after.items())
    skills[baseline_key] = baseline_after
    return moved


def _rating_filter(variant_key: str, keys: Iterable[RatingKey]) -> Q:
    keys = list(keys)
    users = [k for k in keys if isinstance(k, int)]
    shapes = [k for k in keys if isinstance(k, str)]
    return Q(variant_key=variant_key) & (
        Q(user_id__in=users) | Q(user__isnull=True, baseline__in=shapes)
    )


def _rating_key(row: Rating) -> RatingKey:
    return row.user_id if row.user_id is not None else row.baseline


def _ratings_create_missing(*, variant_key: str, keys: Iterable[RatingKey]) -> None:
    keys = set(keys)
    found = {_rating_key(r) for r in Rating.objects.filter(_rating_filter(variant_key, keys))}
    missing = []
    for key in keys - found:
        start = _rating_start(key)
        missing.append(
            Rating(
                variant_key=variant_key,
                user_id=key if isinstance(key, int) else None,
                baseline=key if isinstance(key, str) else "",
                mu=start.mu,
                sigma=start.sigma,
                ordinal=start.ordinal,
            )
        )
    # a concurrent hand may create the same row first: its row stands
    Rating.objects.bulk_create(missing, ignore_conflicts=True)


def _ratings_locked(
    *, variant_key: str, keys: Iterable[RatingKey] | None
) -> dict[RatingKey, Rating]:
    """The ratings of ``keys`` (None: all of the variant's) in the variant, locked in
    primary-key order (the one order everywhere, so two hands never deadlock)."""
    qs = Rating.objects.filter(variant_key=variant_key)
    if keys is not None:
        qs = qs.filter(_rating_filter(variant_key, keys))
    return {_rating_key(r): r for r in qs.select_for_update(no_key=True).order_by("pk")}


def _rating_set(row: Rating, rated: Skill, *, hands: int, last: datetime.datetime | None) -> bool:
    """Give ``row`` these values; returns whether any changed."""
    values = {
        "mu": rated.mu,
        "sigma": rated.sigma,
        "ordinal": rated.ordinal,
        "hands": hands,
        "last_hand_at": last,
    }
    changed = any(getattr(row, name) != value for name, value in values.items())
    for name, value in values.items():
        setattr(row, name, value)
    return changed


_RATING_FIELDS = ["mu", "sigma", "ordinal", "hands", "last_hand_at"]


def rating_hand_record(*, hand: Any) -> RatedHand | None:
    """Rate a finished hand (None: it is unrated, or rated already). Runs in the hand's
    finishing transaction: its players' and role baseline's ratings are locked in primary-key
    order, then the hand takes the next number of the rated hands' sequence, so a hand that
    shares a rating with another is numbered after it exactly when it was rated after it."""
    game = rated_games(hands=[hand])[hand.pk]
    if game is None:
        return None
    keys: list[RatingKey] = [*game.players, game.shape.key]
    with transaction.atomic():
        _ratings_create_missing(variant_key=hand.variant_key, keys=keys)
        rows = _ratings_locked(variant_key=hand.variant_key, keys=keys)
        if RatedHand.objects.filter(hand_id=hand.pk).exists():
            return None
        rated = RatedHand.objects.create(
            hand_id=hand.pk,
            variant_key=hand.variant_key,
            finished_at=hand.finished_at or timezone.now(),
        )
        skills = {key: Skill(row.mu, row.sigma) for key, row in rows.items()}
        changes = []
        for key, landlord_side, before in _rating_step(game, skills):
            row = rows[key]
            _rating_set(row, skills[key], hands=row.hands + 1, last=rated.finished_at)
            changes.append(_rating_change(rated.pk, row, landlord_side, before, skills[key]))
        RatingChange.objects.bulk_create(changes)
        Rating.objects.bulk_update(list(rows.values()), _RATING_FIELDS)
    # now, not at the commit: the hand's own push is sent at the commit, before this app's
    # callbacks, and shows the new numbers
    seat_ratings_forget(user_ids=game.players, variant_key=hand.variant_key)
    return rated


def _rating_change(
    rated_hand_id: int, row: Rating, landlord_side: bool, before: Skill, after: Skill
) -> RatingChange:
    return RatingChange(
        rated_hand_id=rated_hand_id,
        rating=row,
        landlord_side=landlord_side,
        mu_before=before.mu,
        sigma_before=before.sigma,
        mu_after=after.mu,
        sigma_after=after.sigma,
    )


@dataclass(frozen=True)
class RecomputeReport:
    variant_key: str
    rated_hands: int  # hands the replay rated
    appended: int  # finished hands added to the sequence (played before ratings existed)
    ratings_changed: int  # rating rows whose values the replay changed
    changes_rewritten: int  # rating change rows written, rewritten or removed


def _hands_for_rating(hand_ids: Sequence[int]) -> list[Any]:
    found = Hand.objects.filter(pk__in=hand_ids).only("id", "status", "result", "variant_key")
    by_id = {h.pk: h for h in found}
    return [by_id[h] for h in hand_ids if h in by_id]


def _rated_hands_append(*, variant_key: str) -> int:
    """Number the rateable finished hands of the variant that have no place in the sequence
    yet (played before ratings existed), in the order they finished; not a hidden one (its
    place is taken when it opens, as the live update does)."""
    waiting = list(
        Hand.objects.filter(variant_key=variant_key, status="finished", rated__isnull=True)
        .order_by("finished_at", "pk")
        .values_list("pk", "finished_at")
    )
    hidden = hooks.hidden_hands(hand_ids=[pk for pk, _ in waiting], user=None)
    waiting = [(pk, finished) for pk, finished in waiting if pk not in hidden]
    games = rated_games(hands=_hands_for_rating([pk for pk, _ in waiting]))
    rows = [
        RatedHand(hand_id=pk, variant_key=variant_key, finished_at=finished or timezone.now())
        for pk, finished in waiting
        if games.get(pk) is not None
    ]
    RatedHand.objects.bulk_create(rows)
    return len(rows)


@transaction.atomic
def ratings_recompute(*, variant_key: str) -> RecomputeReport:
    """Recompute the variant's ratings from the hand history: replay every rated hand in
    sequence from the starting ratings, and write what differs from the stored ratings and
    changes (nothing, when they came from the live updates: the same order and arithmetic).
    Idempotent. Locks all the variant's ratings meanwhile, so live hands of the variant wait
    and then carry on from the recomputed values."""
    _ratings_locked(variant_key=variant_key, keys=None)
    appended = _rated_hands_append(variant_key=variant_key)
    sequence = list(
        RatedHand.objects.filter(variant_key=variant_key)
        .order_by("pk")
        .values_list("pk", "hand_id", "finished_at")
    )
    games = rated_games(hands=_hands_for_rating([h for _, h, _ in sequence]))
    skills: dict[RatingKey, Skill] = {}
    hands: dict[RatingKey, int] = {}
    last: dict[RatingKey, datetime.datetime] = {}
    moves: list[tuple[int, RatingKey, bool, Skill, Skill]] = []
    rated = 0
    for rated_id, hand_id, finished in sequence:
        game = games.get(hand_id)
        if game is None:  # no longer rateable (a player since marked as a bot): skipped
            continue
        rated += 1
        for key, landlord_side, before in _rating_step(game, skills):
            hands[key] = hands.get(key, 0) + 1
            last[key] = finished
            moves.append((rated_id, key, landlord_side, before, skills[key]))
    _ratings_create_missing(variant_key=variant_key, keys=skills)
    rows = _ratings_locked(variant_key=variant_key, keys=None)
    changed = [
        row
        for key, row in rows.items()
        if _rating_set(
            row,
            skills.get(key) or _rating_start(key),
            hands=hands.get(key, 0),
            last=last.get(key),
        )
    ]
    Rating.objects.bulk_update(changed, _RATING_FIELDS)
    rewritten = _rating_changes_sync(
        variant_key=variant_key,
        wanted={
            (rated_id, rows[key].pk): _rating_change(rated_id, rows[key], side, before, after)
            for rated_id, key, side, before, after in moves
        },
    )
    seat_ratings_forget(user_ids=None, variant_key=variant_key)
    return RecomputeReport(variant_key, rated, appended, len(changed), rewritten)


_CHANGE_FIELDS = ["landlord_side", "mu_before", "sigma_before", "mu_after", "sigma_after"]


def _rating_changes_sync(*, variant_key: str, wanted: dict[tuple[int, int], RatingChange]) -> int:
    """Make the variant's rating change rows ``wanted``; returns how many rows it wrote."""
    stored = {
        (c.rated_hand_id, c.rating_id): c
        for c in RatingChange.objects.filter(rated_hand__variant_key=variant_key)
    }
    extra = [c.pk for k, c in stored.items() if k not in wanted]
    RatingChange.objects.filter(pk__in=extra).delete()
    missing = [c for k, c in wanted.items() if k not in stored]
    RatingChange.objects.bulk_create(missing)
    differing = []
    for k, change in wanted.items():
        old = stored.get(k)
        if old is not None and any(getattr(old, f) != getattr(change, f) for f in _CHANGE_FIELDS):
            for f in _CHANGE_FIELDS:
                setattr(old, f, getattr(change, f))
            differing.append(old)
    RatingChange.objects.bulk_update(differing, _CHANGE_FIELDS)
    return len(extra) + len(missing) + len(differing)
