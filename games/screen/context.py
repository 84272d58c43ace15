"""The template context of the table screen for one audience, from a snapshot of the table
(games/reads/snapshot.py): pure, it reads no database.

Every card a template can show comes from the engine's ``view_for`` (a seated player) or
``public_view`` (a spectator) dict, never from the raw hand state, so a rendering can only
leak what the view already allows. The one addition is the list of hint plays of the seat
to act, built from ``legal_actions`` for that seat only: those are made of his own cards.

The regions' builders live beside it: the seat panels and who sits where in
games/screen/seats.py, the views in games/screen/seen.py, the controls' hints and buttons in
games/screen/controls.py, the result panel in games/screen/result.py. The controls and status
partials hand the values they read to Python template tags that write their markup
(games/templatetags/controls_html.py, status_html.py), as the card faces are written
(games/templatetags/cards.py)."""

from __future__ import annotations

import datetime
import json
from collections.abc import Sequence
from typing import Any

from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from games.engine.combos import BOMB_KINDS
from games.engine.flows import flow_for
from games.engine.state import HandState
from games.engine.variants import find_variant
from games.reads.snapshot import HandExtras, TableSnapshot
from games.screen.controls import choice_buttons, hint_plays_of
from games.screen.labels import (
    MULTIPLIER_LABELS,
    PARTNER_LABELS,
    PHASE_LABELS,
    card_face,
    card_faces,
    counter_columns,
    kind_label,
    stake_steps,
)
from games.screen.result import result_panel
from games.screen.seats import (
    SeatInfo,
    held_seat,
    own_role,
    player_infos,
    seat_decisions,
    seat_infos,
    seat_panels,
    seat_rows,
    title_name,
)
from games.screen.seen import seen_by
from games.table.stakes import decision_seconds

# what only the shared regions read of a context: a seat's own regions' context leaves it out
SHARED_ONLY = ("seats", "trick", "top")


def _deadline_iso(deadline: datetime.datetime | None) -> str:
    if deadline is None:
        return ""
    if timezone.is_naive(deadline):
        deadline = timezone.make_aware(deadline, datetime.UTC)
    return deadline.astimezone(datetime.UTC).isoformat()


def screen_context(
    *,
    view: dict[str, Any],
    seats: Sequence[SeatInfo],
    state: HandState | None = None,
    table_id: int | None = None,
    hand_id: int | None = None,
    hand_number: int | None = None,
    version: int = 0,
    deadline_at: datetime.datetime | None = None,
    seconds: int | None = None,
    base_score: int = 1,
    coefficient: int = 1,
    commitment: str = "",
    seed: str = "",
    extras: HandExtras | None = None,
    now: datetime.datetime | None = None,
    players: Sequence[SeatInfo] | None = None,
    hints: bool = True,
    shared: bool = True,
) -> dict[str, Any]:
    """Everything the region templates need, from one audience's view dict.

    ``state`` is used only for the hint plays of the view's own seat and to tell whether the
    bottom it shows is public. ``now`` (default: the clock) is the server time the page's
    countdown is set by; a push gives every audience the same one. ``players``: who played
    each seat of the hand, which names its plays and its result (default: ``seats``, the
    seats' occupants, who may have changed since the hand ended). ``hints``: False leaves the
    hint plays out (``with_hints`` adds them). ``shared``: False leaves out ``SHARED_ONLY``,
    what only the shared regions read (a context for a seat's own regions).
    """
    n = view["seats"]
    me = view.get("seat")
    variant = view["variant"]
    waiting = set(view.get("waiting") or [])
    top = view.get("top")
    deadline = _deadline_iso(deadline_at) if not view.get("finished") else ""
    infos = {s.index: s for s in seats}

    played = {s.index: s for s in players} if players else infos
    names = {
        seat: (played[seat].name if seat in played else None) or _("Seat %(n)s") % {"n": seat + 1}
        for seat in range(n)
    }
    phase = view.get("phase")
    legal = view.get("legal") or []
    my_turn = bool(me is not None and me in waiting and not view.get("finished") and legal)
    bottom, own_bottom = _bottoms(view, state)
    extras = extras or {}
    return {
        "table_id": table_id,
        "hand_id": hand_id,
        "hand_number": hand_number,
        "version": version,
        "view": view,
        "variant": variant,
        "seat_count": n,
        "me": me,
        "spectator": me is None,
        **(_shared_regions(view, seats, names, deadline=deadline) if shared else {}),
        "leading": my_turn and phase == "play" and top is None,
        **_own_hand(view, state, own_bottom=own_bottom, hints=my_turn and hints),
        "my_turn": my_turn,
        # the version a move made on these controls names: only the seat to move reads it, so
        # the controls of the others stay the same rendering from one version to the next
        "move_version": version if my_turn else None,
        "can_play": my_turn and "play" in legal,
        "can_pass": my_turn and "pass" in legal,
        # 要不起: following, and nothing in his hand beats the top play: Pass is all he can do
        "cant_beat": my_turn and phase == "play" and "pass" in legal and "play" not in legal,
        "choices": choice_buttons(view) if my_turn else [],
        "autoplay_on": bool(view.get("autoplay_on")),
        "finished": bool(view.get("finished")),
        "names": names,
        "status": {
            **_status_panel(
                view, names, bottom=bottom, base_score=base_score, coefficient=coefficient
            ),
            "deadline": deadline,
            "now": _deadline_iso(now or timezone.now()),
            "seconds": seconds,
        },
        "result": result_panel(view=view, played=played, names=names, extras=extras),
        "redeal": phase == "redeal",
        "commitment": commitment,
        "seed": seed if view.get("finished") else "",
        "in_hand": True,
    }


def _shared_regions(
    view: dict[str, Any], seats: Sequence[SeatInfo], names: dict[int, str], *, deadline: str
) -> dict[str, Any]:
    """What only the shared regions read (``SHARED_ONLY``): the seat panels, the trick and the
    play on top."""
    variant = view["variant"]
    top = view.get("top")
    return {
        "seats": seat_panels(view, seats, deadline=deadline),
        "trick": [
            {
                "seat": entry["seat"],
                "name": names.get(entry["seat"], ""),
                "passed": entry["cards"] is None,
                "cards": card_faces(entry["cards"]),
                "is_top": top is not None
                and entry["seat"] == top["seat"]
                and entry["cards"] == top["cards"],
            }
            for entry in view.get("trick") or []
        ],
        "top": None
        if top is None
        else {
            "seat": top["seat"],
            "name": names.get(top["seat"], ""),
            "cards": card_faces(top["cards"]),
            "kind": kind_label(variant, top["kind"], top["cards"]),
            "bomb": top["kind"] in BOMB_KINDS,
            "effect": PLAY_EFFECTS.get(top["kind"], ""),
        },
    }


def _status_panel(
    view: dict[str, Any],
    names: dict[int, str],
    *,
    bottom: Any,
    base_score: int,
    coefficient: int,
) -> dict[str, Any]:
    """The status region but its clock: the phase, the stakes, the bottom as all see it (the
    status partial hands it whole, with the clock's deadline, time and seconds, to
    games/templatetags/status_html.py)."""
    phase = view.get("phase")
    variant = view["variant"]
    waiting = set(view.get("waiting") or [])
    face_up = view.get("face_up")
    bombs = [p for p in view.get("plays") or [] if p["kind"] in BOMB_KINDS]
    marked = view.get("marked_card")
    partner_mode = view.get("partner_mode")
    return {
        "phase": phase,
        "phase_label": str(PHASE_LABELS.get(phase or "", phase)),
        "multiplier": view.get("multiplier"),
        "multiplier_label": str(MULTIPLIER_LABELS[variant][0]),
        "multiplies": MULTIPLIER_LABELS[variant][1],
        "base_score": base_score,
        "coefficient": coefficient,
        "bid": max((b for b in (view.get("bids") or []) if b), default=None),
        "face_up": None
        if face_up is None
        else {"card": card_face(face_up["card"]), "name": names.get(face_up["seat"], "")},
        "marked": None if marked is None else card_face(marked),
        "partner_mode": partner_mode,
        "partner_mode_label": str(PARTNER_LABELS.get(partner_mode, "")) if partner_mode else "",
        "bottom": card_faces(bottom),
        "bombs": len(bombs),
        "grab_count": view.get("grab_count"),
        "waiting_names": [names[s] for s in sorted(waiting) if s in names],
    }


def with_status_before(public: dict[str, Any], before: dict[str, Any]) -> dict[str, Any]:
    """``public`` (a move's push's public context) with its status as the public view
    ``before`` the move showed it, the clock as it is now: rendered, the two differ in what the
    move changed of the status but its clock (games.screen.regions.render_push)."""
    status = public["status"]
    was = _status_panel(
        before,
        public["names"],
        bottom=_bottoms(before, None)[0],
        base_score=status["base_score"],
        coefficient=status["coefficient"],
    )
    return {**public, "status": {**status, **was}}


def _bottoms(view: dict[str, Any], state: HandState | None) -> tuple[Any, Any]:
    """(the bottom the status region shows, the bottom only the hand region shows)."""
    me = view.get("seat")
    # a bottom the landlord took face down is his alone: his hand region shows it, so that the
    # status region is the same for every viewer
    bottom = view.get("bottom")
    own_bottom = None
    if state is not None and not state.bottom_public and me == view.get("landlord"):
        bottom, own_bottom = None, bottom
    return bottom, own_bottom


# Each card of a hand at its place, as the hand region reads it: ``hand_faces``
_placed_faces: dict[tuple[str, int, str], dict[str, Any]] = {}


def hand_faces(text: str | None, language: str) -> tuple[dict[str, Any], ...]:
    """A seat's hand as card faces, each with the ``key`` that tells two equal cards apart.
    Each card at its place is made once per process and language and shared by every hand
    that holds it there (a few thousand at most), where each of a seat's contexts copied the
    faces of its whole hand. Read them, never change them."""
    if not text:
        return ()
    out = []
    for i, token in enumerate(text.split()):
        face = _placed_faces.get((token, i, language))
        if face is None:
            face = {**card_face(token, language), "key": f"{token}-{i}"}
            _placed_faces[(token, i, language)] = face
        out.append(face)
    return tuple(out)


def _own_hand(
    view: dict[str, Any], state: HandState | None, *, own_bottom: Any, hints: bool
) -> dict[str, Any]:
    """The hand region's facts: the view's own seat's cards (with the hint plays when
    ``hints``), its role, and what it knows of itself that the shared regions do not show."""
    me = view.get("seat")
    variant = view["variant"]
    phase = view.get("phase")
    hand_cards = hand_faces(view.get("hand"), get_language()) if me is not None else ()
    hint_plays = hint_plays_of(state, view) if hints else []
    my_role, my_role_badges = own_role(view)
    # what the seat knows of itself that the shared regions (the public view's) do not show:
    # its choice in a sealed step still open, a hidden solo it announced as a call
    my_pending: list[str] = []
    if (
        state is not None
        and me is not None
        and phase in flow_for(state.variant).simultaneous_phases
    ):
        shown = seat_decisions(seen_by(state, None), me)
        my_pending = [d for d in seat_decisions(view, me) if d not in shown]
    secret_solo = (
        state is not None
        and me is not None
        and me == view.get("landlord")
        and view.get("partner_mode") == "hidden_solo"
        and not state.revealed
    )
    return {
        "hand_cards": hand_cards,
        "my_role": my_role,
        "my_role_badges": my_role_badges,
        "my_pending": my_pending,
        "my_partner_mode": str(PARTNER_LABELS["hidden_solo"]) if secret_solo else "",
        "hand_rows": {
            screen: _row_length(len(hand_cards), most) for screen, most in ROW_CARDS.items()
        },
        "my_stake": stake_steps(variant, view["stake"]) if view.get("stake") else None,
        "partner_hand": card_faces(view.get("partner_hand")),
        "own_bottom": card_faces(own_bottom),
        **counter_context(view),
        "hints_json": json.dumps(hint_plays),
    }


def counter_context(view: dict[str, Any]) -> dict[str, Any]:
    """What the 记牌器 region reads, from its seat's view: all a push needs to build for a seat
    whose counter alone changed (``regions.SeatChange.COUNTER``)."""
    return {"counter": counter_columns(view["unseen"]) if "unseen" in view else None}


# The on-screen effect of a play that beats the table with a flourish (table.css, table.js):
# every bomb, the jokers' biggest, fenzhou5's chained bombs, a plane.
PLAY_EFFECTS = {
    "bomb": "bomb",
    "joker_bomb": "bomb",
    "rocket": "rocket",
    "nuke": "rocket",
    "chain_bomb": "chain",
    "missile": "chain",
    "multi_chain_bomb": "chain",
    "triple_chain": "plane",
    "plane_single": "plane",
    "plane_pair": "plane",
    "plane_bare": "plane",
}


# A phone (360–390 px) shows about 300 px of overlapped cards a row: at most 11 a row keeps
# the visible part of each card about 28 px wide or more, a target a thumb can tap.
PHONE_ROW_CARDS = 11
# A tablet (768 px) keeps up to 20 cards in one row; a bigger hand takes two overlapped rows,
# whose cards stay about 34 px apart instead of 18.
TABLET_ROW_CARDS = 20
# A phone on its side (667–932 px wide, 360–430 high) has the width and not the height: up to
# 24 cards in one row, about 25–33 px apart; a bigger hand takes two rows.
LANDSCAPE_ROW_CARDS = 24
# An upright phone under 620 px high (a 375x667 iPhone with Safari's bars shown) has no room
# for a fourth row of 38 cards, nor a third of 24: up to 13 a row, about 24 px apart.
SHORT_PHONE_ROW_CARDS = 13
# the hand's row length per screen, sent as --per-row-<key> (static/games/table.css picks one)
ROW_CARDS = {
    "m": PHONE_ROW_CARDS,
    "t": TABLET_ROW_CARDS,
    "l": LANDSCAPE_ROW_CARDS,
    "s": SHORT_PHONE_ROW_CARDS,
}


def _row_length(count: int, most: int) -> int:
    """Cards per row: as few rows as ``most`` a row allows, of even length."""
    rows = max(1, -(-count // most))
    return -(-count // rows)


def empty_context(*, seats: Sequence[SeatInfo], seat_count: int, me: int | None) -> dict[str, Any]:
    """A table between hands (or before the first): seats only."""
    rows = seat_rows(seats, seat_count)
    return {
        "view": None,
        "me": me,
        "spectator": me is None,
        "seat_count": seat_count,
        "seats": rows,
        "trick": [],
        "top": None,
        "hand_cards": [],
        "counter": None,
        "partner_hand": [],
        "hints_json": "[]",
        "my_turn": False,
        "move_version": None,
        "can_play": False,
        "can_pass": False,
        "choices": [],
        "finished": False,
        "status": None,
        "result": None,
        "in_hand": False,
        "version": 0,
    }


def table_context(
    *,
    snapshot: TableSnapshot,
    seat_index: int | None,
    user: Any,
    hints: bool = True,
    own_only: bool = False,
) -> dict[str, Any]:
    """The template context of the snapshot's table for one audience (a seat, or None for
    spectators). ``hints``: False leaves the hint plays out (``with_hints``). ``own_only``:
    the context of the audience's own regions alone (``SHARED_ONLY`` left out)."""
    table, hand = snapshot.table, snapshot.hand
    room = table.room
    infos, count = seat_infos(snapshot)
    # a player who sat down after the hand on screen was dealt is a player of the table (he
    # deals and leaves from here) but not of that hand: he sees it as a spectator does
    table_seat = seat_index
    # his balance as the snapshot read his seat's row (the socket's own user object dates
    # from its connect: a resync after a settlement would show the old balance)
    sitter = next((s.user for s in snapshot.seats if s.index == seat_index), None)
    purse = _purse(sitter, snapshot.titles) if seat_index is not None else None
    if hand is None:
        seat_count = count or find_variant(room.variant, **(room.options or {})).seats
        ctx = empty_context(seats=infos, seat_count=seat_count, me=seat_index)
    else:
        state = snapshot.state
        assert state is not None
        if seat_index is not None and not held_seat(snapshot.holders, seat_index, user):
            seat_index = None  # sat down after this hand was dealt: it is not his hand
        view = seen_by(state, seat_index)
        # the hand's own snapshot (a private table's host may change them for the next hand)
        turn = getattr(hand, "turn_seconds", None) or room.turn_seconds
        bid = getattr(hand, "bid_seconds", None) or room.bid_seconds
        seconds = turn if view.get("phase") == "play" else bid
        finished = getattr(hand, "status", "") == "finished" or state.finished
        deadline_at = getattr(hand, "deadline_at", None)
        started = getattr(hand, "decision_started_at", None)
        if state.phase in flow_for(state.variant).simultaneous_phases and started is not None:
            # an open step's clock as everybody knows it: the hand's own deadline comes
            # sooner once all asked have decided or when one of them drops, which would tell
            limit = decision_seconds(room, state, hand)
            deadline_at = started + datetime.timedelta(seconds=limit)
        ctx = screen_context(
            view=view,
            seats=infos,
            state=state if seat_index is not None else None,
            table_id=table.pk,
            hand_id=hand.pk,
            hand_number=getattr(hand, "number", None),
            version=state.public_version,
            deadline_at=deadline_at,
            seconds=seconds,
            base_score=state.stakes.base_score,
            coefficient=state.stakes.coefficient,
            commitment=getattr(hand, "commitment", ""),
            seed=getattr(hand, "seed", "") if finished else "",
            extras=snapshot.extras,
            now=snapshot.now,
            players=player_infos(snapshot),
            hints=hints,
            shared=not own_only,
        )
    ctx.update(
        {
            "table": table,
            "table_id": table.pk,
            "room": room,
            "hand": hand,
            "user": user,
            "table_status": getattr(table, "status", ""),
            "table_version": getattr(table, "version", 0),
            "seated": table_seat is not None,
            "all_seated": bool(infos) and all(info.name is not None for info in infos),
            "free_seats": [info.index for info in infos if info.name is None],
            "hand_over": hand is None or getattr(hand, "status", "") == "finished",
            "purse": purse,
        }
    )
    if hand is None:
        ctx["version"] = getattr(table, "version", 0)
    return ctx


def _purse(user: Any, titles: Sequence[Any]) -> dict[str, Any] | None:
    """A seated player's own beans and title (his user row as the snapshot read it: after a
    settlement, the push reads the seats again)."""
    if user is None or not getattr(user, "is_authenticated", False) or user.is_bot:
        return None
    return {"beans": user.beans, "title": title_name(titles, user.score)}
