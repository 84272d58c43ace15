"""Seasons: the one under way, those due to begin, those begun, and overlaps."""

from __future__ import annotations

import datetime

from django.utils import timezone

from club.models import Season


def season_running(*, now: datetime.datetime | None = None) -> Season | None:
    """The season under way: begun (its soft reset ran) and not over. A hand finishing now
    counts in it."""
    now = now or timezone.now()
    return (
        Season.objects.filter(begun_at__isnull=False, ends_at__gt=now)
        .order_by("-starts_at")
        .first()
    )


def seasons_due(*, now: datetime.datetime | None = None) -> list[int]:
    """Ids of the seasons whose start has come and whose soft reset has not run, oldest
    first (a season whose end has passed as well never begins)."""
    now = now or timezone.now()
    return list(
        Season.objects.filter(begun_at__isnull=True, starts_at__lte=now, ends_at__gt=now)
        .order_by("starts_at")
        .values_list("pk", flat=True)
    )


def seasons_begun() -> list[Season]:
    """The seasons the leaderboard offers: begun ones, newest first."""
    return list(Season.objects.filter(begun_at__isnull=False).order_by("-starts_at"))


def season_overlapping(
    *, starts_at: datetime.datetime, ends_at: datetime.datetime, exclude_id: int | None = None
) -> Season | None:
    qs = Season.objects.filter(starts_at__lt=ends_at, ends_at__gt=starts_at)
    if exclude_id is not None:
        qs = qs.exclude(pk=exclude_id)
    return qs.order_by("starts_at").first()
