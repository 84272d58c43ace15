"""House bot benchmark: move times per variant and the bot's win rate against 托管.

A script that prints figures (never a timed test).

    .venv/bin/python bench/bot_moves.py [--hands 40] [--deals 100] [--seed 20261129] [--warm]

Move times: seeded hands are played by bots in every seat; every bot decision is timed, split
into pre-play decisions (bid, grab, reveal, double, partner, call), leads and follows. By
default the planner's cache is cleared before each timed call (a cold process: the worst
case); ``--warm`` keeps it, as a long-running server would. The ``new5 38`` rows time the
new5 landlord's first lead (38 cards), and follows with a 38-card hand: states from the same
games in which 7 unplayed cards of other hands are moved into the follower's hand (card
counts stay consistent; the bot only sees a 38-card hand to follow with). The ``x3 ranks`` and
``x2+jokers`` rows drop the planner's hardest 38-card shapes into real new5 play states.

Win rate: each seeded deal is bid by bots, then played twice from the first lead, bots on
the landlord side against 托管 farmers and 托管 landlords against bot farmers. 托管 against
itself wins exactly half of these games; the figure is the share the bot's side won.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games.engine import planning  # noqa: E402
from games.engine.bot import bot_action  # noqa: E402
from games.engine.dealing import deal  # noqa: E402
from games.engine.hand import apply, autoplay_action, start_hand, waiting_seats  # noqa: E402
from games.engine.state import FARMER_SIDE, LANDLORD_SIDE, PHASE_PLAY, HandState  # noqa: E402
from games.engine.variants import find_variant  # noqa: E402

VARIANT_KEYS = ("classic3", "qq5", "new5", "fenzhou5")


def _timed(state: HandState, seat: int, warm: bool) -> tuple[float, object]:
    if not warm:
        planning.clear_caches()
    start = time.process_time()
    action = bot_action(state, seat)
    return time.process_time() - start, action


def _start(key: str, seed: str) -> HandState:
    v = find_variant(key)
    return start_hand(v, deal(v, seed))


def _with_big_hand(state: HandState, seat: int, size: int) -> HandState | None:
    """``state`` with cards moved from other hands into ``seat``'s until it holds ``size``."""
    hands = [list(h) for h in state.hands]
    need = size - len(hands[seat])
    for other in sorted(range(state.seats), key=lambda s: -len(hands[s])):
        if other == seat:
            continue
        while need > 0 and len(hands[other]) > 1:
            hands[seat].append(hands[other].pop())
            need -= 1
    if need > 0:
        return None
    return replace(state, hands=tuple(tuple(sorted(h)) for h in hands))


def move_times(key: str, hands: int, seed: int, warm: bool) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"decide": [], "lead": [], "follow": []}
    big: dict[str, list[float]] = {"lead": [], "follow": []}
    for i in range(hands):
        state = _start(key, f"{seed}-times-{key}-{i}")
        first_lead = True
        while not state.finished:
            seat = waiting_seats(state)[0]
            if state.phase != PHASE_PLAY:
                kind = "decide"
            else:
                kind = "lead" if state.top is None else "follow"
            if key == "new5" and kind == "follow" and len(state.hands[seat]) < 38:
                bigger = _with_big_hand(state, seat, 38)
                if bigger is not None and len(big["follow"]) < 40 * hands:
                    big["follow"].append(_timed(bigger, seat, warm)[0])
            seconds, action = _timed(state, seat, warm)
            out[kind].append(seconds)
            if key == "new5" and kind == "lead" and first_lead:
                big["lead"].append(seconds)
                first_lead = False
            state = apply(state, action)
    if key == "new5":
        out["38 lead"] = big["lead"]
        out["38 follow"] = big["follow"]
    return out


# Hands that make the planner work hardest: every rank three times, every rank twice plus
# four jokers (many straights, pair chains, triples and kicker choices at once).
STRESS_HANDS = {
    "x3 ranks": [r for r in range(3, 16) for _ in range(3)][:38],
    "x2+jokers": [r for r in range(3, 16) for _ in range(2)] + [16, 16, 17, 17, 3, 4, 5, 6, 7, 8],
}


def _codes(ranks: list[int]) -> tuple[int, ...]:
    used: dict[int, int] = {}
    out = []
    for r in sorted(ranks):
        if r >= 16:
            out.append(52 if r == 16 else 53)
            continue
        out.append((r - 3) * 4 + used.get(r, 0) % 4)
        used[r] = used.get(r, 0) + 1
    return tuple(sorted(out))


def stress_times(seed: int, warm: bool, states: int = 40) -> dict[str, list[float]]:
    """new5 follows (and leads) with the stress hands dropped into real play states."""
    out: dict[str, list[float]] = {}
    for name, ranks in STRESS_HANDS.items():
        lead: list[float] = []
        follow: list[float] = []
        i = 0
        while len(follow) < states or len(lead) < states // 4:
            state = _start("new5", f"{seed}-stress-{i}")
            i += 1
            while not state.finished and (len(follow) < states or len(lead) < states // 4):
                seat = waiting_seats(state)[0]
                if state.phase == PHASE_PLAY:
                    hands = list(state.hands)
                    hands[seat] = _codes(ranks)
                    probe = replace(state, hands=tuple(hands))
                    (follow if state.top is not None else lead).append(_timed(probe, seat, warm)[0])
                state = apply(state, bot_action(state, seat))
        out[f"{name} lead"] = lead
        out[f"{name} follow"] = follow
    return out


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# ------------------------------------------------------------------------------- win rate
def _to_play(state: HandState) -> HandState:
    while not state.finished and state.phase != PHASE_PLAY:
        state = apply(state, bot_action(state, waiting_seats(state)[0]))
    return state


def _play_out(state: HandState, bots: frozenset[int]) -> HandState:
    while not state.finished:
        seat = state.turn
        action = bot_action(state, seat) if seat in bots else autoplay_action(state, seat)
        state = apply(state, action)
    return state


def win_rate(key: str, deals: int, seed: int) -> tuple[int, int, int, int]:
    """(wins as landlord side, games, wins as farmers, games)."""
    lw = lg = fw = fg = 0
    for i in range(deals):
        start = _to_play(_start(key, f"{seed}-wins-{key}-{i}"))
        if start.finished:
            continue
        end = _play_out(start, frozenset(start.landlord_side()))
        lw += end.winner_side == LANDLORD_SIDE
        lg += 1
        end = _play_out(start, frozenset(start.farmer_side()))
        fw += end.winner_side == FARMER_SIDE
        fg += 1
    return lw, lg, fw, fg


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=40, help="bot-only hands per variant timed")
    parser.add_argument("--deals", type=int, default=100, help="deals per variant for win rates")
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--warm", action="store_true", help="keep the planner cache warm")
    args = parser.parse_args()
    gc.collect()
    print(f"bot move times ({'warm' if args.warm else 'cold'} planner cache), milliseconds")
    print(f"{'variant':<10} {'decision':<18} {'n':>6} {'p50':>8} {'p99':>8} {'max':>8}")
    rows = [(key, move_times(key, args.hands, args.seed, args.warm)) for key in VARIANT_KEYS]
    rows.append(("new5 38", stress_times(args.seed, args.warm)))
    for key, times in rows:
        for kind, values in times.items():
            if not values:
                continue
            p50 = statistics.median(values) * 1e3
            p99 = _percentile(values, 0.99) * 1e3
            mx = max(values) * 1e3
            print(f"{key:<10} {kind:<18} {len(values):>6} {p50:>8.2f} {p99:>8.2f} {mx:>8.2f}")
    print()
    print("bot vs 托管, same deals with sides swapped (托管 vs 托管 = 50.0%)")
    print(f"{'variant':<10} {'as landlord':>14} {'as farmers':>14} {'overall':>14}")
    for key in VARIANT_KEYS:
        lw, lg, fw, fg = win_rate(key, args.deals, args.seed)
        total = (lw + fw) / max(1, lg + fg) * 100
        print(
            f"{key:<10} {lw:>5}/{lg:<4} {lw / max(1, lg) * 100:>3.0f}% "
            f"{fw:>5}/{fg:<4} {fw / max(1, fg) * 100:>3.0f}% {total:>12.1f}%"
        )


if __name__ == "__main__":
    main()
