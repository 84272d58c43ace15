"""The players' words for what the table shows: card faces, roles, phases, kinds of play, stake
steps, partner choices. Presentation data of the variants (not rules), translated when read."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from games.engine.flows import StakeTerm, stake_units

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
    "show": gettext_lazy("Show cards"),  # 明牌
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
# the play: fenzhou5's joker_bomb is a pair of one joker (对大王 / 对小王), and docs/rules.md keeps
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
    "show": gettext_lazy("shown hand ×2"),  # 明牌
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


# The 记牌器's columns (games.engine.views.COUNTER_RANKS, 3 … 2 then the jokers): short words
# a narrow column holds, and no card notation ("SJ"), which the counter never shows.
COUNTER_RANK_LABELS = (
    *"3456789",
    "10",
    *"JQKA2",
    gettext_lazy("S.J."),  # 小王
    gettext_lazy("B.J."),  # 大王
)


def counter_columns(unseen: Sequence[int]) -> list[dict[str, Any]]:
    """The 记牌器 as template data: each rank's label and the copies still unseen."""
    return [
        {"rank": label, "left": left}
        for label, left in zip(_counter_rank_labels(get_language()), unseen, strict=True)
    ]


@lru_cache(maxsize=16)
def _counter_rank_labels(language: str | None) -> tuple[str, ...]:
    # translated once per language (the active one), not on every seat's counter of every push
    return tuple(str(label) for label in COUNTER_RANK_LABELS)


def card_faces(text: str | None) -> list[dict[str, Any]]:
    if not text:
        return []
    language = get_language()
    return [card_face(token, language) for token in text.split()]


def cards_short(text: str | None) -> str:
    return " ".join(c["short"] for c in card_faces(text))


def role_label(variant: str, role: str) -> str:
    if role == "farmer":
        return str(_("Farmer"))
    return str(ROLE_LABELS.get(variant, ROLE_LABELS["classic3"])[role])
