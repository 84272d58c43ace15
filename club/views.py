"""Leaderboards, public player profiles and the player settings page."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.models import User
from accounts.selectors import title_progress
from club.forms import PlayerSettingsForm
from club.selectors.leaderboards import (
    leaderboard_beans,
    leaderboard_score,
    leaderboard_season_score,
)
from club.selectors.profiles import (
    profile_badges,
    profile_recent_hands,
    profile_season,
    profile_stats,
    user_suspension,
)
from club.selectors.ratings import leaderboard_rating, profile_ratings
from club.selectors.seasons import season_running, seasons_begun

# as a module: its functions' names are those of the views that call them
from club.services import player_settings as settings_services
from games.api import VARIANT_LABELS, hands_readable

# the leaderboard's choice of no season (the period applies): a season's id is a number
NO_SEASON = "none"


def leaderboard(request: HttpRequest) -> HttpResponse:
    """Boards by score (the title ladder's), beans won or skill rating; per variant; over a
    period or a season, by default the season under way. ``by`` names the board (``board``,
    its older name, still works)."""
    board = request.GET.get("by") or request.GET.get("board") or "score"
    variant = request.GET.get("variant", "")
    if variant not in VARIANT_LABELS:
        variant = ""
    days_raw = request.GET.get("days", "7")
    days = int(days_raw) if days_raw in ("7", "30") else None
    seasons = seasons_begun()
    running = season_running()
    chosen = request.GET.get("season")
    # by default the club's board of the moment, the season under way (if one is); else a
    # season by its id, and NO_SEASON (or anything else) lets the period apply
    season = running if chosen is None else next((s for s in seasons if str(s.pk) == chosen), None)
    if board == "rating":
        variant = variant or next(iter(VARIANT_LABELS))  # ratings are per variant
        rows = leaderboard_rating(variant_key=variant, season=season)
    elif board == "beans":
        rows = leaderboard_beans(days=days, variant=variant or None, season=season)
    else:
        board = "score"
        if variant:
            rows = leaderboard_beans(days=None, variant=variant, metric="score", season=season)
        elif season is not None:
            rows = leaderboard_season_score(season=season)
        else:
            rows = leaderboard_score()
    context = {
        "board": board,
        "variant": variant,
        "days": days,
        "rows": rows,
        "variants": [(key, label) for key, label in VARIANT_LABELS.items()],
        "seasons": seasons,
        "season": season,
        "running": running,
        "no_season": NO_SEASON,
        "active_days": settings.DDZ_RATING_ACTIVE_DAYS,
    }
    template = "club/leaderboard.html"
    if getattr(request, "htmx", False):
        template += "#board"
    return render(request, template, context)


def player_profile(request: HttpRequest, username: str) -> HttpResponse:
    player = get_object_or_404(User, username=username, is_bot=False)
    stats = profile_stats(user=player)
    recent = profile_recent_hands(user=player)
    linked = [o.hand_id for o in recent] + (
        [stats.biggest_win.hand_id] if stats.biggest_win else []
    )
    return render(
        request,
        "club/profile.html",
        {
            "player": player,
            "progress": title_progress(player.score),
            "stats": stats,
            "recent": recent,
            # a private table's hands are its players' and the staff's: no link for others
            "readable": hands_readable(hand_ids=linked, user=request.user),
            "labels": VARIANT_LABELS,
            "suspended": user_suspension(user=player) is not None,
            "ratings": profile_ratings(user=player),
            "season": profile_season(user=player),
            "badges": profile_badges(user=player),
        },
    )


@login_required
def player_settings(request: HttpRequest) -> HttpResponse:
    prefs = settings_services.player_settings_get(user=request.user)
    if request.method == "POST":
        form = PlayerSettingsForm(request.POST, instance=prefs)
        if form.is_valid():
            prefs = settings_services.player_settings_update(user=request.user, **form.cleaned_data)
            response = redirect("player_settings")
            if prefs.language:
                translation.activate(prefs.language)
                response.set_cookie(settings.LANGUAGE_COOKIE_NAME, prefs.language, samesite="Lax")
            messages.success(request, _("Settings saved."))
            return response
    else:
        form = PlayerSettingsForm(instance=prefs)
    return render(request, "club/settings.html", {"form": form})


@login_required
@require_POST
def player_guide_seen(request: HttpRequest) -> HttpResponse:
    """The table's guide was closed: it opens by itself no more (the "?" button still opens it)."""
    settings_services.player_guide_seen(user=request.user)
    return HttpResponse(status=204)
