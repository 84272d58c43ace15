"""The controls region's facts for the seat to act: its hint plays (from ``legal_actions`` for
that seat only: made of his own cards) and one button per choice of a step before play. The
region's markup is written by games/templatetags/controls_html.py from these and the other
context values its partial passes it."""

from __future__ import annotations

import json
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engine.cards import parse_cards, ranks_of
from games.engine.combos import classify
from games.engine.flows import flow_for
from games.engine.hand import legal_actions
from games.engine.state import HandState
from games.engine.variants import find_variant
from games.screen.labels import PARTNER_LABELS, card_face

MAX_HINTS = 400


def hint_plays_of(state: HandState | None, view: dict[str, Any]) -> list[str]:
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


def choice_buttons(view: dict[str, Any]) -> list[dict[str, Any]]:
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


def with_hints(ctx: dict[str, Any], state: HandState | None) -> dict[str, Any]:
    """``ctx`` (built with ``hints=False``) with the hint plays of its seat."""
    if not ctx.get("my_turn") or ctx.get("view") is None:
        return ctx
    return {**ctx, "hints_json": json.dumps(hint_plays_of(state, ctx["view"]))}
