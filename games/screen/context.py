"""The template context of the table screen for one audience, from a snapshot of the table
(games/reads/snapshot.py): pure, it reads no database.

Every card a template can show comes from the engine's ``view_for`` (a seated player) or
``public_view`` (a spectator) dict, never from the raw hand state, so a rendering can only
leak what the view already allows. The one addition is the list of hint plays of the seat
to act, built from ``legal_actions`` for that seat only: those are made of his own cards.
"""

from __future__ import annotations

import datetime
import json
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from django.utils import timezone
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from accounts.selectors import title_among
from games.engine.cards import parse_cards, ranks_of
from games.engine.combos import BOMB_KINDS, classify
from games.engine.flows import flow_for
from games.engine.hand import legal_actions
from games.engine.state import HandState
from games.engine.variants import find_variant
from games.engine.views import public_view, view_for
from games.reads.snapshot import HandExtras, ShownRating, TableSnapshot
from games.screen.labels import (
    AUTO_WIN_LABELS,
    MULTIPLIER_LABELS,
    PARTNER_LABELS,
    PHASE_LABELS,
    card_face,
    card_faces,
    cards_short,
    counter_columns,
    kind_label,
    role_label,
    stake_steps,
)
from games.table.stakes import decision_seconds

# what only the shared regions read of a context: a seat's own regions' context leaves it out
SHARED_ONLY = ("seats", "trick", "top")


MAX_HINTS = 400
# keys of ``screen_context(extras=...)`` consumed by the result panel
_EXTRA_KEYS = ("scores", "titles", "beans", "house")


# --------------------------------------------------------------------------- seats
@dataclass(frozen=True)
class SeatInfo:
    """Who sits where (from the Seat rows; nothing about cards)."""

    index: int
    name: str | None = None  # None for an empty seat
    title: str = ""
    is_bot: bool = False
    connected: bool = True
    leaving: bool = False
    rating: ShownRating | None = None  # the club's skill rating (games.table.hooks ratings_of)


def _seat_roles(view: dict[str, Any], seat: int) -> tuple[str | None, list[str]]:
    """(role key, role badges) of ``seat`` as the view's audience knows the others' roles. A
    role only its holder knows (a farmer of a hand whose partner is hidden) is not on his
    panel, which every audience that knows the same is sent alike, but in his hand region
    (``_own_role``)."""
    landlord = view.get("landlord")
    partner = view.get("partner")
    teams = view.get("teams") or {}
    role: str | None = None
    if landlord is None:
        return None, []
    if seat == landlord:
        role = "landlord"
    elif partner is not None and seat == partner:
        role = "partner"
    elif teams.get("complete") and seat in teams.get("farmer", []):
        role = "farmer"
    return role, _role_badges(view, role)


def _own_role(view: dict[str, Any]) -> tuple[str | None, list[str]]:
    """The role the view's seat knows it holds, with its badges."""
    role = view.get("role")
    return role, _role_badges(view, role)


def _role_badges(view: dict[str, Any], role: str | None) -> list[str]:
    if role is None:
        return []
    badges = [role_label(view["variant"], role)]
    if role == "landlord" and view.get("solo"):
        badges.append(str(_("Solo landlord")))  # 独地主
    return badges


def _seat_decisions(view: dict[str, Any], seat: int) -> list[str]:
    """Public decisions already made by ``seat`` in the steps before play."""
    notes: list[str] = []
    bids = view.get("bids")
    if bids and seat < len(bids) and bids[seat] is not None:
        notes.append(_("No bid") if bids[seat] == 0 else _("Bid %(n)s") % {"n": bids[seat]})
    if seat in (view.get("reveals") or []):
        notes.append(str(_("Revealed")))
    doubles = view.get("doubles")
    if doubles and seat < len(doubles) and doubles[seat]:
        notes.append(str(_("Doubled")))
    for grab in view.get("grabs") or []:
        if grab["seat"] == seat:
            notes.append(_("Grab %(card)s") % {"card": cards_short(grab["card"])})
    return notes


# --------------------------------------------------------------------------- views
# The views of each hand state built so far, by seat (None: the public view), kept while the
# state lives: a push reads each view of its state a few times (whose own regions changed,
# then their contexts), and the next move's push reads them again as its state before. A view
# is a pure function of the immutable state: nobody changes one, and a process that never
# built one builds it.
_seen: dict[int, dict[int | None, dict[str, Any]]] = {}


def seen_by(state: HandState, seat: int | None) -> dict[str, Any]:
    """``view_for(state, seat)``, or ``public_view(state)`` when ``seat`` is None, built once
    per state. Read it, never change it."""
    views = _seen.get(id(state))
    if views is None:
        views = _seen[id(state)] = {}
        weakref.finalize(state, _seen.pop, id(state), None)
    view = views.get(seat)
    if view is None:
        view = views[seat] = public_view(state) if seat is None else view_for(state, seat)
    return view


# --------------------------------------------------------------------------- context
def _deadline_iso(deadline: datetime.datetime | None) -> str:
    if deadline is None:
        return ""
    if timezone.is_naive(deadline):
        deadline = timezone.make_aware(deadline, datetime.UTC)
    return deadline.astimezone(datetime.UTC).isoformat()


def _hints(state: HandState | None, view: dict[str, Any]) -> list[str]:
    seat = view.get("seat")
    if (
        state is None
        or seat is None
        or view.get("phase") != "play"
        or "play" not in view.get("legal", [])
    ):
        return []
    plays = [a for a in legal_actions(state, seat) if a.act == "play" and a.cards]
    out = [a.to_json()["cards"] for a in plays]
    # weakest first within each group, bombs last (the engine order otherwise)
    kinds = {a.to_json()["cards"]: i for i, a in enumerate(plays)}
    out.sort(key=lambda text: (_is_bomb_text(state, text), kinds[text]))
    return out[:MAX_HINTS]


def _is_bomb_text(state: HandState, text: str) -> bool:
    readings = classify(state.variant, ranks_of(parse_cards(text)))
    return bool(readings) and all(r.is_bomb for r in readings)


def _choice_buttons(view: dict[str, Any]) -> list[dict[str, Any]]:
    """The phase buttons of the view's own seat: one form per choice (value as a string)."""
    out: list[dict[str, Any]] = []
    phase = view.get("phase")
    doubles = view.get("doubles") or []
    for choice in view.get("choices", []):
        act, value = choice["act"], choice.get("value")
        card = None
        style = "secondary"
        if act == "bid":
            label = (
                _("No bid")
                if value == 0
                else ngettext("%(n)s point", "%(n)s points", value) % {"n": value}
            )
            style = "secondary" if value == 0 else "primary"
        elif act == "reveal":
            label = _("Reveal identity") if value else _("Give up")  # 亮出身份 / 放弃
            style = "primary" if value else "secondary"
        elif act == "double":
            variant = find_variant(view["variant"], **(view.get("options") or {}))
            if flow_for(variant).doubles_in_turn and any(d for d in doubles if d):
                label = _("Follow the double") if value else _("Don't follow")  # 跟加倍 / 不跟
            else:
                label = _("Double") if value else _("Don't double")  # 加倍 / 不加倍
            style = "primary" if value else "secondary"
        elif act == "grab":
            if value is None:
                label = _("No grab")
            else:
                card = card_face(value)
                label = _("Grab with %(card)s") % {"card": card["short"]}
                style = "primary"
        elif act == "partner":
            label = str(PARTNER_LABELS.get(value, value))
            style = "primary" if value == "call_friend" else "secondary"
        elif act == "call":
            card = card_face(value)
            label = _("Call %(card)s") % {"card": card["label"]}
            style = "card"
        elif act == "show":
            label = _("Show my cards ×2") if value else _("Keep them hidden")  # 明牌 / 不明牌
            style = "primary" if value else "secondary"
        else:  # pragma: no cover - future acts
            label = f"{act} {value}"
        if isinstance(value, bool):
            wire = "true" if value else "false"
        elif value is None:
            wire = ""
        else:
            wire = str(value)
        out.append({"act": act, "value": wire, "label": label, "card": card, "style": style})
    if phase == "call":
        # the callable card values, deduplicated (a card picker)
        seen: set[str] = set()
        unique = []
        for button in out:
            if button["value"] not in seen:
                seen.add(button["value"])
                unique.append(button)
        out = unique
    return out


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
    counts = view.get("hand_counts") or [0] * n
    face_up = view.get("face_up")
    top = view.get("top")
    deadline = _deadline_iso(deadline_at) if not view.get("finished") else ""
    infos = {s.index: s for s in seats}

    played = {s.index: s for s in players} if players else infos
    names = {
        seat: (played[seat].name if seat in played else None) or _("Seat %(n)s") % {"n": seat + 1}
        for seat in range(n)
    }
    shared_parts: dict[str, Any] = {}
    if shared:
        shared_parts["seats"] = seat_panels(view, seats, deadline=deadline)
        shared_parts["trick"] = [
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
        ]
        shared_parts["top"] = None
        if top is not None:
            shared_parts["top"] = {
                "seat": top["seat"],
                "name": names.get(top["seat"], ""),
                "cards": card_faces(top["cards"]),
                "kind": kind_label(variant, top["kind"], top["cards"]),
                "bomb": top["kind"] in BOMB_KINDS,
                "effect": PLAY_EFFECTS.get(top["kind"], ""),
            }
    phase = view.get("phase")
    legal = view.get("legal") or []
    my_turn = bool(me is not None and me in waiting and not view.get("finished") and legal)
    hand_cards = card_faces(view.get("hand")) if me is not None else []
    for i, card in enumerate(hand_cards):
        card["key"] = f"{card['code']}-{i}"
    hint_plays = _hints(state, view) if my_turn and hints else []
    my_role, my_role_badges = _own_role(view)
    # what the seat knows of itself that the shared regions (the public view's) do not show:
    # its choice in a sealed step still open, a hidden solo it announced as a call
    my_pending: list[str] = []
    if (
        state is not None
        and me is not None
        and phase in flow_for(state.variant).simultaneous_phases
    ):
        shown = _seat_decisions(seen_by(state, None), me)
        my_pending = [d for d in _seat_decisions(view, me) if d not in shown]
    secret_solo = (
        state is not None
        and me is not None
        and me == view.get("landlord")
        and view.get("partner_mode") == "hidden_solo"
        and not state.revealed
    )
    # a bottom the landlord took face down is his alone: his hand region shows it, so that the
    # status region is the same for every viewer
    bottom = view.get("bottom")
    own_bottom = None
    if state is not None and not state.bottom_public and me == view.get("landlord"):
        bottom, own_bottom = None, bottom

    plays = view.get("plays") or []
    bombs = [p for p in plays if p["kind"] in BOMB_KINDS]
    result = None
    raw = view.get("result")
    extras = extras or {}
    if raw is not None:
        winners = set((view.get("teams") or {}).get(view.get("winner_side") or "", []))
        score_moves = extras.get("scores") or [_round_half_up(Fraction(u)) for u in raw["units"]]
        titles = extras.get("titles") or [None] * n
        beans = extras.get("beans") or raw["beans"]
        house = extras.get("house", raw["house"])
        final_hands = view.get("final_hands") or []
        stakes = view.get("stakes") or []
        effects = view.get("bomb_effects") or {}
        # who emptied his hand, in the order they did (the order of their last plays)
        last_play = {p["seat"]: i for i, p in enumerate(plays)}
        out_order = sorted(
            (s for s in range(n) if s < len(counts) and counts[s] == 0 and s in last_play),
            key=last_play.__getitem__,
        )
        rows = []
        for seat in range(n):
            info = played.get(seat, SeatInfo(index=seat))
            units = Fraction(raw["units"][seat])
            role, badges = _seat_roles(view, seat)
            title_change = titles[seat] if seat < len(titles) else None
            rows.append(
                {
                    "index": seat,
                    "name": names.get(seat, ""),
                    "is_bot": info.is_bot,
                    "is_you": seat == me,
                    "role": role,
                    "role_badges": badges,
                    "winner": seat in winners,
                    "units": _fmt_fraction(units),
                    "units_sign": (units > 0) - (units < 0),
                    "beans": beans[seat] if seat < len(beans) else 0,
                    "score": None if info.is_bot else score_moves[seat],
                    "left": card_faces(final_hands[seat]) if seat < len(final_hands) else [],
                    "out_first": bool(out_order) and seat == out_order[0],
                    "stake": stake_steps(variant, stakes[seat]) if seat < len(stakes) else None,
                    "title_before": title_change[0] if title_change else None,
                    "title_after": title_change[1] if title_change else None,
                }
            )
        result = {
            "rows": rows,
            "house": house,
            "multiplier": raw["multiplier"],
            "multiplier_label": str(MULTIPLIER_LABELS[variant][0]),
            "multiplies": MULTIPLIER_LABELS[variant][1],
            "spring": raw.get("spring"),
            "anti_spring": raw.get("anti_spring"),
            # the bombs that changed the stakes, with what each did (§3.5: a qq5 4炸 does not
            # double; new5's stake is its grabs'): the others are only counted
            "bombs": [
                {
                    "name": names.get(p["seat"], ""),
                    "kind": kind_label(variant, p["kind"], p["cards"]),
                    "cards": card_faces(p["cards"]),
                    "effect": _effect(effects[str(i)]),
                }
                for i, p in enumerate(plays)
                if str(i) in effects
            ],
            "idle_bombs": len(bombs) - len(effects),
            "winner_side": view.get("winner_side"),
            "first_out": names[out_order[0]] if out_order else "",
            "auto_win": str(AUTO_WIN_LABELS.get(view["auto_win"], ""))
            if view.get("auto_win")
            else "",
            "you_won": me is not None and me in winners,
        }
    marked = view.get("marked_card")
    partner_mode = view.get("partner_mode")
    status = {
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
        "deadline": deadline,
        "now": _deadline_iso(now or timezone.now()),
        "seconds": seconds,
        "bombs": len(bombs),
        "grab_count": view.get("grab_count"),
        "waiting_names": [names[s] for s in sorted(waiting) if s in names],
    }
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
        **shared_parts,
        "leading": my_turn and phase == "play" and top is None,
        "hand_cards": hand_cards,
        "my_role": my_role,
        "my_role_badges": my_role_badges,
        "my_pending": my_pending,
        "my_partner_mode": str(PARTNER_LABELS["hidden_solo"]) if secret_solo else "",
        "hand_rows_m": _row_length(len(hand_cards), PHONE_ROW_CARDS),
        "hand_rows_t": _row_length(len(hand_cards), TABLET_ROW_CARDS),
        "my_stake": stake_steps(variant, view["stake"]) if view.get("stake") else None,
        "partner_hand": card_faces(view.get("partner_hand")),
        "own_bottom": card_faces(own_bottom),
        "counter": counter_columns(view["unseen"]) if "unseen" in view else None,
        "hints_json": json.dumps(hint_plays),
        "my_turn": my_turn,
        # the version a move made on these controls names: only the seat to move reads it, so
        # the controls of the others stay the same rendering from one version to the next
        "move_version": version if my_turn else None,
        "can_play": my_turn and "play" in legal,
        "can_pass": my_turn and "pass" in legal,
        # 要不起: following, and nothing in his hand beats the top play: Pass is all he can do
        "cant_beat": my_turn and phase == "play" and "pass" in legal and "play" not in legal,
        "choices": _choice_buttons(view) if my_turn else [],
        "autoplay_on": bool(view.get("autoplay_on")),
        "finished": bool(view.get("finished")),
        "status": status,
        "result": result,
        "redeal": phase == "redeal",
        "commitment": commitment,
        "seed": seed if view.get("finished") else "",
        "in_hand": True,
        **{k: v for k, v in extras.items() if k not in _EXTRA_KEYS},
    }


def seat_panels(
    view: dict[str, Any], seats: Sequence[SeatInfo], *, deadline: str
) -> list[dict[str, Any]]:
    """Each seat's panel as ``view``'s audience sees it in a hand: its occupant, cards left,
    roles, decisions, last play, and ``deadline`` (an ISO time or "") on the seats to act."""
    n = view["seats"]
    waiting = set(view.get("waiting") or [])
    autoplay = view.get("autoplay") or [False] * n
    reports = view.get("reports") or {}
    shown = card_faces(view.get("shown_hand"))  # 明牌: the landlord's hand, face up to all
    counts = view.get("hand_counts") or [0] * n
    face_up = view.get("face_up")
    trick_by_seat = {entry["seat"]: entry for entry in view.get("trick") or []}
    top = view.get("top")

    def in_play(seat: int) -> dict[str, Any]:
        role, badges = _seat_roles(view, seat)
        last = trick_by_seat.get(seat)
        return {
            "count": counts[seat] if seat < len(counts) else 0,
            "role": role,
            "role_badges": badges,
            "landlord_side": role in ("landlord", "partner"),
            "autoplay": bool(autoplay[seat]) if seat < len(autoplay) else False,
            "report": reports.get(str(seat)),
            "shown": shown if seat == view.get("landlord") else [],
            "waiting": seat in waiting and not view.get("finished"),
            # the clock shows on the seats to act only; the others' panels stay the same
            "deadline": deadline if seat in waiting else "",
            "decisions": _seat_decisions(view, seat),
            "face_up_holder": face_up is not None and face_up.get("seat") == seat,
            "last": None
            if last is None
            else {"passed": last["cards"] is None, "cards": card_faces(last["cards"])},
            "is_top": top is not None and top["seat"] == seat,
        }

    return _seat_rows(seats, n, in_play)


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


def _row_length(count: int, most: int) -> int:
    """Cards per row: as few rows as ``most`` a row allows, of even length."""
    rows = max(1, -(-count // most))
    return -(-count // rows)


def _effect(term: dict[str, Any]) -> str:
    return f"+{term['value']}" if term["op"] == "+" else f"×{term['value']}"


def _round_half_up(value: Fraction) -> int:
    sign = -1 if value < 0 else 1
    return sign * int(abs(value) + Fraction(1, 2))


def _fmt_fraction(value: Fraction) -> str:
    if value.denominator == 1:
        return f"{value.numerator:+d}"
    return f"{float(value):+.1f}"


def _seat_rows(
    seats: Sequence[SeatInfo],
    n: int,
    in_play: Callable[[int], dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """Each seat's panel, in seat order whoever looks: the page places them (the viewer's at
    the bottom) from the hand region's ``data-pov``, so every audience that knows the same of
    the seats is sent the same panels. ``in_play(seat)``: what a hand in play adds (cards left,
    roles, last play, the clock)."""
    infos = {s.index: s for s in seats}
    rows = []
    for seat in range(n):
        info = infos.get(seat, SeatInfo(index=seat))
        rows.append(
            {
                "index": seat,
                "number": seat + 1,
                # its fields as a plain dict: the rendering memo serialises a dict in about
                # 60 % of the time it takes for the dataclass (it keys every seat panel by it)
                "info": vars(info),
                "empty": info.name is None,
                "count": None,
                "role": None,
                "role_badges": [],
                "landlord_side": False,
                "autoplay": False,
                "report": None,
                "shown": [],
                "waiting": False,
                "deadline": "",
                "decisions": [],
                "face_up_holder": False,
                "last": None,
                "is_top": False,
                **(in_play(seat) if in_play is not None else {}),
            }
        )
    return rows


def empty_context(*, seats: Sequence[SeatInfo], seat_count: int, me: int | None) -> dict[str, Any]:
    """A table between hands (or before the first): seats only."""
    rows = _seat_rows(seats, seat_count)
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


# --------------------------------------------------------------------------- a snapshot's seats
def seat_infos(snapshot: TableSnapshot) -> tuple[list[SeatInfo], int]:
    """Who sits where, in the active language, and how many seats the table has (built once
    per language and snapshot: a push renders one snapshot for every audience)."""
    return snapshot.remembered(
        ("seat_infos", get_language()),
        lambda: _seat_infos(snapshot.seats, snapshot.titles, snapshot.ratings),
    )


def _seat_infos(
    rows: Sequence[Any], titles: Sequence[Any], ratings: dict[int, Any]
) -> tuple[list[SeatInfo], int]:
    infos = []
    for row in rows:
        u = row.user
        bot = bool(row.is_bot or (u is not None and getattr(u, "is_bot", False)))
        if u is None and not bot:
            infos.append(SeatInfo(index=row.index))
            continue
        if bot:
            name = u.username if u is not None else _("Bot %(n)s") % {"n": row.index + 1}
            title = ""
        else:
            name = u.username
            title = _title_name(titles, u.score)
        infos.append(
            SeatInfo(
                index=row.index,
                name=name,
                title=title,
                is_bot=bot,
                rating=None if bot else ratings.get(u.pk),
                connected=row.disconnected_at is None or bot
                if hasattr(row, "disconnected_at")
                else True,
                leaving=bool(getattr(row, "sit_out_after_hand", False)),
            )
        )
    return infos, len(rows)


def _title_name(titles: Sequence[Any], score: int) -> str:
    title = title_among(titles, score)
    return str(title) if title is not None else ""


def player_infos(snapshot: TableSnapshot) -> list[SeatInfo]:
    """Who played each seat of the hand, under the name he played it (empty when the hand has
    no player record): a seat's occupant now may be someone else, or nobody."""
    seated = {
        s.user_id: (s.user.username, bool(s.user.is_bot))
        for s in snapshot.seats
        if s.user is not None
    }
    out = []
    for seat, user_id in sorted(snapshot.holders.items()):
        if user_id is None:
            out.append(SeatInfo(index=seat, name=_("Bot %(n)s") % {"n": seat + 1}, is_bot=True))
            continue
        name, is_bot = seated.get(user_id) or snapshot.departed.get(user_id) or ("", False)
        out.append(SeatInfo(index=seat, name=name or None, is_bot=is_bot))
    return out


def held_seat(holders: dict[int, int | None], seat_index: int, user: Any) -> bool:
    """Whether ``user`` held ``seat_index`` in the hand (True when there is no player record,
    e.g. a hand built outside the services)."""
    if seat_index not in holders:
        return True
    holder = holders[seat_index]
    return user is not None and holder is not None and holder == getattr(user, "pk", None)


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
    return {"beans": user.beans, "title": _title_name(titles, user.score)}


def with_hints(ctx: dict[str, Any], state: HandState | None) -> dict[str, Any]:
    """``ctx`` (built with ``hints=False``) with the hint plays of its seat."""
    if not ctx.get("my_turn") or ctx.get("view") is None:
        return ctx
    return {**ctx, "hints_json": json.dumps(_hints(state, ctx["view"]))}
