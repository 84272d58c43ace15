"""The table screen: template context and rendered regions for one audience.

Every card a template can show comes from the engine's ``view_for`` (a seated player) or
``public_view`` (a spectator) dict, never from the raw hand state, so a rendering can only
leak what the view already allows. The one addition is the list of hint plays of the seat
to act, built from ``legal_actions`` for that seat only: those are made of his own cards.

``render_table_regions`` returns every region partial concatenated; each partial's root has
a stable id and ``hx-swap-oob="true"``, so the htmx websocket extension swaps each one in by
id. The same partials make up the full page (templates/games/table.html).
"""

from __future__ import annotations

import datetime
import json
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import partial
from typing import Any

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.translation import get_language, gettext_lazy, ngettext
from django.utils.translation import gettext as _

from games.engine.cards import parse_cards, ranks_of
from games.engine.combos import BOMB_KINDS, classify
from games.engine.flows import flow_for
from games.engine.hand import legal_actions
from games.engine.state import HandState
from games.engine.variants import find_variant
from games.engine.views import public_view, view_for

# Shared regions are rendered from the public view for everyone reading a language; a seat's own
# regions from its view, for it alone (a spectator's from the public view).
SHARED_REGIONS = ("status", "seats", "trick")
OWN_REGIONS = ("hand", "controls", "result")
REGIONS = (*SHARED_REGIONS, *OWN_REGIONS)
# what only the shared regions read of a context: a seat's own regions' context leaves it out
SHARED_ONLY = ("seats", "trick", "top")
# a move's shared regions: the seat panels it changed (swapped in by id) instead of all of them
MOVE_REGIONS = ("status", "seat_panels", "trick")

SUIT_SYMBOLS = {"s": "♠", "h": "♥", "c": "♣", "d": "♦"}
SUIT_NAMES = {
    "s": gettext_lazy("spades"),
    "h": gettext_lazy("hearts"),
    "c": gettext_lazy("clubs"),
    "d": gettext_lazy("diamonds"),
}
RANK_LABELS = {"T": "10"}

# Role names per variant (presentation data, not rules): main landlord, partner, farmer.
ROLE_LABELS: dict[str, dict[str, Any]] = {
    "qq5": {
        "landlord": gettext_lazy("Open landlord"),  # 明地主
        "partner": gettext_lazy("Hidden landlord"),  # 暗地主
    },
    "new5": {
        "landlord": gettext_lazy("Main landlord"),  # 正地主
        "partner": gettext_lazy("Deputy landlord"),  # 副地主
    },
    "classic3": {
        "landlord": gettext_lazy("Landlord"),  # 地主
        "partner": gettext_lazy("Landlord"),
    },
    "fenzhou5": {
        "landlord": gettext_lazy("Landlord"),  # 地主
        "partner": gettext_lazy("Henchman"),  # 狗腿子
    },
}

PHASE_LABELS = {
    "deal": gettext_lazy("Dealing"),
    "bid": gettext_lazy("Bidding"),
    "grab": gettext_lazy("Grabbing the landlord"),
    "reveal": gettext_lazy("Identity step"),
    "double": gettext_lazy("Doubling"),
    "partner": gettext_lazy("Partner choice"),
    "call": gettext_lazy("Calling a card"),
    "play": gettext_lazy("Play"),
    "finished": gettext_lazy("Hand over"),
    "redeal": gettext_lazy("Everyone passed: redeal"),
}

KIND_LABELS = {
    "single": gettext_lazy("Single"),
    "pair": gettext_lazy("Pair"),
    "triple": gettext_lazy("Triple"),
    "triple_single": gettext_lazy("Triple with a single"),
    "triple_pair": gettext_lazy("Triple with a pair"),
    "straight": gettext_lazy("Straight"),
    "pair_chain": gettext_lazy("Pair chain"),
    "triple_chain": gettext_lazy("Triple chain"),
    "plane_single": gettext_lazy("Plane with singles"),
    "plane_pair": gettext_lazy("Plane with pairs"),
    "plane_bare": gettext_lazy("Plane"),
    "four_two_singles": gettext_lazy("Four with two singles"),
    "four_two_pairs": gettext_lazy("Four with two pairs"),
    "bomb": gettext_lazy("Bomb"),
    "joker_bomb": gettext_lazy("Joker bomb"),
    "rocket": gettext_lazy("Rocket"),
    "chain_bomb": gettext_lazy("Chain bomb"),
    "missile": gettext_lazy("Missile"),
    "multi_chain_bomb": gettext_lazy("Multi-chain bomb"),
    "nuke": gettext_lazy("Nuke"),
}

# A variant's own word for a kind where it differs from the common one, by the top joker of
# the play: fenzhou5's joker_bomb is a pair of one joker (对大王 / 对小王), and RULES keeps
# 王炸 for its four-joker 核弹.
VARIANT_KIND_LABELS = {
    "fenzhou5": {
        "joker_bomb": {
            "BJ": gettext_lazy("Pair of big jokers"),  # 对大王
            "SJ": gettext_lazy("Pair of small jokers"),  # 对小王
        },
    },
}


def kind_label(variant: str, kind: str, cards: str) -> str:
    """The name of a play of ``kind`` made of ``cards`` in ``variant``'s words."""
    own = VARIANT_KIND_LABELS.get(variant, {}).get(kind)
    if own is not None:
        return str(own["BJ" if "BJ" in cards.split() else "SJ"])
    return str(KIND_LABELS.get(kind, kind))


# What each variant calls the number its status line shows (flows' current_multiplier), and
# whether it multiplies (×2) or is a count of points (fenzhou5's unit u = 1 + bonuses, §6.7).
MULTIPLIER_LABELS: dict[str, tuple[Any, bool]] = {
    "qq5": (gettext_lazy("Multiplier"), True),
    "new5": (gettext_lazy("Multiple"), True),  # 倍数 D: the grabs, doubled by 明独打
    "classic3": (gettext_lazy("Multiplier"), True),
    "fenzhou5": (gettext_lazy("Points"), False),  # 分
}

# The steps of a seat's stake (games.engine.flows.StakeTerm keys), in the players' words.
STAKE_WORDS = {
    "bid": gettext_lazy("bid %(v)s"),
    "double": gettext_lazy("doubled ×2"),
    "reveal": gettext_lazy("revealed ×2"),
    "spring": gettext_lazy("spring ×2"),
    "anti_spring": gettext_lazy("anti-spring ×2"),
    "cap": gettext_lazy("capped at %(v)s"),
    "farmers": gettext_lazy("the farmers' stakes, %(v)s"),
    "share": gettext_lazy("share ×%(v)s"),
    "grabs": gettext_lazy("grabs: %(v)s"),
    "open_solo": gettext_lazy("open solo ×2"),
    "city": gettext_lazy("city scheme: 2 to that power"),
    "unit": gettext_lazy("1 point"),
}
STAKE_COUNTED_WORDS = {
    "bombs": (gettext_lazy("a bomb ×2"), gettext_lazy("%(n)s bombs ×%(f)s")),
    "doubles": (gettext_lazy("a double ×2"), gettext_lazy("%(n)s doubles ×%(f)s")),
}


def _number(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"


def stake_steps(variant: str, terms: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """A seat's stake (the engine's terms) as the words of each step and the units they come
    to: "bid 3 · 2 bombs ×4 · doubled ×2" → 24."""
    from games.engine.flows import StakeTerm, stake_units

    steps = []
    parsed = []
    for raw in terms:
        term = StakeTerm(raw["key"], Fraction(raw["value"]), raw["op"], raw["count"])
        parsed.append(term)
        v, n = _number(term.value), term.count
        if term.key in STAKE_COUNTED_WORDS:
            one, many = STAKE_COUNTED_WORDS[term.key]
            text = str(one) if n == 1 else str(many) % {"n": n, "f": _number(term.value**n)}
        elif term.op == "+":  # fenzhou5's bonus per kind of bomb (§6.7)
            kind = kind_label(variant, term.key, "")
            text = f"{kind} +{v}" if n == 1 else f"{n}× {kind} +{_number(term.value * n)}"
        else:
            text = str(STAKE_WORDS.get(term.key, term.key)) % {"v": v}
        steps.append(text)
    return {"steps": steps, "units": _number(stake_units(tuple(parsed)))}


PARTNER_LABELS = {
    "open_solo": gettext_lazy("Open solo"),  # 明独打
    "hidden_solo": gettext_lazy("Hidden solo"),  # 暗独打
    "call_friend": gettext_lazy("Call a friend"),  # 叫朋友
}

AUTO_WIN_LABELS = {
    "no_partner_card": gettext_lazy("the landlord holds no card twice: no partner can be called"),
    "ten_of_a_rank": gettext_lazy("the landlord holds ten cards of one rank"),
    "no_bomb": gettext_lazy("the landlord holds no bomb"),
}

MAX_HINTS = 400
# keys of ``screen_context(extras=...)`` consumed by the result panel
_EXTRA_KEYS = ("scores", "titles", "beans", "house")


# --------------------------------------------------------------------------- cards
_faces: dict[tuple[str, str | None], dict[str, Any]] = {}


def card_face(token: str, language: str | None = None) -> dict[str, Any]:
    """One card of §8.1 suited notation ("9h", "Ts", "SJ", "BJ") as template data (a fresh
    dict: callers add keys; the translated labels are kept per ``language``, the active one
    by default)."""
    key = (token, language or get_language())
    face = _faces.get(key)
    if face is None:
        face = _faces[key] = _card_face(token)
    return dict(face)


def _card_face(token: str) -> dict[str, Any]:
    if token in ("SJ", "BJ"):
        big = token == "BJ"
        return {
            "code": token,
            "joker": True,
            "big": big,
            "red": big,
            "rank": _("JOKER"),
            "suit": "",
            "label": _("Big joker") if big else _("Small joker"),
            "short": _("Big joker") if big else _("Small joker"),
        }
    rank, suit = token[:-1], token[-1]
    rank_label = RANK_LABELS.get(rank, rank)
    symbol = SUIT_SYMBOLS.get(suit, "")
    return {
        "code": token,
        "joker": False,
        "big": False,
        "red": suit in ("h", "d"),
        "rank": rank_label,
        "suit": symbol,
        "label": _("%(rank)s of %(suit)s") % {"rank": rank_label, "suit": SUIT_NAMES[suit]},
        "short": f"{symbol}{rank_label}",
    }


def card_faces(text: str | None) -> list[dict[str, Any]]:
    if not text:
        return []
    language = get_language()
    return [card_face(token, language) for token in text.split()]


def _cards_short(text: str | None) -> str:
    return " ".join(c["short"] for c in card_faces(text))


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


def _role_label(variant: str, role: str) -> str:
    if role == "farmer":
        return str(_("Farmer"))
    return str(ROLE_LABELS.get(variant, ROLE_LABELS["classic3"])[role])


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
    badges = [_role_label(view["variant"], role)]
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
            notes.append(_("Grab %(card)s") % {"card": _cards_short(grab["card"])})
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
    extras: dict[str, Any] | None = None,
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
            "auto_win": str(AUTO_WIN_LABELS.get(view.get("auto_win"), ""))
            if view.get("auto_win")
            else "",
            "you_won": me is not None and me in winners,
        }
    marked = view.get("marked_card")
    partner_mode = view.get("partner_mode")
    status = {
        "phase": phase,
        "phase_label": str(PHASE_LABELS.get(phase, phase)),
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
        "hand_rows_m": _phone_row(len(hand_cards)),
        "my_stake": stake_steps(variant, view["stake"]) if view.get("stake") else None,
        "partner_hand": card_faces(view.get("partner_hand")),
        "own_bottom": card_faces(own_bottom),
        "hints_json": json.dumps(hint_plays),
        "my_turn": my_turn,
        # the version a move made on these controls names: only the seat to move reads it, so
        # the controls of the others stay the same rendering from one version to the next
        "move_version": version if my_turn else None,
        "can_play": my_turn and "play" in legal,
        "can_pass": my_turn and "pass" in legal,
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


# A phone (360–390 px) shows about 300 px of overlapped cards a row: at most 11 a row keeps
# the visible part of each card about 28 px wide or more, a target a thumb can tap.
PHONE_ROW_CARDS = 11


def _phone_row(count: int) -> int:
    """Cards per row on a phone: as few rows as PHONE_ROW_CARDS allows, of even length."""
    rows = max(1, -(-count // PHONE_ROW_CARDS))
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


# --------------------------------------------------------------------------- models
@dataclass
class TableSnapshot:
    """What every audience of one table state is rendered from, read once: the seats with
    their users, who held each seat of the hand, the hand's state and result extras, and one
    clock reading. A push builds one snapshot for all its audiences (a handful of queries in
    all); a single rendering builds its own."""

    table: Any
    hand: Any
    seats: list[Any]
    holders: dict[int, int | None]
    state: HandState | None
    extras: dict[str, Any]
    now: datetime.datetime
    # user id -> (name, is a bot) of the hand's players who no longer sit at the table
    departed: dict[int, tuple[str, bool]] = field(default_factory=dict)
    # the hand's state before the writes this snapshot shows (their service had it): a push
    # sends a seat its own regions only when they changed. None: unknown, every seat is sent
    # its own regions.
    before: HandState | None = None
    # language -> the seat panels' facts (their titles are translated), built once per push
    _infos: dict[str, tuple[list[SeatInfo], int]] = field(default_factory=dict, repr=False)

    def seat_infos(self) -> tuple[list[SeatInfo], int]:
        """Who sits where, in the active language, and how many seats the table has."""
        language = get_language()
        if language not in self._infos:
            self._infos[language] = _seat_infos(self.seats)
        return self._infos[language]

    def player_infos(self) -> list[SeatInfo]:
        """Who played each seat of the hand, under the name he played it (empty when the hand
        has no player record): a seat's occupant now may be someone else, or nobody."""
        seated = {
            s.user_id: (s.user.username, bool(s.user.is_bot))
            for s in self.seats
            if s.user is not None
        }
        out = []
        for seat, user_id in sorted(self.holders.items()):
            if user_id is None:
                out.append(SeatInfo(index=seat, name=_("Bot %(n)s") % {"n": seat + 1}, is_bot=True))
                continue
            name, is_bot = seated.get(user_id) or self.departed.get(user_id) or ("", False)
            out.append(SeatInfo(index=seat, name=name or None, is_bot=is_bot))
        return out


def table_snapshot(
    *,
    table: Any,
    hand: Any,
    seats: Sequence[Any] | None = None,
    holders: dict[int, int | None] | None = None,
    state: HandState | None = None,
    before: HandState | None = None,
) -> TableSnapshot:
    """The snapshot of ``table`` and its current ``hand``; what the caller already holds
    (the seats with their users, who held each seat of the hand, the hand's state: a service
    that has just written them) is not read again."""
    from games.models import Seat

    if seats is None:
        seats = Seat.objects.filter(table=table).select_related("user").order_by("index")
    extras: dict[str, Any] = {}
    if hand is None:
        holders, state = {}, None
    else:
        if holders is None:
            from games.reads.selectors import hand_holders

            holders = {}
            for seat, user_id in hand_holders(hand=hand):
                holders.setdefault(seat, user_id)
        if state is None:
            state = _hand_state(hand)
        extras = _hand_extras(hand)
    seats = list(seats)
    return TableSnapshot(
        table=table,
        hand=hand,
        seats=seats,
        holders=holders,
        state=state,
        extras=extras,
        now=timezone.now(),
        departed=_departed(holders, seats),
        before=before if hand is not None else None,
    )


def _departed(holders: dict[int, int | None], seats: Sequence[Any]) -> dict[int, tuple[str, bool]]:
    """(name, is a bot) of the hand's players who have left their seats since (read only when
    someone has: a hand in play keeps its players seated)."""
    gone = {u for u in holders.values() if u is not None} - {s.user_id for s in seats}
    if not gone:
        return {}
    from accounts.models import User

    rows = User.objects.filter(pk__in=gone).values_list("pk", "username", "is_bot")
    return {pk: (name, is_bot) for pk, name, is_bot in rows}


def _seat_infos(rows: Sequence[Any]) -> tuple[list[SeatInfo], int]:
    from accounts.selectors import title_for

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
            title_obj = title_for(u.score)
            title = str(title_obj) if title_obj is not None else ""
        infos.append(
            SeatInfo(
                index=row.index,
                name=name,
                title=title,
                is_bot=bot,
                connected=row.disconnected_at is None or bot
                if hasattr(row, "disconnected_at")
                else True,
                leaving=bool(getattr(row, "sit_out_after_hand", False)),
            )
        )
    return infos, len(rows)


def _hand_state(hand: Any) -> HandState:
    try:
        from games.reads import selectors

        return selectors.hand_state(hand)  # type: ignore[attr-defined]
    except (ImportError, AttributeError):
        from games.engine.record import replay

        return replay(hand.record)


def _held_seat(holders: dict[int, int | None], seat_index: int, user: Any) -> bool:
    """Whether ``user`` held ``seat_index`` in the hand (True when there is no player record,
    e.g. a hand built outside the services)."""
    if seat_index not in holders:
        return True
    holder = holders[seat_index]
    return user is not None and holder is not None and holder == getattr(user, "pk", None)


def _hand_extras(hand: Any) -> dict[str, Any]:
    """Score and title moves from the finished hand's result JSON (games.services stores
    ``scores`` per seat and ``titles_before`` / ``titles_after`` as Title ids)."""
    result = getattr(hand, "result", None) or {}
    out: dict[str, Any] = {}
    if not isinstance(result, dict):
        return out
    if isinstance(result.get("scores"), list):
        out["scores"] = result["scores"]
    # the ledger's settlement (balances and bots applied) wins over the engine's figures
    if isinstance(result.get("beans"), list) and result["beans"]:
        out["beans"] = result["beans"]
    if isinstance(result.get("house"), int):
        out["house"] = result["house"]
    before, after = result.get("titles_before"), result.get("titles_after")
    if isinstance(before, list) and isinstance(after, list):
        from accounts.models import Title
        from accounts.selectors import title_ladder

        ids = {i for i in (*before, *after) if i is not None}
        ladder = {t.pk: t for t in title_ladder()}
        if not ids <= ladder.keys():  # a title added since the ladder was read
            ladder = {t.pk: t for t in Title.objects.filter(pk__in=ids)}
        names = {pk: str(ladder[pk]) for pk in ids if pk in ladder}
        out["titles"] = [
            (names.get(b), names.get(a)) if b is not None and a is not None else None
            for b, a in zip(before, after, strict=False)
        ]
    return out


def table_context(
    *,
    table: Any,
    hand: Any,
    seat_index: int | None,
    user: Any,
    snapshot: TableSnapshot | None = None,
    hints: bool = True,
    own_only: bool = False,
) -> dict[str, Any]:
    """The template context of ``table`` for one audience (a seat, or None for spectators).
    ``snapshot``: the reads shared by every audience of this state (read here when None).
    ``hints``: False leaves the hint plays out (``with_hints``). ``own_only``: the context of
    the audience's own regions alone (``SHARED_ONLY`` left out)."""
    if snapshot is None:
        snapshot = table_snapshot(table=table, hand=hand)
    room = table.room
    infos, count = snapshot.seat_infos()
    # a player who sat down after the hand on screen was dealt is a player of the table (he
    # deals and leaves from here) but not of that hand: he sees it as a spectator does
    table_seat = seat_index
    # his balance as the snapshot read his seat's row (the socket's own user object dates
    # from its connect: a resync after a settlement would show the old balance)
    sitter = next((s.user for s in snapshot.seats if s.index == seat_index), None)
    purse = _purse(sitter) if seat_index is not None else None
    if hand is None:
        seat_count = count or find_variant(room.variant, **(room.options or {})).seats
        ctx = empty_context(seats=infos, seat_count=seat_count, me=seat_index)
    else:
        state = snapshot.state
        assert state is not None
        if seat_index is not None and not _held_seat(snapshot.holders, seat_index, user):
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
            from games.services import decision_seconds

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
            players=snapshot.player_infos(),
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


def _purse(user: Any) -> dict[str, Any] | None:
    """A seated player's own beans and title (his user row as the snapshot read it: after a
    settlement, the push reads the seats again)."""
    if user is None or not getattr(user, "is_authenticated", False) or user.is_bot:
        return None
    from accounts.selectors import title_for

    title = title_for(user.score)
    return {"beans": user.beans, "title": str(title) if title is not None else ""}


def with_hints(ctx: dict[str, Any], state: HandState | None) -> dict[str, Any]:
    """``ctx`` (built with ``hints=False``) with the hint plays of its seat."""
    if not ctx.get("my_turn") or ctx.get("view") is None:
        return ctx
    return {**ctx, "hints_json": json.dumps(_hints(state, ctx["view"]))}


def render_regions(ctx: dict[str, Any], *, oob: bool = True) -> str:
    """Every region from one context (a screen of one view: the tests' and the states' pages)."""
    return _render_names(ctx, REGIONS, oob=oob)


def _render_names(
    ctx: dict[str, Any], names: Sequence[str], *, oob: bool = True, request: Any = None
) -> str:
    ctx = {**ctx, "oob": oob}
    return "".join(
        render_to_string(f"games/table/{name}.html", ctx, request=request) for name in names
    )


def page_regions(*, own: dict[str, Any], request: Any) -> dict[str, str]:
    """The regions of a page load by name: its own from ``own`` (its ``table_context``), the
    shared ones from the public view of the same state, as its pushes show them."""
    public = table_context(table=own["table"], hand=own["hand"], seat_index=None, user=None)
    out = {
        name: _render_names(public, [name], oob=False, request=request) for name in SHARED_REGIONS
    }
    out.update(
        {name: _render_names(own, [name], oob=False, request=request) for name in OWN_REGIONS}
    )
    return out


def render_table_regions(*, table: Any, hand: Any, seat_index: int | None, user: Any) -> str:
    """Every region of the screen for one audience, each root swapped in by id (oob)."""
    return render_screen(table=table, hand=hand, seat_index=seat_index, user=user)


# --------------------------------------------------------------------------- one push
def _memo_context(ctx: dict[str, Any], *, oob: bool, language: str) -> dict[str, Any]:
    from games.screen import render_cache

    return {**ctx, "oob": oob, render_cache.LANGUAGE_KEY: language}


def render_regions_shared(
    contexts: Sequence[dict[str, Any]], *, names: Sequence[str] = REGIONS, oob: bool = True
) -> list[str]:
    """The ``names`` regions of each context; a region whose inputs are those of a rendering
    already made (for another audience, or in an earlier push) is not rendered again."""
    from django.template.loader import get_template

    from games.screen import render_cache

    out: list[list[str]] = [[] for _ in contexts]
    language = get_language()
    for name in names:
        path = f"games/table/{name}.html"
        template = get_template(path)
        for i, ctx in enumerate(contexts):
            memo = _memo_context(ctx, oob=oob, language=language)
            out[i].append(render_cache.render_template(template, memo, name=path))
    return ["".join(parts) for parts in out]


def own_regions_changed(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """Whether a seat's own regions read anything different in ``after`` than in ``before``
    (two contexts of its seat, built with ``hints=False`` and ``own_only``): decided from the
    values its templates read, as the render memo keys them, so it depends on what that seat
    may know and nothing else."""
    from django.template.loader import get_template

    from games.screen import render_cache

    language = get_language()
    for name in OWN_REGIONS:
        path = f"games/table/{name}.html"
        keys = [
            render_cache.template_key(
                get_template(path), _memo_context(ctx, oob=True, language=language), name=path
            )
            for ctx in (before, after)
        ]
        if keys[0] is None or keys[0] != keys[1]:
            return True
    return False


# What only the shared regions show of a view: a seat's own regions read none of it while the
# seat has nothing to decide (its choices, hints and lead need it to be asked).
_SHARED_ONLY_KEYS = frozenset(
    (
        "turn",
        "waiting",
        "hand_counts",
        "trick",
        "plays",
        "top",
        "leader",
        "autoplay",
        "reports",
        "multiplier",
        "bids",
        "doubles",
        "reveals",
        "grabs",
        "grab_count",
    )
)


def _seat_moved(snapshot: TableSnapshot, seat: int, user: Any) -> bool | None:
    """Whether a seat's own regions changed since ``snapshot.before``, where that is cheap to
    tell from its views (None: compare its regions). A seat asked to decide before the push
    or after it has: it decided, or its controls came. One asked neither time whose view
    differs only in what the shared regions show has not: most seats of most pushes."""
    before, after = snapshot.before, snapshot.state
    if before is None or after is None or not _held_seat(snapshot.holders, seat, user):
        return None
    views = [seen_by(state, seat) for state in (before, after)]
    if any(seat in view["waiting"] for view in views):
        return True
    old, new = ({k: v for k, v in view.items() if k not in _SHARED_ONLY_KEYS} for view in views)
    return None if old != new else False


def changed_panels(
    public: dict[str, Any], before: dict[str, Any], snapshot: TableSnapshot
) -> list[dict[str, Any]]:
    """The seat panels of ``public`` (the public context of a move's push) that differ from
    the panels of ``before`` (the public view before the move), and those of the seats to act
    (their clock starts again, which the state before does not tell): what every page at the
    version before shows of the others stays as it is. From public facts alone, so what one
    audience is sent tells it nothing another would not be."""
    infos, _count = snapshot.seat_infos()
    old = seat_panels(before, infos, deadline=public["status"]["deadline"])
    return [
        row for row, was in zip(public["seats"], old, strict=True) if row["waiting"] or row != was
    ]


@dataclass
class PushRendering:
    """One push of a table state: the shared regions once per language, a spectator's own
    regions per language its spectators read, and the own regions of the seats sent theirs."""

    shared: dict[str, str]
    watcher: dict[str, str]
    own: dict[int, str]


def render_push(
    *,
    snapshot: TableSnapshot,
    players: Sequence[tuple[int, Any, str]],
    languages: Iterable[str],
    watcher_languages: Iterable[str],
    every_seat: bool = False,
) -> PushRendering:
    """The renderings of one push of ``snapshot``. ``players``: (seat index, user, language)
    of the seats that may be sent their own regions; each is sent them when they changed since
    ``snapshot.before`` (always when it is None, or with ``every_seat``). ``languages``: what
    the shared regions are rendered in (everybody's at the table)."""
    table, hand = snapshot.table, snapshot.hand
    watching = set(watcher_languages)
    shared: dict[str, str] = {}
    watcher: dict[str, str] = {}
    # a move's push (the state before it known) sends only the seat panels it changed
    seen_before = None
    if snapshot.before is not None and not every_seat:
        seen_before = seen_by(snapshot.before, None)
    for language in sorted(set(languages) | watching):
        with translation.override(language):
            public = table_context(
                table=table, hand=hand, seat_index=None, user=None, snapshot=snapshot
            )
            if seen_before is None:
                shared[language] = render_regions_shared([public], names=SHARED_REGIONS)[0]
            else:
                moved = {**public, "changed_seats": changed_panels(public, seen_before, snapshot)}
                shared[language] = render_regions_shared([moved], names=MOVE_REGIONS)[0]
            if language in watching:
                watcher[language] = render_regions_shared([public], names=OWN_REGIONS)[0]
    before = None
    if snapshot.before is not None and not every_seat:
        before = replace(snapshot, before=None, state=snapshot.before)
    by_language: dict[str, list[tuple[int, Any]]] = {}
    for seat, user, language in players:
        by_language.setdefault(language, []).append((seat, user))
    own: dict[int, str] = {}
    for language, group in by_language.items():
        with translation.override(language):
            contexts: list[tuple[int, dict[str, Any]]] = []
            for seat, user in group:
                moved = None if before is None else _seat_moved(snapshot, seat, user)
                if moved is False:
                    continue
                seen = partial(
                    table_context,
                    table=table,
                    hand=hand,
                    seat_index=seat,
                    user=user,
                    hints=False,
                    own_only=True,
                )
                ctx = seen(snapshot=snapshot)
                changed = before is None or moved is not None
                if not changed and not own_regions_changed(seen(snapshot=before), ctx):
                    continue
                contexts.append((seat, with_hints(ctx, snapshot.state)))
            htmls = render_regions_shared([c for _s, c in contexts], names=OWN_REGIONS)
            own.update((seat, html) for (seat, _c), html in zip(contexts, htmls, strict=True))
    return PushRendering(shared=shared, watcher=watcher, own=own)


def render_screen(
    *,
    table: Any,
    hand: Any,
    seat_index: int | None,
    user: Any,
    language: str | None = None,
    snapshot: TableSnapshot | None = None,
) -> str:
    """Every region for one audience (a full screen) as its pushes show them: a seat reads its
    player's stored language, a spectator ``language`` (the club's default when None)."""
    from games.table.hooks import hooks

    if snapshot is None:
        snapshot = table_snapshot(table=table, hand=hand)
    if seat_index is not None and user is not None:
        language = hooks.languages_of(user_ids=[user.pk]).get(user.pk)
    language = language or settings.LANGUAGE_CODE
    players = [] if seat_index is None else [(seat_index, user, language)]
    watchers = [language] if seat_index is None else []
    push = render_push(
        snapshot=snapshot,
        players=players,
        languages=[language],
        watcher_languages=watchers,
        every_seat=True,
    )
    own = push.watcher[language] if seat_index is None else push.own[seat_index]
    return push.shared[language] + own


def render_error(*, message: str) -> str:
    """The #table-error partial, sent to the sender only."""
    return render_to_string("games/table/error.html", {"message": message, "oob": True})
