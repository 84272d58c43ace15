"""Seasons (issue #27): checked and saved by the staff, begun with their soft reset when their
start has come, and the standings a hand moves."""

from __future__ import annotations

import datetime
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import formats, timezone

from accounts.models import User
from accounts.selectors import title_for, title_ladder
from club.models import HandOutcome, Season, SeasonReset, SeasonStanding
from club.selectors.seasons import season_overlapping, seasons_due


def season_score_reset(score: int, *, base: int, carry_percent: int) -> int:
    """The soft reset: a score above the ladder's base keeps ``carry_percent`` of its height
    above it (rounded down); a score at or below the base starts the season at the base."""
    if score <= base:
        return base
    return base + (score - base) * carry_percent // 100


def _ladder_base() -> int:
    ladder = title_ladder()
    return ladder[0].threshold if ladder else 0


def season_validate(
    *, season_id: int | None, starts_at: datetime.datetime, ends_at: datetime.datetime
) -> None:
    """Refuse (ValidationError, translated) a season that ends before it starts, is over
    already or overlaps another; and a change to a season that is over (it stays as it was)
    or to the start of one that has begun (its soft reset ran then)."""
    from django.utils.translation import gettext as _

    stored = Season.objects.filter(pk=season_id).first() if season_id else None
    if stored is not None and stored.ends_at <= timezone.now():
        raise ValidationError(_("This season is over: it stays as it was."))
    if stored is not None and stored.begun_at is not None and starts_at != stored.starts_at:
        raise ValidationError({"starts_at": _("This season has begun: its start stays.")})
    if ends_at <= starts_at:
        raise ValidationError({"ends_at": _("A season ends after it starts.")})
    if ends_at <= timezone.now():
        raise ValidationError({"ends_at": _("This end has passed already.")})
    other = season_overlapping(starts_at=starts_at, ends_at=ends_at, exclude_id=season_id)
    if other is not None:
        raise ValidationError(
            _("Seasons cannot overlap: %(name)s runs from %(start)s to %(end)s.")
            % {
                "name": other.name,
                "start": formats.localize(timezone.localtime(other.starts_at)),
                "end": formats.localize(timezone.localtime(other.ends_at)),
            }
        )


def season_save(*, season: Season) -> Season:
    """Open a season or change one (name, dates) as an operator does in the admin; it begins
    as soon as its start has come (at once when it has: after this transaction commits)."""
    season_validate(season_id=season.pk, starts_at=season.starts_at, ends_at=season.ends_at)
    season.save()
    transaction.on_commit(seasons_begin_due)
    return season


def season_open(*, name: str, starts_at: datetime.datetime, ends_at: datetime.datetime) -> Season:
    return season_save(season=Season(name=name, starts_at=starts_at, ends_at=ends_at))


def seasons_begin_due(*, now: datetime.datetime | None = None) -> int:
    """Begin every season whose start has come (the deadline runner calls this on each of
    its rounds; so do the admin and ``manage.py season_begin``); returns how many began."""
    return sum(season_begin(season_id=pk, now=now) for pk in seasons_due(now=now))


@transaction.atomic
def season_begin(*, season_id: int, now: datetime.datetime | None = None) -> bool:
    """The season's soft reset, once (False: it had begun). Every player's row is locked, in
    primary-key order like a hand's settlement, so a hand settles either wholly before the
    reset (its score is then reset with the rest, and it counts in no season) or wholly
    after it (in this season). Each changed score is kept as a SeasonReset row, and every
    player gets his standing of the season."""
    season = Season.objects.select_for_update().filter(pk=season_id).first()
    if season is None or season.begun_at is not None:
        return False
    now = now or timezone.now()
    base = _ladder_base()
    carry = settings.DDZ_SEASON_CARRY_PERCENT
    players = list(User.objects.select_for_update().filter(is_bot=False).order_by("pk"))
    resets, standings, moved = [], [], []
    for player in players:
        score = season_score_reset(player.score, base=base, carry_percent=carry)
        if score != player.score:
            resets.append(
                SeasonReset(
                    season=season,
                    user=player,
                    score_before=player.score,
                    score_after=score,
                    created_at=now,
                )
            )
            player.score = score
            moved.append(player)
        standings.append(
            SeasonStanding(
                season=season,
                user=player,
                score_start=score,
                score=score,
                score_peak=score,
                peak_title=title_for(score),
            )
        )
    SeasonReset.objects.bulk_create(resets)
    User.objects.bulk_update(moved, ["score"], batch_size=500)
    SeasonStanding.objects.bulk_create(standings, batch_size=500)
    season.begun_at = now
    season.save(update_fields=["begun_at"])
    return True


def season_standings_record(*, season: Season, hand: Any, outcomes: list[HandOutcome]) -> None:
    """Move the season standings of a hand's players: their score after it (read in its
    transaction, where the settlement holds their rows), their hands, their highest point."""
    after = (hand.result or {}).get("score_after") or []
    scores = {
        o.user_id: after[o.seat] if o.seat < len(after) and after[o.seat] is not None else None
        for o in outcomes
    }
    unknown = [u for u, score in scores.items() if score is None]
    if unknown:
        scores.update(User.objects.filter(pk__in=unknown).values_list("pk", "score"))
    found = {
        s.user_id: s for s in SeasonStanding.objects.filter(season=season, user_id__in=list(scores))
    }
    new, moved = [], []
    for outcome in outcomes:
        score = scores[outcome.user_id]
        assert score is not None  # every player's score was read above
        standing = found.get(outcome.user_id)
        if standing is None:  # joined the club since the season began
            start = score - outcome.score
            standing = SeasonStanding(
                season=season,
                user_id=outcome.user_id,
                score_start=start,
                score=start,
                score_peak=start,
                peak_title=title_for(start),
            )
            new.append(standing)
        else:
            moved.append(standing)
        standing.score = score
        standing.hands += 1
        if score > standing.score_peak:
            standing.score_peak = score
            standing.peak_title = title_for(score)
    SeasonStanding.objects.bulk_create(new)
    SeasonStanding.objects.bulk_update(moved, ["score", "hands", "score_peak", "peak_title"])
