"""Mid-hand engine states of every variant and every phase, for the rendering tests and the
screenshot script (no database: the screen is rendered straight from the engine views)."""

from __future__ import annotations

from typing import Any

from games.engine.beans import RoomStakes
from games.engine.dealing import deal
from games.engine.hand import apply, autoplay_action, legal_actions, start_hand, waiting_seats
from games.engine.state import Action, HandState
from games.engine.variants import find_variant
from games.screen.seats import SeatInfo

NAMES = ["小明", "阿华", "Lily", "老王", "Bot"]


def seat_infos(n: int) -> list[SeatInfo]:
    out = []
    for i in range(n):
        bot = i == n - 1
        out.append(
            SeatInfo(
                index=i,
                name=f"bot-{i + 1}" if bot else NAMES[i],
                title="" if bot else ["包身工", "短工", "长工", "佃户"][i % 4],
                is_bot=bot,
            )
        )
    return out


def first_choice(state: HandState, seat: int, act: str, value: Any = "__any__") -> Action:
    for action in legal_actions(state, seat):
        if action.act == act and (value == "__any__" or action.value == value):
            return action
    raise AssertionError(f"no {act} {value} for seat {seat}")


def start(key: str, seed: str = "screen-1", **options: Any) -> HandState:
    variant = find_variant(key, **options)
    landlord = 0 if variant.bottom_size == 0 else None
    return start_hand(
        variant, deal(variant, seed, landlord_seat=landlord), RoomStakes(coefficient=10)
    )


def advance_to_play(state: HandState, *, plays: int = 0) -> HandState:
    """Take the first offered choice (yes/bid 3/...) until play, then ``plays`` 托管 moves."""
    guard = 0
    while state.phase != "play" and not state.finished:
        seat = waiting_seats(state)[0]
        choices = legal_actions(state, seat)
        preferred = [a for a in choices if a.value is True or a.value == 3]
        state = apply(state, (preferred or choices)[0])
        guard += 1
        assert guard < 100
    for _ in range(plays):
        if state.finished:
            break
        seat = waiting_seats(state)[0]
        state = apply(state, autoplay_action(state, seat))
    return state


def finish(state: HandState) -> HandState:
    state = advance_to_play(state)
    guard = 0
    while not state.finished:
        seat = waiting_seats(state)[0]
        state = apply(state, autoplay_action(state, seat))
        guard += 1
        assert guard < 3000
    return state


def scenarios() -> dict[str, HandState]:
    """Named states: each phase of each variant plus mid-play and finished hands."""
    out: dict[str, HandState] = {}
    s = start("classic3")
    out["classic3-bid"] = s
    s3 = apply(s, Action(waiting_seats(s)[0], "bid", 3))
    out["classic3-double"] = s3
    out["classic3-play"] = advance_to_play(s3, plays=7)
    out["classic3-finished"] = finish(s3)
    q = start("qq5")
    out["qq5-reveal"] = q
    qd = q
    while qd.phase == "reveal":
        qd = apply(qd, Action(waiting_seats(qd)[0], "reveal", False))
    out["qq5-double"] = qd
    out["qq5-play"] = advance_to_play(q, plays=9)
    out["qq5-play-hidden"] = advance_to_play(qd, plays=6)
    out["qq5-finished"] = finish(q)
    n = start("new5")
    out["new5-grab"] = n
    np = n
    while np.phase == "grab":
        seat = waiting_seats(np)[0]
        np = apply(np, legal_actions(np, seat)[0])
    if np.phase == "partner":
        out["new5-partner"] = np
        call = [a for a in legal_actions(np, np.turn) if a.value == "call_friend"]
        opts = call or legal_actions(np, np.turn)
        out["new5-play"] = advance_to_play(apply(np, opts[0]), plays=8)
        out["new5-finished"] = finish(apply(np, opts[0]))
    f = start("fenzhou5")
    out["fenzhou5-call"] = f
    out["fenzhou5-play"] = advance_to_play(f, plays=11)
    out["fenzhou5-finished"] = finish(f)
    return out
