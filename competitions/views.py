"""Event pages: the list, an event's page (entrants, live standings, results) and the
register / withdraw / pause POSTs. Writes go through competitions.services; a refusal is a
flash message on the event page."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from django.views.decorators.http import require_POST

from competitions import pages, selectors, services
from competitions.errors import EventRefused
from competitions.models import Event


def event_list(request: HttpRequest) -> HttpResponse:
    lists = selectors.event_lists()
    sections = [
        (_("Running"), lists["running"]),
        (_("Upcoming"), lists["upcoming"]),
        (pgettext("events", "Finished"), lists["finished"]),
    ]
    return render(request, "competitions/event_list.html", {"sections": sections})


def event_detail(request: HttpRequest, event_id: int) -> HttpResponse:
    event = get_object_or_404(Event.objects.select_related("room"), pk=event_id)
    context: dict[str, Any] = pages.shared_context(event=event)
    context["games"] = pages.watchable(context["games"], request.user)
    if request.user.is_authenticated:
        context.update(pages.own_context(event=event, user=request.user))
    context["oob"] = False
    return render(request, pages.TEMPLATE, context)


def _post(
    request: HttpRequest, event_id: int, call: Callable[..., Any], done: str, **extra: Any
) -> HttpResponse:
    """``call(event_id=..., user=the requester, **extra)``; its refusal or ``done`` as a message
    on the event page."""
    get_object_or_404(Event, pk=event_id)
    page = reverse("event_detail", kwargs={"event_id": event_id})
    if not request.user.is_authenticated:
        login = f"{reverse('account_login')}?next={page}"
        if getattr(request, "htmx", False):
            return HttpResponse(status=204, headers={"HX-Redirect": login})
        return redirect(login)
    try:
        call(event_id=event_id, user=request.user, **extra)
    except EventRefused as error:
        messages.error(request, error.message)
    else:
        messages.success(request, done)
    if getattr(request, "htmx", False):
        # the page's own region may have come over the socket, without a form token: htmx
        # posts with the page's token header, then the page loads again with the message
        return HttpResponse(status=204, headers={"HX-Redirect": page})
    return redirect("event_detail", event_id=event_id)


@require_POST
def event_register(request: HttpRequest, event_id: int) -> HttpResponse:
    return _post(request, event_id, services.event_register, _("You are registered."))


@require_POST
def event_withdraw(request: HttpRequest, event_id: int) -> HttpResponse:
    return _post(request, event_id, services.event_withdraw, _("You have withdrawn."))


@require_POST
def event_pause(request: HttpRequest, event_id: int) -> HttpResponse:
    paused = request.POST.get("paused", "1") != "0"
    done = _("Paused: no table is formed for you until you resume.") if paused else _("Resumed.")
    return _post(request, event_id, services.entry_pause, done, paused=paused)
