"""Pages: lobby, the table screen, seat/bot/leave/deal POSTs and the hand history.

Writes go through games.services (one transaction each, broadcast after commit); a refusal
(``ActionRejected``) is shown to the player: as the #table-error partial for an htmx request,
as a flash message otherwise. Hand pages only show what their audience may know: during a
hand a player sees his own seat's view; after the end the record is public, a private table's
to its players and the staff only.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Prefetch
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from ddz_site.addresses import client_address
from games import services as game_services
from games.engine.cards import format_cards
from games.engine.dealing import deal as engine_deal
from games.engine.dealing import seed_commitment
from games.engine.record import actions_seen_by, replay
from games.engine.variants import VARIANTS, find_variant
from games.engine.views import public_view, view_for
from games.models import VARIANT_LABELS, Hand, HandPlayer, Room, Seat, Table, TableSession
from games.reads import private as reads_private
from games.reads import selectors
from games.reads.selectors import room_list_active
from games.reads.snapshot import table_snapshot
from games.screen import context, labels, regions, rulebook
from games.screen.seats import SeatInfo
from games.services import private
from games.table import invites
from games.table.errors import ActionRejected
from games.table.hooks import hooks
from games.table.options import OPTION_HELP, option_label, value_label


# --------------------------------------------------------------------------- helpers
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


def _is_htmx(request: HttpRequest) -> bool:
    return bool(getattr(request, "htmx", False))


def _refused(request: HttpRequest, table_id: int, error: ActionRejected) -> HttpResponse:
    if _is_htmx(request):
        # 200 so htmx swaps it; the partial carries hx-swap-oob and lands in #table-error
        response = HttpResponse(regions.render_error(message=error.message))
        response["HX-Reswap"] = "none"
        return response
    messages.error(request, error.message)
    return redirect("table", table_id=table_id)


def _done(request: HttpRequest, table_id: int, *, reload: bool = False) -> HttpResponse:
    """Success. The service's broadcast (after commit) already pushed the new regions to every
    socket of the table, usually before this response arrives and after replacing the very form
    that posted; so htmx gets no content (or a reload when the audience changed: sit/leave)."""
    if _is_htmx(request):
        response = HttpResponse(status=204)
        if reload:
            response["HX-Redirect"] = reverse("table", kwargs={"table_id": table_id})
        return response
    return redirect("table", table_id=table_id)


def _seat_param(request: HttpRequest) -> int | None:
    raw = request.POST.get("seat", "")
    try:
        return int(raw) if raw != "" else None
    except ValueError:
        return None


# --------------------------------------------------------------------------- lobby
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
        room.open_tables = by_room.get(room.pk, [])[:6]  # type: ignore[attr-defined]
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


# --------------------------------------------------------------------------- the table
def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    table = get_object_or_404(Table.objects.select_related("room"), pk=table_id)
    gate = _private_gate(request, table)
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
    if not reads_private.may_watch(table, request.user, _invite_codes(request)):
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
            invite_code=_code_for(request, table) if table.is_private else None,
        )
    except ActionRejected as error:
        return _refused(request, table_id, error)
    return _done(request, table_id, reload=True)


@login_required
@require_POST
def table_leave(request: HttpRequest, table_id: int) -> HttpResponse:
    try:
        game_services.table_leave(table_id=table_id, user=request.user)
    except ActionRejected as error:
        return _refused(request, table_id, error)
    if _is_htmx(request):
        return _done(request, table_id, reload=True)
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
        return _refused(request, table_id, error)
    return _done(request, table_id)


@login_required
@require_POST
def table_next_hand(request: HttpRequest, table_id: int) -> HttpResponse:
    try:
        game_services.hand_start(table_id=table_id, user=request.user)
    except ActionRejected as error:
        return _refused(request, table_id, error)
    return _done(request, table_id)


# --------------------------------------------------------------------------- history
@login_required
def hand_list(request: HttpRequest) -> HttpResponse:
    rows = selectors.user_hand_rows(user=request.user)
    page = Paginator(rows, 25).get_page(request.GET.get("page"))
    items = []
    for row in page.object_list:
        hand = row.hand
        result = hand.result or {}
        beans = None
        units = None
        raw = (
            (result.get("beans") if isinstance(result, dict) else None)
            if hand.status == Hand.Status.FINISHED
            else None
        )
        if isinstance(raw, list) and row.seat < len(raw):
            beans = raw[row.seat]
        raw_units = result.get("units") if isinstance(result, dict) else None
        if hand.status == Hand.Status.FINISHED and isinstance(raw_units, list):
            units = raw_units[row.seat] if row.seat < len(raw_units) else None
        items.append({"hand": hand, "seat": row.seat, "beans": beans, "units": units})
    return render(request, "games/hands/list.html", {"page": page, "items": items})


def _readable_hand(request: HttpRequest, hand_id: int) -> Hand:
    """The hand, or a 404 (the same as for no such hand) when it is a private table's and the
    requester neither played it nor is staff."""
    hand = get_object_or_404(Hand.objects.select_related("table__room"), pk=hand_id)
    if not selectors.hands_readable(hand_ids=[hand.pk], user=request.user):
        raise Http404(_("No such hand."))
    return hand


def _hand_audience(request: HttpRequest, hand: Hand) -> int | str | None:
    """'all' after the end; the user's seat during the hand; raises 404 for anyone else."""
    if hand.status == Hand.Status.FINISHED:
        return "all"
    if request.user.is_authenticated:
        seat = (
            HandPlayer.objects.filter(hand=hand, user=request.user)
            .values_list("seat", flat=True)
            .first()
        )
        if seat is not None:
            return int(seat)
    raise Http404(_("This hand is still being played; its record is public once it is over."))


def _names(hand: Hand) -> dict[int, str]:
    out: dict[int, str] = {}
    for row in HandPlayer.objects.filter(hand=hand).select_related("user"):
        if row.user is not None:
            out[row.seat] = row.user.username
        elif row.is_bot:
            out[row.seat] = _("Bot %(n)s") % {"n": row.seat + 1}
    return out


def _infos(hand: Hand) -> list[SeatInfo]:
    infos = []
    for row in HandPlayer.objects.filter(hand=hand).select_related("user").order_by("seat"):
        name = row.user.username if row.user is not None else _("Bot %(n)s") % {"n": row.seat + 1}
        infos.append(
            SeatInfo(
                index=row.seat,
                name=name,
                is_bot=row.is_bot or row.user is None,
            )
        )
    return infos


def _action_text(action: dict[str, Any], names: dict[int, str]) -> str:
    act = action["act"]
    if act == "close":  # the table's, not the seat's it is logged under
        return _("Everyone's choices are shown")
    who = names.get(action["seat"], _("Seat %(n)s") % {"n": action["seat"] + 1})
    value = action.get("value")
    if act == "play":
        what = labels.cards_short(action.get("cards"))
    elif act == "pass":
        what = _("Pass")
    elif act == "bid":
        what = _("No bid") if value == 0 else _("Bid %(n)s") % {"n": value}
    elif act == "reveal":
        what = _("Reveal identity") if value else _("Give up")
    elif act == "double":
        what = _("Double") if value else _("Don't double")
    elif act == "show":
        what = _("Showed his hand") if value else _("Kept his hand hidden")  # 明牌 / 不明牌
    elif act == "grab":
        what = (
            _("No grab")
            if value is None
            else _("Grab with %(card)s") % {"card": labels.cards_short(value)}
        )
    elif act == "partner":
        what = str(labels.PARTNER_LABELS.get(value, value))
    elif act == "call":
        what = _("Call %(card)s") % {"card": labels.cards_short(value)}
    elif act == "timeout":
        what = _("Timed out")
    elif act == "autoplay":
        what = _("Auto-play on") if value else _("Auto-play off")
    else:
        what = act
    return f"{who}: {what}"


def hand_detail(request: HttpRequest, hand_id: int) -> HttpResponse:
    """The replay viewer: the hand at step ``?step=k`` (k actions applied)."""
    hand = _readable_hand(request, hand_id)
    audience = _hand_audience(request, hand)
    record = hand.record
    actions = list(record.get("actions") or [])
    # the steps as its audience may know them: the whole record once the hand is over; during
    # play what the seat's table showed him (the engine's actions_seen_by)
    seen = list(enumerate(actions))
    if audience != "all":
        seen = actions_seen_by(record, int(audience))
    shown = [index for index, _action in seen]
    total = len(shown)
    try:
        step = int(request.GET.get("step", total))
    except ValueError:
        step = total
    step = max(0, min(total, step))
    state = replay({**record, "actions": actions[: shown[step - 1] + 1 if step else 0]})
    names = _names(hand)
    infos = _infos(hand)
    if audience == "all":
        view = public_view(state)
        hands = [
            {
                "seat": s,
                "name": names.get(s, ""),
                "cards": labels.card_faces(format_cards(state.hands[s])),
            }
            for s in range(state.seats)
        ]
    else:
        view = view_for(state, int(audience))
        hands = []
    ctx = context.screen_context(
        view=view,
        seats=infos,
        hand_id=hand.pk,
        hand_number=hand.number,
        base_score=hand.table.room.base_score,
        coefficient=hand.table.room.coefficient,
        commitment=hand.commitment,
        seed=hand.revealed_seed or "",
        extras={},
    )
    # the replay shows the table, never live controls
    ctx.update({"my_turn": False, "can_play": False, "can_pass": False, "choices": []})
    steps = [
        {"n": n, "text": _action_text(action, names), "current": n == step}
        for n, (_index, action) in enumerate(seen, start=1)
    ]
    ctx.update(
        {
            "hand": hand,
            "room": hand.table.room,
            "step": step,
            "total": total,
            "prev_step": max(0, step - 1),
            "next_step": min(total, step + 1),
            "steps": steps,
            "all_hands": hands,
            "audience_all": audience == "all",
            "variant_label": hand.table.room.variant_label,
        }
    )
    template = "games/hands/detail.html"
    if _is_htmx(request):
        template = "games/hands/viewer.html"
    return render(request, template, ctx)


def hand_record_json(request: HttpRequest, hand_id: int) -> HttpResponse:
    """The §8.4 record after the end; during play, only the requester's own view."""
    hand = _readable_hand(request, hand_id)
    audience = _hand_audience(request, hand)
    if audience == "all":
        data: dict[str, Any] = dict(hand.record)
        data["commitment"] = hand.commitment
        data["seed"] = hand.seed
    else:
        state = replay(hand.record)
        record = hand.record
        data = {
            "variant": record.get("variant"),
            "room": record.get("room"),
            "seats": record.get("seats"),
            "partial": True,
            "note": "the hand is still being played: this is only what your seat may see",
            "commitment": hand.commitment,
            "seat": audience,
            "view": view_for(state, int(audience)),
        }
    response = JsonResponse(data, json_dumps_params={"ensure_ascii": False, "indent": 1})
    response["Content-Disposition"] = f'attachment; filename="hand-{hand.pk}.json"'
    return response


def hand_verify(request: HttpRequest, hand_id: int) -> HttpResponse:
    """Recompute the deal from the revealed seed and compare it with the commitment and record."""
    hand = _readable_hand(request, hand_id)
    ctx: dict[str, Any] = {"hand": hand, "room": hand.table.room}
    if hand.status != Hand.Status.FINISHED:
        ctx["pending"] = True
        return render(request, "games/hands/verify.html", ctx)
    record = hand.record
    variant = find_variant(hand.variant_key, **(hand.options or {}))
    recorded = record.get("deal") or {}
    landlord_seat = recorded.get("landlord_seat")
    recomputed = engine_deal(
        variant, hand.seed, hand_number=hand.number, landlord_seat=landlord_seat
    )
    commitment = seed_commitment(hand.seed)
    deal_json = recomputed.to_json()
    names = _names(hand)
    seats = [
        {
            "seat": s,
            "name": names.get(s, _("Seat %(n)s") % {"n": s + 1}),
            "cards": labels.card_faces(text),
            "matches": recorded.get("hands", [None] * variant.seats)[s] == text
            if s < len(recorded.get("hands", []))
            else False,
        }
        for s, text in enumerate(deal_json["hands"])
    ]
    ctx.update(
        {
            "seed": hand.seed,
            "commitment": hand.commitment,
            "recomputed_commitment": commitment,
            "commitment_ok": commitment == hand.commitment,
            "deal_ok": deal_json == recorded,
            "seats": seats,
            "bottom": labels.card_faces(deal_json.get("bottom")),
            "face_up": labels.card_face(deal_json["face_up"]["card"])
            if deal_json.get("face_up")
            else None,
            "cli": f"python -m games.engine verify {hand.seed} {hand.commitment} {hand.variant_key}"
            + (f" --landlord-seat {landlord_seat}" if landlord_seat is not None else ""),
        }
    )
    return render(request, "games/hands/verify.html", ctx)


# --------------------------------------------------------------------------- private tables
# (issue #8) An invite link /join/<code>/ remembers the code in the browser session; the page,
# its websocket and the sit POST read it from there.


def _invite_codes(request: HttpRequest) -> list[str]:
    return list(request.session.get("ddz_invites", [])) if hasattr(request, "session") else []


def _private_gate(request: HttpRequest, table: Table) -> HttpResponse | None:
    """None when the request may see the table; else the invite page or a 404 (a private
    table's existence is not revealed to anyone without its code)."""
    if reads_private.may_watch(table, request.user, _invite_codes(request)):
        return None
    if any(invites.code_matches(table, c) for c in _invite_codes(request)):
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
        table = private.invite_table(code=code, **_guesser(request))
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


def _code_for(request: HttpRequest, table: Table) -> str | None:
    posted = request.POST.get("code")
    if posted:  # a guess like a link's: refused past the throttle, remembered when wrong
        opened = private.invite_table(code=posted, table_id=table.pk, **_guesser(request))
        return posted if opened is not None else None
    return next((c for c in _invite_codes(request) if invites.code_matches(table, c)), None)


@login_required
def table_settings(request: HttpRequest, table_id: int) -> HttpResponse:
    """The host's settings page: rule options the room permits, seconds, bots, spectators,
    lock. Saved settings apply from the next deal."""
    table = get_object_or_404(Table.objects.select_related("room"), pk=table_id)
    if not table.is_private or table.host_id != request.user.pk:
        raise Http404(_("No such table."))
    choices = private.host_option_choices(table.room)
    current = game_services.table_options(table)
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
    turn, bid = game_services.table_seconds(table)
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
            "coefficient": game_services.table_stakes(table).coefficient,
            "coefficient_max": coefficient_max,
        },
    )


def _seat_action(request: HttpRequest, table_id: int, call: Any, **kwargs: Any) -> HttpResponse:
    try:
        call(table_id=table_id, user=request.user, **kwargs)
    except ActionRejected as error:
        return _refused(request, table_id, error)
    return _done(request, table_id, reload=True)


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


# --------------------------------------------------------------------------- sessions
@login_required
def session_list(request: HttpRequest) -> HttpResponse:
    page = Paginator(reads_private.user_sessions(request.user), 25).get_page(
        request.GET.get("page")
    )
    items = []
    for session in page.object_list:
        sheet = reads_private.session_sheet(session)
        mine = f"u{request.user.pk}"
        total = sheet["totals"][sheet["keys"].index(mine)] if mine in sheet["keys"] else None
        items.append({"session": session, "hands": len(sheet["lines"]), "total": total})
    return render(request, "games/sessions/list.html", {"page": page, "items": items})


def _session_or_404(request: HttpRequest, session_id: int) -> TableSession:
    session = get_object_or_404(TableSession.objects.select_related("table__room"), pk=session_id)
    if not reads_private.may_see_session(session, request.user, _invite_codes(request)):
        raise Http404(_("No such session."))
    return session


@login_required
def session_detail(request: HttpRequest, session_id: int) -> HttpResponse:
    session = _session_or_404(request, session_id)
    return render(
        request,
        "games/sessions/detail.html",
        {
            "session": session,
            "sheet": reads_private.session_sheet(session),
            "room": session.table.room,
        },
    )


@login_required
def session_csv(request: HttpRequest, session_id: int) -> HttpResponse:
    session = _session_or_404(request, session_id)
    response = HttpResponse(reads_private.session_sheet_csv(session), content_type="text/csv")
    name = f"ddz-table{session.table_id}-session{session.number}.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
