"""Recurring events (README "Setting up a club night"): when a daily or weekly schedule's
next events start. Pure (no Django); times are aware datetimes, the clock time is the club's."""

from __future__ import annotations

import datetime
from collections.abc import Iterator

DAILY = "daily"
WEEKLY = "weekly"


def occurrences(
    *,
    cadence: str,
    at: datetime.time,
    weekday: int | None,
    tz: datetime.tzinfo,
    after: datetime.datetime,
    until: datetime.datetime,
) -> Iterator[datetime.datetime]:
    """The starts in (``after``, ``until``]: every day at ``at`` (the club's clock), or every
    week on ``weekday`` (Monday 0) at ``at``."""
    if cadence not in (DAILY, WEEKLY):
        raise ValueError(f"unknown cadence {cadence!r}")
    if cadence == WEEKLY and (weekday is None or not 0 <= weekday <= 6):
        raise ValueError("a weekly schedule names a weekday 0..6")
    day = after.astimezone(tz).date()
    while True:
        start = datetime.datetime.combine(day, at, tzinfo=tz)
        if start > until:
            return
        if start > after and (cadence == DAILY or day.weekday() == weekday):
            yield start
        day += datetime.timedelta(days=1)
