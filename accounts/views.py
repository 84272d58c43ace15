"""Profile page and the daily relief claim (an htmx POST that swaps the balance card)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts import selectors, services


def _profile_context(request: HttpRequest) -> dict[str, object]:
    user = request.user
    claimed = selectors.user_claimed_relief_on(user=user, day=timezone.localdate())
    return {
        "progress": selectors.title_progress(user.score),
        "entries": selectors.user_recent_entries(user=user),
        "relief_open": services.relief_available(user=user) and not claimed,
        "relief_claimed": claimed,
    }


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    return render(request, "accounts/profile.html", _profile_context(request))


@login_required
@require_POST
def relief_claim(request: HttpRequest) -> HttpResponse:
    message = ""
    try:
        services.beans_claim_relief(user=request.user)
        message = _("Relief received. Good luck at the tables!")
    except services.ReliefAlreadyClaimed:
        message = _("You have already claimed today's relief.")
    except services.ReliefNotAvailable:
        message = _("Relief is only for players whose balance is below the floor.")
    if not request.htmx:
        return redirect("profile")
    context = _profile_context(request) | {"relief_message": message}
    return render(request, "accounts/profile.html#wallet", context)
