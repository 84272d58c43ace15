"""The operators' live view in the admin (``/admin/live/``): the processes seen from their
heartbeats, open sockets, tables in play, events running, the deadline runners' lag and the
processes' last errors. The page refreshes its one region with htmx every few seconds."""

from __future__ import annotations

import datetime
from typing import Any

from django.conf import settings
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _

from competitions.selectors import events_running
from games.reads import selectors

# a process whose heartbeat is older than this is shown as gone
SEEN_WITHIN = datetime.timedelta(minutes=5)
REFRESH_SECONDS = 5
ERRORS_SHOWN = 20


def live_facts(*, now: datetime.datetime) -> dict[str, Any]:
    processes = selectors.processes_seen(since=now - SEEN_WITHIN)
    alive_after = now - datetime.timedelta(seconds=3 * settings.DDZ_SOCKET_RENEW_SECONDS)
    lags = [p.runner_lag_seconds for p in processes if p.runner_lag_seconds is not None]
    errors = sorted(
        ({**error, "process": f"{p.host}:{p.pid}"} for p in processes for error in p.errors),
        key=lambda error: error.get("at", ""),
        reverse=True,
    )[:ERRORS_SHOWN]
    return {
        "processes": [
            {"row": p, "alive": p.seen_at >= alive_after, "uptime": now - p.started_at}
            for p in processes
        ],
        "sockets": selectors.live_sockets(now=now, lease_seconds=settings.DDZ_SOCKET_LEASE_SECONDS),
        "tables": sorted(selectors.tables_in_play_by_variant().items()),
        "hands": sum(selectors.hands_active_by_variant().values()),
        "events": events_running(),
        "lag": max(lags, default=None),
        "errors": errors,
        "now": now,
    }


def live(request: HttpRequest) -> HttpResponse:
    if not request.user.has_perm("games.view_serverprocess"):
        raise PermissionDenied
    context = {
        **admin.site.each_context(request),
        "title": _("Live view"),
        "refresh_seconds": REFRESH_SECONDS,
        **live_facts(now=timezone.now()),
    }
    template = "admin/live.html#live" if request.htmx else "admin/live.html"
    return render(request, template, context)
