"""Private tables (issue #8): creating one, its invite link, the host's settings and seat moves
between hands."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games.models import Room, Seat, Table
from games.reads import private as reads_private
from games.reads import selectors
from games.services import private
from games.table import invites
from games.table.errors import ActionRejected
from games.table.options import OPTION_HELP, option_label, value_label
from games.table.stakes import table_options, table_seconds, table_stakes
from games.views.replies import done, refused
from site_kit.addresses import client_address

# (issue #8) An invite link /join/<code>/ remembers the code in the browser session; the page,
# its websocket and the sit POST read it from there.


def invite_codes(request: HttpRequest) -> list[str]:
    return list(request.session.get("ddz_invites", [])) if hasattr(request, "session") else []


def private_gate(request: HttpRequest, table: Table) -> HttpResponse | None:
    """None when the request may see the table; else the invite page or a 404 (a private
    table's existence is not revealed to anyone without its code)."""
    if reads_private.may_watch(table, request.user, invite_codes(request)):
        return None
    if any(invites.code_matches(table, c) for c in invite_codes(request)):
        return redirect("table_invite", code=table.invite_code)
    raise Http404(_("No such table."))


@login_required
@require_POST
def table_create_private(request: HttpRequest, room_id: int) -> HttpResponse:
    room = get_object_or_404(Room, pk=room_id)
    try:
        table = private.table_create_private(
            room=room, user=request.user, coefficient=request.POST.get("coefficient")
        )
    except ActionRejected as error:
        messages.error(request, error.message)
        return redirect("lobby")
    invites.save_invite(request.session, table.invite_code)
    return redirect("table", table_id=table.pk)


def _guesser(request: HttpRequest) -> dict[str, str]:
    """Whom an invite code's try counts against: the browser session and the address."""
    address = client_address(
        forwarded_for=request.META.get("HTTP_X_FORWARDED_FOR"),
        peer=request.META.get("REMOTE_ADDR"),
    )
    return {"session_key": request.session.session_key or "", "address": address or ""}


def table_invite(request: HttpRequest, code: str) -> HttpResponse:
    """The invite link: who hosts, which room, free seats; sit down or (if allowed) watch."""
    try:
        # (mypy cannot tell that the guesser's dict holds no table_id)
        table = private.invite_table(code=code, **_guesser(request))  # type: ignore[arg-type]
    except ActionRejected as error:
        return render(request, "games/invite_refused.html", {"message": error.message}, status=429)
    if table is None:
        raise Http404(_("This invite link is not valid."))
    if request.user.is_authenticated:
        invites.save_invite(request.session, table.invite_code)
        if Seat.objects.filter(table=table, user=request.user).exists():
            return redirect("table", table_id=table.pk)
    seats = list(Seat.objects.filter(table=table).select_related("user").order_by("index"))
    return render(
        request,
        "games/invite.html",
        {
            "table": table,
            "room": table.room,
            "seats": seats,
            "free": sum(1 for s in seats if s.is_empty),
            "code": table.invite_code,
        },
    )


def code_for(request: HttpRequest, table: Table) -> str | None:
    posted = request.POST.get("code")
    if posted:  # a guess like a link's: refused past the throttle, remembered when wrong
        opened = private.invite_table(code=posted, table_id=table.pk, **_guesser(request))
        return posted if opened is not None else None
    return next((c for c in invite_codes(request) if invites.code_matches(table, c)), None)


@login_required
def table_settings(request: HttpRequest, table_id: int) -> HttpResponse:
    """The host's settings page: rule options the room permits, seconds, bots, spectators,
    lock. Saved settings apply from the next deal."""
    table = get_object_or_404(Table.objects.select_related("room"), pk=table_id)
    if not table.is_private or table.host_id != request.user.pk:
        raise Http404(_("No such table."))
    choices = private.host_option_choices(table.room)
    current = table_options(table)
    if request.method == "POST":
        try:
            private.table_update_settings(
                table_id=table.pk,
                user=request.user,
                options={name: request.POST[name] for name in choices if name in request.POST},
                turn_seconds=request.POST.get("turn_seconds"),
                bid_seconds=request.POST.get("bid_seconds"),
                coefficient=request.POST.get("coefficient"),
                allow_bots=bool(request.POST.get("allow_bots")),
                allow_spectators=bool(request.POST.get("allow_spectators")),
            )
            private.table_set_locked(
                table_id=table.pk, user=request.user, locked=bool(request.POST.get("locked"))
            )
        except ActionRejected as error:
            messages.error(request, error.message)
            return redirect("table_settings", table_id=table.pk)
        if selectors.table_active_hand(table=table) is not None:
            messages.info(request, _("Saved: the new settings apply from the next hand."))
        else:
            messages.success(request, _("Saved."))
        return redirect("table", table_id=table.pk)
    turn, bid = table_seconds(table)
    options = [
        {
            "name": name,
            "label": option_label(name),
            "help": OPTION_HELP.get(name, ""),
            "values": [
                {
                    "value": str(v),
                    "label": value_label(v),
                    "on": v == current.get(name),
                }
                for v in values
            ],
        }
        for name, values in choices.items()
    ]
    coefficient_max = table.room.private_coefficient_max if request.user.is_staff else None
    return render(
        request,
        "games/settings.html",
        {
            "table": table,
            "room": table.room,
            "options": options,
            "turn_seconds": turn,
            "bid_seconds": bid,
            "seconds_min": private.SECONDS_RANGE[0],
            "seconds_max": private.SECONDS_RANGE[1],
            "coefficient": table_stakes(table).coefficient,
            "coefficient_max": coefficient_max,
        },
    )


def _seat_action(request: HttpRequest, table_id: int, call: Any, **kwargs: Any) -> HttpResponse:
    try:
        call(table_id=table_id, user=request.user, **kwargs)
    except ActionRejected as error:
        return refused(request, table_id, error)
    return done(request, table_id, reload=True)


@login_required
@require_POST
def table_remove_seat(request: HttpRequest, table_id: int) -> HttpResponse:
    return _seat_action(
        request, table_id, private.table_remove_seat, seat_index=request.POST.get("seat")
    )


@login_required
@require_POST
def seat_move(request: HttpRequest, table_id: int) -> HttpResponse:
    return _seat_action(request, table_id, private.seat_move, seat_index=request.POST.get("seat"))


@login_required
@require_POST
def seat_swap(request: HttpRequest, table_id: int) -> HttpResponse:
    call = private.seat_accept_swap if request.POST.get("accept") else private.seat_request_swap
    return _seat_action(request, table_id, call, seat_index=request.POST.get("seat"))


@login_required
@require_POST
def seat_stand_after(request: HttpRequest, table_id: int) -> HttpResponse:
    enabled = request.POST.get("enabled", "1") != "0"
    return _seat_action(request, table_id, private.seat_stand_after_hand, enabled=enabled)
