"""The hand history: a player's hands, a hand's page, its record and the check of its seed. A
hand page only shows what its audience may know: during a hand a player sees his own seat's
view; after the end the record is public, a private table's to its players and the staff
only."""

from __future__ import annotations

from typing import Any, Literal

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _

from games.engine.cards import format_cards
from games.engine.dealing import deal as engine_deal
from games.engine.dealing import seed_commitment
from games.engine.record import actions_seen_by, replay
from games.engine.variants import find_variant
from games.engine.views import public_view, view_for
from games.models import Hand, HandPlayer
from games.reads import selectors
from games.screen import context, labels
from games.screen.seats import SeatInfo
from games.views.replies import is_htmx


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


def _hand_audience(request: HttpRequest, hand: Hand) -> int | Literal["all"]:
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
        what = str(labels.PARTNER_LABELS.get(value or "", value))
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
    if is_htmx(request):
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
