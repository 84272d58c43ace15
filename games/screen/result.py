"""The result region of a finished hand: pure, from one audience's view dict and what the
settlement knows."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from games.engine.combos import BOMB_KINDS
from games.reads.snapshot import HandExtras
from games.screen.labels import (
    AUTO_WIN_LABELS,
    MULTIPLIER_LABELS,
    card_faces,
    kind_label,
    stake_steps,
)
from games.screen.seats import SeatInfo, seat_roles


def result_panel(
    *,
    view: dict[str, Any],
    played: dict[int, SeatInfo],
    names: dict[int, str],
    extras: HandExtras,
) -> dict[str, Any] | None:
    """The result region of a finished hand as ``view``'s audience sees it (None before the
    end): each seat's role, units, beans, score and cards left, the bombs that changed the
    stakes, and who went out first. ``played``: who played each seat; ``extras``: the
    settlement's scores, title changes, beans and the house's intake, where the service knows
    them."""
    raw = view.get("result")
    if raw is None:
        return None
    n = view["seats"]
    me = view.get("seat")
    variant = view["variant"]
    counts = view.get("hand_counts") or [0] * n
    plays = view.get("plays") or []
    bombs = [p for p in plays if p["kind"] in BOMB_KINDS]
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
        role, badges = seat_roles(view, seat)
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
    return {
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
        "auto_win": str(AUTO_WIN_LABELS.get(view["auto_win"], "")) if view.get("auto_win") else "",
        "you_won": me is not None and me in winners,
    }


def _effect(term: dict[str, Any]) -> str:
    return f"+{term['value']}" if term["op"] == "+" else f"×{term['value']}"


def _round_half_up(value: Fraction) -> int:
    sign = -1 if value < 0 else 1
    return sign * int(abs(value) + Fraction(1, 2))


def _fmt_fraction(value: Fraction) -> str:
    if value.denominator == 1:
        return f"{value.numerator:+d}"
    return f"{float(value):+.1f}"
