"""A player's public profile: his hands' statistics, recent hands, suspension, last activity,
season badges and standing."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Max, Q
from django.utils import timezone

from accounts.models import User
from club.models import HandOutcome, SeasonStanding, Suspension
from club.selectors.seasons import season_running


@dataclass
class ProfileStats:
    hands: int = 0
    won: int = 0
    springs: int = 0
    biggest_win: HandOutcome | None = None
    by_variant: list[dict[str, Any]] = field(default_factory=list)
    by_side: list[dict[str, Any]] = field(default_factory=list)


def _rate(won: int, hands: int) -> int:
    return round(won * 100 / hands) if hands else 0


def profile_stats(*, user: User) -> ProfileStats:
    qs = HandOutcome.objects.filter(user=user)
    won = Count("id", filter=Q(won=True))
    totals = qs.aggregate(hands=Count("id"), won=won, springs=Count("id", filter=Q(spring=True)))
    stats = ProfileStats(hands=totals["hands"], won=totals["won"], springs=totals["springs"])
    stats.biggest_win = qs.filter(beans__gt=0).order_by("-beans", "-finished_at").first()
    for row in (
        qs.values("variant_key", "side")
        .annotate(hands=Count("id"), won=won)
        .order_by("variant_key", "side")
    ):
        row["rate"] = _rate(row["won"], row["hands"])
        stats.by_variant.append(row)
    for row in qs.values("side").annotate(hands=Count("id"), won=won).order_by("side"):
        row["rate"] = _rate(row["won"], row["hands"])
        stats.by_side.append(row)
    return stats


def profile_recent_hands(*, user: User, limit: int = 20) -> list[HandOutcome]:
    """His latest finished hands (public: their records are public once over)."""
    return list(
        HandOutcome.objects.filter(user=user, hand__status="finished")
        .select_related("hand", "hand__table__room")
        .order_by("-finished_at", "-id")[:limit]
    )


def user_suspension(*, user: User) -> Suspension | None:
    return Suspension.objects.filter(user=user).first()


def latest_activity(*, user: User) -> datetime.datetime | None:
    return HandOutcome.objects.filter(user=user).aggregate(m=Max("finished_at"))["m"]


def profile_badges(*, user: User, now: datetime.datetime | None = None) -> list[SeasonStanding]:
    """His badges: the highest title of each past season he played in, newest first."""
    now = now or timezone.now()
    return list(
        SeasonStanding.objects.filter(user=user, hands__gt=0, season__ends_at__lte=now)
        .select_related("season", "peak_title")
        .order_by("-season__starts_at")
    )


def profile_season(*, user: User) -> SeasonStanding | None:
    """His standing in the season under way (None: no season, or he has no row in it)."""
    season = season_running()
    if season is None:
        return None
    return (
        SeasonStanding.objects.filter(season=season, user=user)
        .select_related("season", "peak_title")
        .first()
    )
