"""Legal-play generation benchmark: ours vs DouZero's MovesGener vs RLCard's judger.

A script that prints figures (never a timed test). See bench/README.md for the setup:
DouZero and RLCard live in bench/.deps, outside the app's environment.

    .venv/bin/python bench/engine_moves.py [--hands 2000] [--seed 20261129] [--rounds 9]
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "bench" / ".deps"))

from games.engine import moves as moves_mod  # noqa: E402
from games.engine.combos import classify, clear_caches  # noqa: E402
from games.engine.moves import legal_plays  # noqa: E402
from games.engine.variants import find_variant  # noqa: E402

try:
    from douzero.env.move_generator import MovesGener
except ImportError:  # pragma: no cover - printed, not raised
    MovesGener = None
try:
    from rlcard.games.doudizhu.judger import DoudizhuJudger
except ImportError:  # pragma: no cover
    DoudizhuJudger = None

DOUZERO_CODE = {15: 17, 16: 20, 17: 30}  # DouZero: 2 = 17, small joker = 20, big joker = 30
RLCARD_CHARS = "3456789TJQKA2BR"  # RLCard: B = black (small) joker, R = red (big) joker


def deck_ranks(decks: int) -> list[int]:
    return [r for r in range(3, 16) for _ in range(4 * decks)] + [16, 17] * decks


def random_hands(rng: random.Random, decks: int, size: int, count: int) -> list[list[int]]:
    deck = deck_ranks(decks)
    return [sorted(rng.sample(deck, size)) for _ in range(count)]


def reset_ours() -> None:
    """Empty every cache our generator and ``classify`` keep: a freshly started process."""
    moves_mod._clear_caches()
    clear_caches()


def timed(fn, hands) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) of fn(hands)."""
    cpu = time.process_time()
    start = time.perf_counter()
    fn(hands)
    return time.perf_counter() - start, time.process_time() - cpu


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))
    return ordered[index]


def throughput(contenders, warmup, rounds: int, chunk: int, phases):
    """Per round and phase ("cold": caches emptied; "ours": caches emptied, then warmed on
    the `warmup` hands), one pass of every contender over its hands, run `chunk` hands at
    a time with the contenders' chunks interleaved in rotating order. Returns the (wall,
    CPU) pass times: ours by phase, the others in total and by phase."""
    run_ours = contenders[0][1]
    size = len(contenders[0][2])
    chunks = [slice(i, i + chunk) for i in range(0, size, chunk)]
    samples: dict[str, list[tuple[float, float]]] = {phase: [] for phase in phases}
    paired: dict[str, list[tuple[float, float]]] = {}
    for name, _, _ in contenders[1:]:
        samples[name] = []
        for phase in phases:
            paired[f"{name}/{phase}"] = []
    for rnd in range(rounds):
        for phase in phases:
            reset_ours()
            if phase == "ours":
                run_ours(warmup)
            gc.collect()
            totals = {name: [0.0, 0.0] for name, _, _ in contenders}
            for k, part in enumerate(chunks):
                shift = (rnd + k) % len(contenders)
                for name, fn, hs in contenders[shift:] + contenders[:shift]:
                    wall, cpu = timed(fn, hs[part])
                    totals[name][0] += wall
                    totals[name][1] += cpu
            for name, (wall, cpu) in totals.items():
                if name == "ours":
                    samples[phase].append((wall, cpu))
                else:
                    samples[name].append((wall, cpu))
                    paired[f"{name}/{phase}"].append((wall, cpu))
    return samples, paired


def report(samples, paired, hands: int, phases) -> None:
    rows = [
        ("ours, warm caches, unseen hands", "ours"),
        ("ours, cold caches (first pass)", "cold"),
        ("DouZero MovesGener.gen_moves", "DouZero"),
        ("RLCard playable_cards_from_hand", "RLCard"),
    ]
    us = 1e6 / hands
    print(f"{'µs per hand, median of rounds':38s} {'wall':>7s} {'(range)':>14s} {'CPU':>7s}")
    for label, name in rows:
        if name not in samples:
            continue
        wall = [w for w, _ in samples[name]]
        cpu = [c for _, c in samples[name]]
        print(
            f"{label:38s} {statistics.median(wall) * us:7.1f} "
            f"{f'({min(wall) * us:.1f}..{max(wall) * us:.1f})':>14s} "
            f"{statistics.median(cpu) * us:7.1f}"
        )
    for other in ("DouZero", "RLCard"):
        if other not in samples:
            print(f"{other} not installed: see bench/README.md")
            continue
        # Ratios per round (the passes of one round ran back to back), then the median.
        for which in phases:
            label = "warm, unseen hands" if which == "ours" else "cold caches"
            theirs = paired[f"{other}/{which}"]
            wall = [t[0] / o[0] for t, o in zip(theirs, samples[which], strict=True)]
            cpu = [t[1] / o[1] for t, o in zip(theirs, samples[which], strict=True)]
            print(
                f"ratio ours/{other} throughput, {label:18s}: "
                f"{statistics.median(wall):.2f}x wall (rounds {min(wall):.2f}..{max(wall):.2f}), "
                f"{statistics.median(cpu):.2f}x CPU"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--chunk", type=int, default=20)
    parser.add_argument("--landlord-hands", type=int, default=300)
    parser.add_argument("--warmup-hands", type=int, default=10000)
    args = parser.parse_args()

    classic3 = find_variant("classic3")
    rng = random.Random(args.seed)
    hands = random_hands(rng, 1, 20, args.hands)
    warmup = random_hands(random.Random(args.seed + 1), 1, 20, args.warmup_hands)
    dz_hands = [[DOUZERO_CODE.get(r, r) for r in h] for h in hands]
    rl_hands = ["".join(RLCARD_CHARS[r - 3] for r in h) for h in hands]

    def run_ours(hs):
        for h in hs:
            legal_plays(classic3, h, None)

    def run_douzero(hs):
        for h in hs:
            MovesGener(h).gen_moves()

    def run_rlcard(hs):
        for h in hs:
            DoudizhuJudger.playable_cards_from_hand(h)

    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"# machine: {os.cpu_count()} CPUs, load average {load} (1, 5, 15 min)")
    print(f"# python {sys.version.split()[0]}")
    print(f"# classic3, {args.hands} seeded random 20-card hands (seed {args.seed}), leading")
    contenders = [("ours", run_ours, hands)]
    if MovesGener is not None:
        contenders.append(("DouZero", run_douzero, dz_hands))
    if DoudizhuJudger is not None:
        contenders.append(("RLCard", run_rlcard, rl_hands))
    print(
        f"# {args.rounds} rounds; each: a cold pass (caches emptied), then caches emptied and "
        f"warmed on {args.warmup_hands} other hands and a warm pass over the benchmark hands "
        "(never seen by the caches); each pass of ours followed by one of DouZero and RLCard, "
        "in rotating order"
    )
    samples, paired = throughput(contenders, warmup, args.rounds, args.hands, ("cold", "ours"))
    report(samples, paired, args.hands, ("ours", "cold"))
    print()
    print(
        f"# the same warm passes cut into chunks of {args.chunk} hands, the contenders' chunks "
        "interleaved: no engine has the CPU caches to itself (a server runs other code "
        "between two calls)"
    )
    samples, paired = throughput(contenders, warmup, args.rounds, args.chunk, ("ours",))
    report(samples, paired, args.hands, ("ours",))

    print()
    print("# per-hand latency, landlord hands (ms), leading and following a random legal play")
    head = ("variant", "cards", "mode", "p50", "p99", "max", "plays p50")
    print("{:10s} {:>5s} {:9s} {:>8s} {:>8s} {:>8s} {:>9s}".format(*head))
    for key, decks, size in (("qq5", 2, 24), ("new5", 3, 38), ("fenzhou5", 2, 24)):
        variant = find_variant(key)
        vrng = random.Random(f"{args.seed}-{key}")
        lead_t, follow_t, lead_n = [], [], []
        for _ in range(args.landlord_hands):
            deck = deck_ranks(decks)
            vrng.shuffle(deck)
            hand = sorted(deck[:size])
            other = sorted(deck[size : size + variant.hand_size])
            t0 = time.perf_counter_ns()
            plays = legal_plays(variant, hand, None)
            lead_t.append((time.perf_counter_ns() - t0) / 1e6)
            lead_n.append(len(plays))
            top = vrng.choice(legal_plays(variant, other, None))
            t0 = time.perf_counter_ns()
            legal_plays(variant, hand, top)
            follow_t.append((time.perf_counter_ns() - t0) / 1e6)
        for mode, samples in (("leading", lead_t), ("following", follow_t)):
            print(
                f"{key:10s} {size:5d} {mode:9s} {percentile(samples, 50):8.3f} "
                f"{percentile(samples, 99):8.3f} {max(samples):8.3f} "
                f"{statistics.median(lead_n) if mode == 'leading' else '':>9}"
            )

    if MovesGener is not None or DoudizhuJudger is not None:
        print()
        compare_counts(classic3, hands[:300])


def compare_counts(variant, hands) -> None:
    """Ours vs DouZero and RLCard on the same hands: distinct plays, and what differs, by the
    kind our engine gives the multiset (or "illegal here" when our rules have no reading)."""
    back = {v: k for k, v in DOUZERO_CODE.items()}
    others = {}
    if MovesGener is not None:
        others["DouZero"] = lambda hand: {
            tuple(sorted(back.get(c, c) for c in m))
            for m in MovesGener([DOUZERO_CODE.get(r, r) for r in hand]).gen_moves()
        }
    if DoudizhuJudger is not None:
        others["RLCard"] = lambda hand: {
            tuple(sorted(RLCARD_CHARS.index(ch) + 3 for ch in play))
            for play in DoudizhuJudger.playable_cards_from_hand(
                "".join(RLCARD_CHARS[r - 3] for r in hand)
            )
        }
    print(f"# count comparison on {len(hands)} of those hands (distinct multisets, leading)")
    for name, gen in others.items():
        ours_total = their_total = equal = 0
        only_ours: Counter[str] = Counter()
        only_theirs: Counter[str] = Counter()
        for hand in hands:
            ours = {c.ranks: c.kind for c in legal_plays(variant, hand, None)}
            theirs = gen(hand)
            ours_total += len(ours)
            their_total += len(theirs)
            equal += set(ours) == theirs
            for ranks in set(ours) - theirs:
                only_ours[ours[ranks]] += 1
            for ranks in theirs - set(ours):
                readings = classify(variant, ranks)
                only_theirs[readings[0].kind if readings else "illegal here"] += 1
        print(
            f"{name}: ours {ours_total} plays, {name} {their_total}; "
            f"identical sets on {equal}/{len(hands)} hands"
        )
        print(f"  only ours, by kind:      {dict(only_ours.most_common()) or 'none'}")
        print(f"  only {name}, by kind: {dict(only_theirs.most_common()) or 'none'}")


if __name__ == "__main__":
    main()
