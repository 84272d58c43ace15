"""Build the hand records of docs/rules.md's worked examples and scenarios (run once, output
committed).

    .venv/bin/python -m tests.engine.records.build_records

Each record is written as ``<name>.json`` (a plain §8.4 document) and its expectations, taken
from docs/rules.md by hand (never from the engine), go to ``expected.json``. A deal is built
from the cards each seat must hold; the rest of the deck is spread over the seats by a fixed RNG.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

from games.engine.cards import format_card, format_cards, parse_cards
from games.engine.variants import find_variant

HERE = Path(__file__).parent


def make_deal(
    variant_key: str,
    fixed: dict[int, str],
    *,
    bottom: str = "",
    face_up: tuple[str, int] | None = None,
    landlord_seat: int | None = None,
    seed: int = 7,
) -> dict[str, Any]:
    v = find_variant(variant_key)
    pool = Counter({code: v.decks for code in range(54)})
    hands: dict[int, list[int]] = {s: list(parse_cards(fixed.get(s, ""))) for s in range(v.seats)}
    bottom_cards = list(parse_cards(bottom))
    for code in [c for h in hands.values() for c in h] + bottom_cards:
        pool[code] -= 1
        assert pool[code] >= 0, f"{format_card(code)} used too often"
    rest = sorted(pool.elements())
    random.Random(seed).shuffle(rest)
    sizes = {s: v.hand_size for s in range(v.seats)}
    if landlord_seat is not None and v.bottom_size == 0:
        sizes[landlord_seat] = v.landlord_hand_size
    need_bottom = v.bottom_size - len(bottom_cards)
    bottom_cards += [rest.pop() for _ in range(need_bottom)]
    for s in range(v.seats):
        while len(hands[s]) < sizes[s]:
            hands[s].append(rest.pop())
        assert len(hands[s]) == sizes[s], (s, len(hands[s]))
    assert not rest
    deal: dict[str, Any] = {
        "hands": [format_cards(hands[s]) for s in range(v.seats)],
        "bottom": format_cards(bottom_cards),
    }
    if face_up is not None:
        deal["face_up"] = {"card": face_up[0], "seat": face_up[1]}
    if landlord_seat is not None:
        deal["landlord_seat"] = landlord_seat
    return deal


class Script:
    """Actions in §8.4 JSON, with a helper for 'everybody else passes'."""

    def __init__(self, seats: int) -> None:
        self.seats = seats
        self.actions: list[dict[str, Any]] = []

    def act(self, seat: int, act: str, value: Any = None, **extra: Any) -> Script:
        a: dict[str, Any] = {"seat": seat, "act": act}
        if value is not None or act in ("grab",):
            a["value"] = value
        a.update(extra)
        self.actions.append(a)
        return self

    def play(self, seat: int, cards: str) -> Script:
        return self.act(seat, "play", cards=format_cards(parse_cards(cards)))

    def passes(self, after: int, count: int | None = None) -> Script:
        count = self.seats - 1 if count is None else count
        for k in range(1, count + 1):
            self.act((after + k) % self.seats, "pass")
        return self

    def lead_out(self, seat: int, plays: list[str]) -> Script:
        """``seat`` leads each play and everyone else passes (not after the last one)."""
        for i, cards in enumerate(plays):
            self.play(seat, cards)
            if i < len(plays) - 1:
                self.passes(seat)
        return self


def room(coefficient: int = 1, house_take: int = 0, rake: int = 0, base: int = 1) -> dict:
    return {
        "base_score": base,
        "coefficient": coefficient,
        "house_take": house_take,
        "rake_percent": rake,
    }


RECORDS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}


def add(name: str, record: dict[str, Any], expected: dict[str, Any]) -> None:
    RECORDS[name] = (record, expected)


def doc(variant: str, rm: dict, deal: dict, script: Script, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"variant": variant}
    out.update(extra)
    out.update(
        {"room": rm, "seats": find_variant(variant).seats, "deal": deal, "actions": script.actions}
    )
    return out


# ----------------------------------------------------------------------------- qq5
A1_LANDLORD = [
    "4s 5s 6s 7h 8d",
    "8d 8c 8h 8s",
    "9d 9c 9h 9s 9d",
    "Ts Js Qs Ks As",
    "Th Jh Qh Kh Ah",
]


def qq5_records() -> None:
    # A1: 明牌 ♥7 with P1 (seat 0), twin with P4 (seat 3); P4 reveals, P2 doubles; a 4炸 and a 5炸.
    deal = make_deal(
        "qq5",
        {0: _without(" ".join(A1_LANDLORD), "Ts Js Qs"), 1: "5d 6d 7d 8c 9c", 3: "7h"},
        bottom="Ts Js Qs",
        face_up=("7h", 0),
    )
    s = Script(5)
    s.act(0, "reveal", False).act(3, "reveal", True)
    for seat in range(5):
        s.act(seat, "double", seat == 1)
    s.play(0, "4s 5s 6s 7h 8d").play(1, "5d 6d 7d 8c 9c").passes(1, 3)
    s.play(0, "8d 8c 8h 8s").passes(0)
    s.lead_out(0, A1_LANDLORD[2:])
    add(
        "qq5_A1_two_landlords_win",
        doc("qq5", room(50, 10), deal, s),
        {
            "phase": "finished",
            "winner_side": "landlord",
            "teams": {"landlord": [0, 3], "farmer": [1, 2, 4]},
            "multiplier": 8,
            "units": [12, -8, -8, 12, -8],
            "beans": [590, -410, -410, 590, -410],
            "house": 50,
        },
    )
    # A2: twin in the bottom (single landlord), nobody reveals or doubles, one 三王, landlord loses.
    deal = make_deal(
        "qq5",
        {0: "Ks 3s", 1: "SJ SJ BJ 3d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd Ad 4c 5c 6c 7c 8c 9c"},
        bottom="Ks",
        face_up=("Ks", 0),
    )
    s = Script(5)
    s.act(0, "reveal", False)
    for seat in range(5):
        s.act(seat, "double", False)
    s.play(0, "3s").play(1, "SJ SJ BJ").passes(1)
    s.lead_out(1, ["3d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd Ad", "4c 5c 6c 7c 8c 9c"])
    add(
        "qq5_A2_single_landlord_loses",
        doc("qq5", room(50, 10), deal, s),
        {
            "phase": "finished",
            "winner_side": "farmer",
            "teams": {"landlord": [0], "farmer": [1, 2, 3, 4]},
            "multiplier": 2,
            "units": [-8, 2, 2, 2, 2],
            "beans": [-410, 90, 90, 90, 90],
            "house": 50,
        },
    )
    # Scenario 1: 明牌 ♠9 with P3 (seat 2), the second ♠9 in the bottom: single landlord,
    # the reveal step asks only P3.
    deal = make_deal("qq5", {2: "9s"}, bottom="9s", face_up=("9s", 2))
    add(
        "qq5_S1_twin_in_bottom",
        doc("qq5", room(), deal, Script(5)),
        {
            "phase": "reveal",
            "turn": None,
            "finished": False,
            "teams": {"landlord": [2], "farmer": [0, 1, 3, 4]},
            "hands_left": [21, 21, 24, 21, 21],
            "waiting": [2],
        },
    )
    # Scenario 2: P1 and P4 both reveal: ×2, not ×4.
    deal = make_deal("qq5", {0: "7h", 3: "7h"}, face_up=("7h", 0))
    s = Script(5).act(0, "reveal", True).act(3, "reveal", True)
    for seat in range(5):
        s.act(seat, "double", False)
    add(
        "qq5_S2_both_reveal_once",
        doc("qq5", room(), deal, s),
        {"phase": "play", "turn": 0, "multiplier": 2, "revealed": True},
    )
    # Scenario 3: both 放弃; P4 plays 789TJ with the twin ♥7 and is revealed then.
    deal = make_deal("qq5", {0: "7h 3s 4s 5s 6s 7s", 3: "7h 8h 9h Th Jh"}, face_up=("7h", 0))
    s = Script(5).act(0, "reveal", False).act(3, "reveal", False)
    for seat in range(5):
        s.act(seat, "double", False)
    s.play(0, "3s 4s 5s 6s 7s").act(1, "pass").act(2, "pass")
    before = len(s.actions)
    s.play(3, "7h 8h 9h Th Jh")
    add(
        "qq5_S3_twin_played_reveals",
        doc("qq5", room(), deal, s),
        {
            "phase": "play",
            "turn": 4,
            "multiplier": 1,
            "revealed": True,
            "revealed_after": len(s.actions),
            "hidden_before": before,
            "partners": [0, 3],
        },
    )
    # Scenario 4: the landlords win and no farmer played a card: spring ×2 (with the 5炸: M = 4).
    deal = make_deal(
        "qq5",
        {0: _without(" ".join(A1_LANDLORD), "Ts Js Qs"), 3: "7h"},
        bottom="Ts Js Qs",
        face_up=("7h", 0),
    )
    s = Script(5).act(0, "reveal", False).act(3, "reveal", False)
    for seat in range(5):
        s.act(seat, "double", False)
    s.lead_out(0, A1_LANDLORD)
    add(
        "qq5_S4_spring",
        doc("qq5", room(), deal, s),
        {
            "phase": "finished",
            "winner_side": "landlord",
            "multiplier": 4,
            "units": [6, -4, -4, 6, -4],
            "beans": [6, -4, -4, 6, -4],
            "house": 0,
        },
    )


# ----------------------------------------------------------------------------- new5
B1_LANDLORD_PLAYS = [
    "3d 4d 5d 6d 7d 8d",
    "3c 4c 5c 6c 7c",
    "Tc Jc Qc Kc Ac",
    "Th Jh Qh Kh Ah",
    "Ts Js Qs Ks As",
    "6s 6s",
    "9h 9h 9h 9c",
    "2d 2c 2s 2d",
]
B1_BOTTOM = "Ts Js Qs Ks As 2d 2c"


def _without(cards: str, remove: str) -> str:
    left = Counter(parse_cards(cards))
    left.subtract(Counter(parse_cards(remove)))
    assert all(n >= 0 for n in left.values())
    return format_cards(left.elements())


def new5_b1(partner: str, scheme: str | None, name: str, expected: dict[str, Any]) -> None:
    all_landlord = " ".join([*B1_LANDLORD_PLAYS, "5h", "2h"])
    deal = make_deal(
        "new5",
        {
            0: "SJ SJ BJ",
            1: _without(all_landlord, B1_BOTTOM),
            2: "9s 9c SJ",
            3: "9s 9s 9d 9c 6s",
            4: "BJ BJ 9d 9d",
        },
        bottom=B1_BOTTOM,
        face_up=("9c", 2),
    )
    s = Script(5)
    s.act(0, "grab", "SJ").act(1, "grab", "9h").act(1, "grab", "9h")
    s.act(3, "grab", "9s").act(4, "grab", "BJ").act(4, "grab", "9d")
    s.act(1, "partner", partner)
    s.play(1, "5h").act(2, "pass").play(3, "6s").act(4, "pass").act(0, "pass")
    s.play(1, "2h").passes(1)
    s.lead_out(1, B1_LANDLORD_PLAYS)
    extra = {"options": {"new5_scheme": scheme}} if scheme else {}
    add(name, doc("new5", room(), deal, s, **extra), expected)


def new5_records() -> None:
    new5_b1(
        "call_friend",
        None,
        "new5_B1_call_friend_scheme_a",
        {
            "phase": "finished",
            "winner_side": "landlord",
            "teams": {"landlord": [1, 3], "farmer": [0, 2, 4]},
            "multiplier": 6,
            "units": [-6, 12, -6, 6, -6],
            "beans": [-6, 12, -6, 6, -6],
            "marked_card": "6s",
        },
    )
    new5_b1(
        "call_friend",
        "city",
        "new5_B1_call_friend_scheme_b",
        {
            "phase": "finished",
            "winner_side": "landlord",
            "units": [-64, 128, -64, 64, -64],
            "beans": [-64, 128, -64, 64, -64],
        },
    )
    new5_b1(
        "open_solo",
        None,
        "new5_B1_open_solo",
        {
            "phase": "finished",
            "winner_side": "landlord",
            "teams": {"landlord": [1], "farmer": [0, 2, 3, 4]},
            "multiplier": 12,
            "units": [-12, 48, -12, -12, -12],
            "beans": [-12, 48, -12, -12, -12],
        },
    )
    # Scenario: the landlord's 38 cards hold 10 sevens: auto-win, +4 units (nobody grabs: D = 1).
    sevens = "7d 7d 7d 7c 7c 7c 7h 7h 7h 7s"
    deal = make_deal("new5", {0: sevens + " 3d"}, face_up=("3d", 0), seed=11)
    s = Script(5)
    _grab_nobody(s, deal)
    add(
        "new5_S1_ten_sevens_auto_win",
        doc("new5", room(), deal, s),
        {
            "phase": "finished",
            "winner_side": "landlord",
            "multiplier": 1,
            "units": [4, -1, -1, -1, -1],
            "beans": [4, -1, -1, -1, -1],
            "auto_win": "ten_of_a_rank",
        },
    )
    # Scenario: two ♠4 and three ♥8, no lower exact pair: 叫朋友 ♠4 and 暗独打 ♥8 both offered.
    # Every other identity the landlord holds is held once (37 distinct identities are available).
    from games.engine.cards import card_rank

    singles = [c for c in range(54) if card_rank(c) not in (4, 8)][:32]
    landlord = "4s 4s 8h 8h 8h 8d " + format_cards(singles)
    bottom = format_cards(singles[25:32])
    deal = make_deal(
        "new5", {0: _without(landlord, bottom)}, bottom=bottom, face_up=("4s", 0), seed=12
    )
    s = Script(5)
    _grab_nobody(s, deal)
    add(
        "new5_S2_call_and_hidden_offered",
        doc("new5", room(), deal, s),
        {
            "phase": "partner",
            "turn": 0,
            "multiplier": 1,
            "choices": ["open_solo", "hidden_solo", "call_friend"],
            "call_friend_card": "4s",
            "hidden_solo_card": "8h",
        },
    )
    # Scenario: exactly three ♣5 and no identity held twice: only 明独打 and 暗独打.
    others = [c for c in range(52) if c // 4 != 2][:34]
    landlord = "5c 5c 5c 5d " + format_cards(others)
    bottom = format_cards(others[-7:])
    deal = make_deal(
        "new5", {0: _without(landlord, bottom)}, bottom=bottom, face_up=("5c", 0), seed=13
    )
    s = Script(5)
    _grab_nobody(s, deal)
    add(
        "new5_S3_only_solo_choices",
        doc("new5", room(), deal, s),
        {
            "phase": "partner",
            "turn": 0,
            "multiplier": 1,
            "choices": ["open_solo", "hidden_solo"],
            "hidden_solo_card": "5c",
        },
    )


def _grab_nobody(s: Script, deal: dict[str, Any]) -> None:
    """Every seat holding grab material declines (value null)."""
    face = parse_cards(deal["face_up"]["card"])[0]
    first = face - face % 4
    material = {first, first + 1, first + 2, first + 3, 52, 53}
    for seat, text in enumerate(deal["hands"]):
        counts = Counter(parse_cards(text))
        if any(counts[c] >= 2 for c in material):
            s.act(seat, "grab", None)


# ----------------------------------------------------------------------------- classic3
C_WIN = ["6s 7s 8s 9s Ts Js Qs Ks As", "6h 7h 8h 9h Th Jh Qh Kh Ah"]


def classic3_c(
    name: str,
    coefficient: int,
    doubles: tuple[bool, bool],
    win: bool,
    expected: dict[str, Any],
    bomb: bool = False,
    seed: int = 3,
    show: bool = False,
) -> None:
    s = Script(3)
    s.act(0, "bid", 3).act(1, "double", doubles[0]).act(2, "double", doubles[1])
    if show:  # 明牌 (a room option): the landlord shows his 20 cards
        s.act(0, "show", True)
    if win and not bomb:
        landlord = "3s 5s " + " ".join(C_WIN)
        deal = make_deal(
            "classic3",
            {0: _without(landlord, "As Ah Ks"), 1: "4d"},
            bottom="As Ah Ks",
            face_up=("3s", 0),
            seed=seed,
        )
        s.play(0, "3s").play(1, "4d").act(2, "pass")
        s.play(0, "5s").act(1, "pass").act(2, "pass")
        s.lead_out(0, C_WIN)
    elif win:
        plays = ["6s 7s 8s 9s Ts Js Qs Ks As", "6h 7h 8h 9h Th Jh"]
        landlord = "3s 5d 5c 5h 5s " + " ".join(plays)
        deal = make_deal(
            "classic3",
            {0: _without(landlord, "As Ks Qs"), 1: "4d"},
            bottom="As Ks Qs",
            face_up=("3s", 0),
            seed=seed,
        )
        s.play(0, "3s").play(1, "4d").act(2, "pass")
        s.play(0, "5d 5c 5h 5s").act(1, "pass").act(2, "pass")
        s.lead_out(0, plays)
    else:
        f1 = "4d 6d 7d 8d 9d Td Jd Qd Kd Ad 7c 8c 9c Tc Jc Qc Kc"
        deal = make_deal("classic3", {0: "3s 5s", 1: f1}, face_up=("3s", 0), seed=seed)
        s.play(0, "3s").play(1, "4d").act(2, "pass").play(0, "5s").play(1, "6d")
        s.act(2, "pass").act(0, "pass")
        s.lead_out(1, ["7d 8d 9d Td Jd Qd Kd Ad", "7c 8c 9c Tc Jc Qc Kc"])
    extra = {"options": {"classic3_show_cards": True}} if show else {}
    add(name, doc("classic3", room(coefficient, rake=10), deal, s, **extra), expected)


def classic3_records() -> None:
    t = {"landlord": [0], "farmer": [1, 2]}
    classic3_c(
        "classic3_C1_landlord_wins",
        3,
        (True, False),
        True,
        {
            "phase": "finished",
            "winner_side": "landlord",
            "teams": t,
            "units": [9, -6, -3],
            "beans": [24, -18, -9],
            "house": 3,
        },
    )
    classic3_c(
        "classic3_C1_landlord_loses",
        3,
        (True, False),
        False,
        {
            "phase": "finished",
            "winner_side": "farmer",
            "teams": t,
            "units": [-9, 6, 3],
            "beans": [-27, 16, 8],
            "house": 3,
        },
    )
    classic3_c(
        "classic3_C2_landlord_wins",
        3,
        (True, True),
        True,
        {
            "phase": "finished",
            "winner_side": "landlord",
            "units": [12, -6, -6],
            "beans": [32, -18, -18],
            "house": 4,
        },
    )
    classic3_c(
        "classic3_C2_landlord_loses",
        3,
        (True, True),
        False,
        {
            "phase": "finished",
            "winner_side": "farmer",
            "units": [-12, 6, 6],
            "beans": [-36, 16, 16],
            "house": 4,
        },
    )
    classic3_c(
        "classic3_C3_one_bomb",
        10,
        (False, False),
        True,
        {
            "phase": "finished",
            "winner_side": "landlord",
            "multiplier": 2,
            "units": [12, -6, -6],
            "beans": [108, -60, -60],
            "house": 12,
        },
        bomb=True,
    )
    # C5 (明牌): C1 with the landlord's hand shown, c = 1: stakes 3 × 2^2 = 12 and 3 × 2 = 6
    # units, × 3 beans; the landlord's 54 less the 10 % rake, 5.4 rounded half-up (§7.2).
    classic3_c(
        "classic3_C5_show_cards",
        3,
        (True, False),
        True,
        {
            "phase": "finished",
            "winner_side": "landlord",
            "teams": t,
            "multiplier": 2,
            "units": [18, -12, -6],
            "beans": [49, -36, -18],
            "house": 5,
        },
        show=True,
    )
    # C4: F1 doubled; 2 bombs + rocket + spring: c = 4, capped at 4 → 480 each.
    plays = ["3d 3c 3h 3s", "4d 4c 4h 4s", "SJ BJ", "5s 6s 7s 8s 9s Ts Js Qs Ks As"]
    deal = make_deal(
        "classic3",
        {0: _without(" ".join(plays), "Ks As BJ")},
        bottom="Ks As BJ",
        face_up=("3d", 0),
        seed=4,
    )
    s = Script(3).act(0, "bid", 3).act(1, "double", True).act(2, "double", False)
    s.lead_out(0, plays)
    add(
        "classic3_C4_cap_with_spring",
        doc("classic3", room(10, rake=10), deal, s),
        {
            "phase": "finished",
            "winner_side": "landlord",
            "multiplier": 16,
            "units": [96, -48, -48],
            "beans": [864, -480, -480],
            "house": 96,
            "spring": True,
        },
    )
    # Anti-spring: the landlord plays only his opening lead and a farmer goes out.
    f1 = "4d 5d 6d 7d 8d 9d Td Jd Qd Kd Ad 7c 8c 9c Tc Jc Qc"
    deal = make_deal("classic3", {0: "3s", 1: f1}, face_up=("3s", 0), seed=5)
    s = Script(3).act(0, "bid", 1).act(1, "bid", 0).act(2, "bid", 0)
    s.play(0, "3s").play(1, "4d").act(2, "pass").act(0, "pass")
    s.lead_out(1, ["5d 6d 7d 8d 9d Td Jd Qd Kd Ad", "7c 8c 9c Tc Jc Qc"])
    add(
        "classic3_anti_spring",
        doc("classic3", room(), deal, s),
        {
            "phase": "finished",
            "winner_side": "farmer",
            "multiplier": 2,
            "units": [-4, 2, 2],
            "beans": [-4, 2, 2],
            "house": 0,
            "anti_spring": True,
        },
    )
    # The bidding table of §5.4 (A = the face-up holder = seat 0, then B = 1, C = 2).
    table = [
        ("A3", [(0, 3)], 0, [1, 2]),
        ("A1_B3", [(0, 1), (1, 3)], 1, [2]),
        ("Apass_B3", [(0, 0), (1, 3)], 1, [2]),
        ("A2_Bpass_C3", [(0, 2), (1, 0), (2, 3)], 2, []),
        ("A2_Bpass_Cpass", [(0, 2), (1, 0), (2, 0)], 0, []),
        ("A1_B2_Cpass", [(0, 1), (1, 2), (2, 0)], 1, []),
        ("Apass_Bpass_C1", [(0, 0), (1, 0), (2, 1)], 2, []),
        ("all_pass_redeal", [(0, 0), (1, 0), (2, 0)], None, []),
        ("A2_B1_illegal", [(0, 2), (1, 1)], "error", []),
    ]
    deal = make_deal("classic3", {0: "3s"}, face_up=("3s", 0), seed=6)
    for name, bids, landlord, doublers in table:
        s = Script(3)
        for seat, value in bids:
            s.act(seat, "bid", value)
        if landlord == "error":
            exp: dict[str, Any] = {"error_index": 1}
        elif landlord is None:
            exp = {
                "phase": "redeal",
                "finished": True,
                "winner_side": None,
                "units": [0, 0, 0],
                "beans": [0, 0, 0],
                "house": 0,
            }
        else:
            exp = {
                "phase": "double" if doublers else "play",
                "turn": doublers[0] if doublers else landlord,
                "teams": {"landlord": [landlord], "farmer": [x for x in range(3) if x != landlord]},
                "doublers": doublers,
                "hands_left": [20 if x == landlord else 17 for x in range(3)]
                if not doublers
                else [17, 17, 17],
            }
        add(f"classic3_bidding_{name}", doc("classic3", room(), deal, s), exp)


# ----------------------------------------------------------------------------- fenzhou5
def fenzhou5_records() -> None:
    # D1: landlord (seat 0) calls ♥T held once; plays SJSJ, 9999 and 55555555; u = 7.
    plays = ["SJ SJ", "9d 9c 9h 9s", "5d 5c 5h 5s 5d 5c 5h 5s", "Ts Js Qs Ks As", "Th Jh Qh Kh Ah"]
    deal = make_deal("fenzhou5", {0: " ".join(plays), 2: "Th"}, landlord_seat=0, seed=8)
    s = Script(5).act(0, "call", "Th")
    s.lead_out(0, plays)
    add(
        "fenzhou5_D1_landlord_side_wins",
        doc("fenzhou5", room(), deal, s),
        {
            "phase": "finished",
            "winner_side": "landlord",
            "teams": {"landlord": [0, 2], "farmer": [1, 3, 4]},
            "multiplier": 7,
            "units": [10.5, -7, 10.5, -7, -7],
            "beans": [11, -7, 10, -7, -7],
            "house": 0,
        },
    )
    # D2: solo landlord (both ♦8) loses; one 连炸: u = 4.
    f1 = ["6d 6c 6h 6s 7d 7c 7h 7s", "8s 9s Ts Js Qs Ks As", "9h Th Jh Qh Kh Ah"]
    deal = make_deal("fenzhou5", {0: "8d 8d 3s", 1: " ".join(f1)}, landlord_seat=0, seed=9)
    s = Script(5).act(0, "call", "8d").play(0, "3s").play(1, f1[0]).passes(1)
    s.lead_out(1, f1[1:])
    add(
        "fenzhou5_D2_solo_landlord_loses",
        doc("fenzhou5", room(), deal, s),
        {
            "phase": "finished",
            "winner_side": "farmer",
            "teams": {"landlord": [0], "farmer": [1, 2, 3, 4]},
            "multiplier": 4,
            "units": [-16, 4, 4, 4, 4],
            "beans": [-16, 4, 4, 4, 4],
            "house": 0,
        },
    )
    # Scenario: calls ♥9 held once; P3 (seat 2) holds the other and is revealed on playing it.
    deal = make_deal("fenzhou5", {0: "9h 3s", 2: "9h"}, landlord_seat=0, seed=10)
    s = Script(5).act(0, "call", "9h").play(0, "3s").act(1, "pass")
    before = len(s.actions)
    s.play(2, "9h")
    add(
        "fenzhou5_S1_called_card_reveals",
        doc("fenzhou5", room(), deal, s),
        {
            "phase": "play",
            "turn": 3,
            "revealed": True,
            "partners": [0, 2],
            "hidden_before": before,
            "revealed_after": len(s.actions),
        },
    )
    # Scenarios: calling a 2, or a card he does not hold, is refused.
    deal = make_deal("fenzhou5", {0: "2s", 1: "Jc Jc"}, landlord_seat=0, seed=10)
    add(
        "fenzhou5_S2_call_a_two_rejected",
        doc("fenzhou5", room(), deal, Script(5).act(0, "call", "2s")),
        {"error_index": 0},
    )
    add(
        "fenzhou5_S3_call_unheld_rejected",
        doc("fenzhou5", room(), deal, Script(5).act(0, "call", "Jc")),
        {"error_index": 0},
    )


def build() -> None:
    qq5_records()
    new5_records()
    classic3_records()
    fenzhou5_records()
    expected = {}
    for name, (record, exp) in sorted(RECORDS.items()):
        (HERE / f"{name}.json").write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
        expected[name] = exp
    (HERE / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(RECORDS)} records")


if __name__ == "__main__":
    build()
