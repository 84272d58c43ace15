"""The table screen and its POSTs: sit, leave, add a bot, deal. Writes go through
games.services (one transaction each, pushed after commit)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games import services as game_services
from games.models import Hand, HandPlayer, Seat, Table
from games.reads import private as reads_private
from games.reads import selectors
from games.reads.snapshot import table_snapshot
from games.screen import context, regions
from games.table.errors import ActionRejected
from games.table.hooks import hooks
from games.views.private_tables import code_for, invite_codes, private_gate
from games.views.replies import done, is_htmx, refused


def _current_hand(table: Table) -> Hand | None:
    """The active hand, else the last one (its result stays on screen until the next deal)."""
    return selectors.table_current_hand(table=table)


def _seat_of(table: Table, hand: Hand | None, user: Any) -> tuple[int | None, int | None]:
    """(the user's seat in this hand's view, his seat at the table now)."""
    if not getattr(user, "is_authenticated", False):
        return None, None
    seat = Seat.objects.filter(table=table, user=user).values_list("index", flat=True).first()
    view_seat = seat
    if hand is not None:
        played = (
            HandPlayer.objects.filter(hand=hand, user=user).values_list("seat", flat=True).first()
        )
        view_seat = played
    return view_seat, seat


def _seat_param(request: HttpRequest) -> int | None:
    raw = request.POST.get("seat", "")
    try:
        return int(raw) if raw != "" else None
    except ValueError:
        return None


def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    table = get_object_or_404(Table.objects.select_related("room"), pk=table_id)
    gate = private_gate(request, table)
    if gate is not None:
        return gate
    hand = _current_hand(table)
    view_seat, _seat = _seat_of(table, hand, request.user)
    snapshot = table_snapshot(table=table, hand=hand)
    ctx = context.table_context(snapshot=snapshot, seat_index=view_seat, user=request.user)
    ctx["oob"] = False
    ctx["seated"] = _seat is not None
    ctx["regions"] = regions.page_regions(snapshot=snapshot, own=ctx, request=request)
    ctx["banner"] = hooks.table_banner(table=table, user=request.user)
    return render(request, "games/table.html", ctx)


def table_regions(request: HttpRequest, table_id: int) -> HttpResponse:
    """Every region for the requesting audience (a resync over plain HTTP)."""
    table = get_object_or_404(Table.objects.select_related("room"), pk=table_id)
    if not reads_private.may_watch(table, request.user, invite_codes(request)):
        raise Http404(_("No such table."))
    hand = _current_hand(table)
    view_seat, _seat = _seat_of(table, hand, request.user)
    language = settings.LANGUAGE_CODE
    if view_seat is not None:
        language = selectors.stored_language(user=request.user)
    return HttpResponse(
        regions.render_screen(
            snapshot=table_snapshot(table=table, hand=hand),
            seat_index=view_seat,
            user=request.user,
            language=language,
        )
    )


@login_required
@require_POST
def table_sit(request: HttpRequest, table_id: int) -> HttpResponse:
    table = get_object_or_404(Table, pk=table_id)
    try:
        game_services.table_join(
            table_id=table_id,
            user=request.user,
            seat_index=_seat_param(request),
            invite_code=code_for(request, table) if table.is_private else None,
        )
    except ActionRejected as error:
        return refused(request, table_id, error)
    return done(request, table_id, reload=True)


@login_required
@require_POST
def table_leave(request: HttpRequest, table_id: int) -> HttpResponse:
    try:
        game_services.table_leave(table_id=table_id, user=request.user)
    except ActionRejected as error:
        return refused(request, table_id, error)
    if is_htmx(request):
        return done(request, table_id, reload=True)
    return redirect("table", table_id=table_id)


@login_required
@require_POST
def table_add_bot(request: HttpRequest, table_id: int) -> HttpResponse:
    try:
        if request.POST.get("fill"):
            game_services.table_fill_with_bots(table_id=table_id, user=request.user)
        else:
            game_services.table_add_bot(
                table_id=table_id, seat_index=_seat_param(request), user=request.user
            )
    except ActionRejected as error:
        return refused(request, table_id, error)
    return done(request, table_id)


@login_required
@require_POST
def table_next_hand(request: HttpRequest, table_id: int) -> HttpResponse:
    try:
        game_services.hand_start(table_id=table_id, user=request.user)
    except ActionRejected as error:
        return refused(request, table_id, error)
    return done(request, table_id)
