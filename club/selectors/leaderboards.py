"""The leaderboards by score, beans won and a season's title ladder (humans only); the rating
boards are club/selectors/ratings.py's."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Sum
from django.utils import timezone

from accounts.models import User
from accounts.selectors import title_for
from club.models import HandOutcome, Season, SeasonStanding


@dataclass(frozen=True)
class BoardRow:
    rank: int
    user_id: int
    username: str
    value: int
    hands: int
    title: Any = None
    provisional: bool = False  # a rating board's row whose rating is still provisional
    badge: Any = None  # a season board's row: the highest title of the season


def _humans() -> Any:
    return User.objects.filter(is_bot=False, is_active=True)


def leaderboard_score(*, limit: int = 50) -> list[BoardRow]:
    """Everyone by score (the title ladder's measure), humans only."""
    users = (
        _humans()
        .annotate(hands=Count("hand_outcomes"))
        .order_by("-score", "username")
        .values("pk", "username", "score", "hands")[:limit]
    )
    return [
        BoardRow(i + 1, u["pk"], u["username"], u["score"], u["hands"], title_for(u["score"]))
        for i, u in enumerate(users)
    ]


def leaderboard_beans(
    *,
    days: int | None,
    variant: str | None = None,
    limit: int = 50,
    metric: str = "beans",
    season: Season | None = None,
) -> list[BoardRow]:
    """Beans (or score) won over the last ``days`` days (None: ever) or in ``season``, per
    variant or overall, from the hand outcomes (the ledger's settlement of each hand); humans
    only."""
    qs = HandOutcome.objects.filter(user__is_bot=False, user__is_active=True)
    if season is not None:
        qs = qs.filter(season=season)
    elif days is not None:
        qs = qs.filter(finished_at__gte=timezone.now() - datetime.timedelta(days=days))
    if variant:
        qs = qs.filter(variant_key=variant)
    column = "score" if metric == "score" else "beans"
    rows = (
        qs.values("user_id", "user__username", "user__score")
        .annotate(total=Sum(column), hands=Count("id"))
        .order_by("-total", "user__username")[:limit]
    )
    return [
        BoardRow(
            i + 1,
            r["user_id"],
            r["user__username"],
            int(r["total"] or 0),
            r["hands"],
            title_for(r["user__score"]),
        )
        for i, r in enumerate(rows)
    ]


def leaderboard_season_score(*, season: Season, limit: int = 50) -> list[BoardRow]:
    """The season's title ladder: players who played in it by their score (where the soft
    reset put them, plus the season's hands), with their highest title of the season."""
    rows = (
        SeasonStanding.objects.filter(
            season=season, hands__gt=0, user__is_bot=False, user__is_active=True
        )
        .select_related("user", "peak_title")
        .order_by("-score", "user__username")[:limit]
    )
    return [
        BoardRow(
            i + 1,
            row.user_id,
            row.user.username,
            row.score,
            row.hands,
            title_for(row.score),
            badge=row.peak_title,
        )
        for i, row in enumerate(rows)
    ]
