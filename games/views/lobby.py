"""The lobby (rooms, open tables, quick join) and the rules pages."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Prefetch
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games import services as game_services
from games.engine.variants import VARIANTS
from games.models import VARIANT_LABELS, Room, Seat, Table
from games.reads import selectors
from games.reads.selectors import room_list_active
from games.screen import rulebook
from games.table.errors import ActionRejected
from games.table.hooks import hooks


def lobby(request: HttpRequest) -> HttpResponse:
    rooms = list(room_list_active())
    open_tables = (
        selectors.table_list_open()
        .filter(free_seats__gt=0, is_private=False)
        .prefetch_related(
            Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("index"))
        )
    )
    by_room: dict[int, list[Table]] = {}
    for table in open_tables:
        by_room.setdefault(table.room_id, []).append(table)
    my_tables: list[Table] = []
    if request.user.is_authenticated:
        my_tables = list(
            Table.objects.filter(seats__user=request.user).select_related("room").distinct()
        )
    for room in rooms:
        room.open_tables = by_room.get(room.pk, [])[:6]
    banner = hooks.lobby_banner(user=request.user)
    return render(
        request, "games/lobby.html", {"rooms": rooms, "my_tables": my_tables, "banner": banner}
    )


@login_required
@require_POST
def room_quick_join(request: HttpRequest, room_id: int) -> HttpResponse:
    """Sit at the fullest waiting table of the room with a free seat, or at a new table."""
    room = get_object_or_404(Room, pk=room_id)
    try:
        table = game_services.table_quick_join(room=room, user=request.user)
    except ActionRejected as error:
        messages.error(request, error.message)
        return redirect("lobby")
    return redirect("table", table_id=table.pk)


# --------------------------------------------------------------------------- the rules
def rules_index(request: HttpRequest) -> HttpResponse:
    variants = [
        {"key": key, "label": VARIANT_LABELS.get(key, key), "intro": rulebook.INTRO[key]}
        for key in VARIANTS
    ]
    return render(request, "games/rules_index.html", {"variants": variants})


def rules_page(request: HttpRequest, variant: str) -> HttpResponse:
    """One variant's rules (docs/rules.md in the players' words); with ``?room=<id>`` the rule
    options that room plays with."""
    if variant not in VARIANTS:
        raise Http404(_("No such variant."))
    room = None
    room_id = request.GET.get("room", "")
    if room_id.isdigit():
        room = Room.objects.filter(pk=int(room_id), is_active=True).first()
    if room is not None and room.variant != variant:
        return redirect(f"{reverse('rules', args=[room.variant])}?room={room.pk}")
    ctx = rulebook.rules_context(
        variant_key=variant, options=(room.options or {}) if room is not None else None
    )
    ctx["label"] = VARIANT_LABELS.get(variant, variant)
    ctx["room"] = room
    return render(request, "games/rules.html", ctx)
