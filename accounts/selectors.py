"""Reads of players, the ledger and the title ladder."""

from __future__ import annotations

import bisect
import datetime
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

from django.db.models import Count, QuerySet, Sum
from django.db.models.functions import TruncDate

from accounts.models import BeanEntry, Title, User

# The title ladder (23 seed rows, edited by hand in the admin at most) is read on every table
# rendering, once per seated player: it is kept in memory, sorted by threshold. A save or delete
# of a Title (admin, shell, migration) empties it in this process (accounts.signals); other
# processes re-read it within LADDER_SECONDS.
LADDER_SECONDS = 60.0
_ladder_lock = threading.Lock()
_ladder: tuple[float, tuple[Title, ...]] | None = None


def title_ladder() -> tuple[Title, ...]:
    """Every title, lowest threshold first (cached; see LADDER_SECONDS)."""
    global _ladder
    now = time.monotonic()
    cached = _ladder
    if cached is not None and now - cached[0] < LADDER_SECONDS:
        return cached[1]
    titles = tuple(Title.objects.order_by("threshold"))
    with _ladder_lock:
        _ladder = (now, titles)
    return titles


def title_ladder_clear(**_kwargs: object) -> None:
    """Forget the cached ladder (signal receiver: Title saved or deleted, migrations, flush)."""
    global _ladder
    with _ladder_lock:
        _ladder = None


def title_for(score: int) -> Title | None:
    """The highest title whose threshold ≤ score; the lowest title below every threshold."""
    return title_among(title_ladder(), score)


def title_among(titles: Sequence[Title], score: int) -> Title | None:
    """``title_for`` on a ladder already read (lowest threshold first)."""
    if not titles:
        return None
    index = bisect.bisect_right([t.threshold for t in titles], score) - 1
    return titles[max(index, 0)]


@dataclass(frozen=True)
class TitleProgress:
    title: Title | None
    next_title: Title | None
    percent: int  # progress from this title's threshold to the next one, 0..100
    missing: int  # score still needed for the next title


def title_progress(score: int) -> TitleProgress:
    title = title_for(score)
    next_title = next((t for t in title_ladder() if t.threshold > score), None)
    if next_title is None:
        return TitleProgress(title, None, 100, 0)
    start = min(title.threshold, score) if title is not None else score
    span = max(next_title.threshold - start, 1)
    percent = max(0, min(100, (score - start) * 100 // span))
    return TitleProgress(title, next_title, percent, next_title.threshold - score)


def user_recent_entries(*, user: User, limit: int = 20) -> QuerySet[BeanEntry]:
    return BeanEntry.objects.filter(user=user).order_by("-created_at", "-id")[:limit]


def user_claimed_relief_on(*, user: User, day: datetime.date) -> bool:
    return BeanEntry.objects.filter(
        user=user, reason=BeanEntry.Reason.DAILY_RELIEF, relief_day=day
    ).exists()


def house_balance() -> int:
    """The house account's balance: the club's total intake from hands."""
    return BeanEntry.objects.filter(user__isnull=True).aggregate(total=Sum("delta"))["total"] or 0


def house_intake_by_day(*, days: int = 30) -> list[dict[str, object]]:
    """Per club-local day: the house's intake, split by reason, newest day first."""
    rows = (
        BeanEntry.objects.filter(user__isnull=True)
        .annotate(day=TruncDate("created_at"))
        .values("day", "reason")
        .annotate(total=Sum("delta"), entries=Count("id"))
        .order_by("-day", "reason")
    )
    by_day: dict[datetime.date, dict[str, object]] = {}
    for row in rows:
        day = by_day.setdefault(row["day"], {"day": row["day"], "total": 0, "by_reason": {}})
        day["total"] = int(day["total"]) + row["total"]  # type: ignore[call-overload]
        day["by_reason"][row["reason"]] = row["total"]  # type: ignore[index]
    return list(by_day.values())[:days]


def ledger_totals(entries: QuerySet[BeanEntry]) -> dict[str, int]:
    """Sums of a (filtered) ledger view: credits, debits and net."""
    credit = entries.filter(delta__gt=0).aggregate(t=Sum("delta"))["t"] or 0
    debit = entries.filter(delta__lt=0).aggregate(t=Sum("delta"))["t"] or 0
    return {"credit": credit, "debit": debit, "net": credit + debit, "count": entries.count()}
