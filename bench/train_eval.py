"""Train the cut rollouts' learned evaluation (issue #36, step 4) and measure it on held-out deals.

    # 1. self-play positions, one variant a run (each a few minutes on a loaded 2 vCPU)
    .venv/bin/python bench/train_eval.py generate --variant qq5 --hands 3000
    .venv/bin/python bench/train_eval.py generate --variant qq5 --hands 500 --held-out
    ... the same for new5, fenzhou5 and classic3 (numbers below, bench/README.md)
    # 2. fit the model, write games/engine/eval_model.json, print the held-out figures
    .venv/bin/python bench/train_eval.py train
    # only the held-out figures of the model in the repository
    .venv/bin/python bench/train_eval.py score

``generate`` deals ``--hands`` hands of one variant (deal seeds ``<seed>-evaltrain-<key>-<i>``,
or ``-evaltest-`` with ``--held-out``: never the same deals), lets the house bot play every seat
(the planner against itself; classic3's endgame search without its clock and with 4 samples,
so that a hand is a function of its seed), and writes one row per position where a trick
starts (the only positions a cut rollout scores: it stops when a trick closes): the features
``games.engine.evaluation.position_features`` reads of the true deal, the hand-written chance
``written_chance`` and the label (1: the landlord side won). Rows go to
``bench/.evaldata/<train|test>-<key>.tsv`` (gitignored).

``train`` fits a network with one hidden layer of ``--hidden`` tanh units (0: a logistic
regression) by minibatch Adam with a fixed seed, on every train file, and writes the weights
rounded to 6 significant digits; the same data and seed give the same file. It then scores the
written model (as ``games.engine`` reads it, in plain Python) and the hand-written evaluation
on the held-out rows: log-loss, accuracy (the side given more than half the chance won) and
the base rate's log-loss, per variant.

numpy is a bench dependency (bench/requirements.txt, installed into ``bench/.deps``):
    .venv/bin/pip install --no-deps --target bench/.deps numpy==2.3.5
The engine reads the model without it.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "bench" / ".deps"))

from games.engine import bot as bot_module  # noqa: E402
from games.engine.bot import bot_action  # noqa: E402
from games.engine.dealing import deal  # noqa: E402
from games.engine.evaluation import (  # noqa: E402
    FEATURE_NAMES,
    MODEL_PATH,
    LearnedEvaluation,
    position_features,
)
from games.engine.hand import apply, start_hand, waiting_seats  # noqa: E402
from games.engine.rollouts import QuickWorld, written_chance  # noqa: E402
from games.engine.state import LANDLORD_SIDE, PHASE_PLAY, HandState  # noqa: E402
from games.engine.variants import find_variant  # noqa: E402

DATA = ROOT / "bench" / ".evaldata"
VARIANT_KEYS = ("classic3", "qq5", "new5", "fenzhou5")
SEED = 20261205
EPS = 1e-12


# ------------------------------------------------------------------ self-play positions
def _self_play(state: HandState) -> tuple[list[HandState], HandState]:
    """The positions where a trick starts along the bots' play of ``state``, and the end."""
    starts = []
    while not state.finished:
        if state.phase == PHASE_PLAY and state.top is None:
            starts.append(state)
        state = apply(state, bot_action(state, waiting_seats(state)[0]))
    return starts, state


def generate(key: str, hands: int, seed: int, held_out: bool) -> Path:
    bot_module.SEARCH_SECONDS = math.inf  # classic3's endgame search: a function of the state
    bot_module.SEARCH_SAMPLES = 4
    v = find_variant(key)
    part = "test" if held_out else "train"
    DATA.mkdir(exist_ok=True)
    out = DATA / f"{part}-{key}.tsv"
    rows = 0
    with out.open("w", encoding="utf-8") as f:
        f.write("\t".join(("deal", *FEATURE_NAMES, "written", "landlord_won")) + "\n")
        for i in range(hands):
            starts, end = _self_play(start_hand(v, deal(v, f"{seed}-eval{part}-{key}-{i}")))
            if not starts:
                continue  # a redeal or an auto-win: no play
            won = int(end.winner_side == LANDLORD_SIDE)
            for state in starts:
                world = QuickWorld.of(state)
                x = position_features(world)
                cells = (str(i), *(f"{value:.6g}" for value in x), f"{written_chance(world):.6g}")
                f.write("\t".join((*cells, str(won))) + "\n")
                rows += 1
    print(f"{out}: {rows} positions of {hands} deals")
    return out


def _read(part: str, key: str) -> tuple[list[list[float]], list[float], list[int]]:
    xs, written, ys = [], [], []
    with (DATA / f"{part}-{key}.tsv").open(encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        if header[1:-2] != list(FEATURE_NAMES):
            raise SystemExit(f"{part}-{key}.tsv holds other features: generate it again")
        for line in f:
            cells = line.rstrip("\n").split("\t")
            xs.append([float(c) for c in cells[1:-2]])
            written.append(float(cells[-2]))
            ys.append(int(cells[-1]))
    return xs, written, ys


# ------------------------------------------------------------------ fitting (numpy)
def fit(xs: list[list[float]], ys: list[int], *, hidden: int, seed: int) -> LearnedEvaluation:
    import numpy as np

    rng = np.random.RandomState(seed)
    x = np.asarray(xs, dtype=np.float64)
    y = np.asarray(ys, dtype=np.float64)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0  # a constant feature (a seat classic3 never has) stays at zero
    z = (x - mean) / scale
    d = z.shape[1]
    params = {
        "w1": rng.normal(0.0, 1.0 / math.sqrt(d), (d, hidden)),
        "b1": np.zeros(hidden),
        "w2": rng.normal(0.0, 1.0 / math.sqrt(max(1, hidden)), hidden or d),
        "b2": np.zeros(1),
    }
    moments = {k: (np.zeros_like(p), np.zeros_like(p)) for k, p in params.items()}
    lr, beta1, beta2, l2, batch, epochs = 0.003, 0.9, 0.999, 1e-4, 256, 12
    step = 0
    for _ in range(epochs):
        order = rng.permutation(len(y))
        for start in range(0, len(y), batch):
            idx = order[start : start + batch]
            zb, yb = z[idx], y[idx]
            h = np.tanh(zb @ params["w1"] + params["b1"]) if hidden else zb
            p = 1.0 / (1.0 + np.exp(-(h @ params["w2"] + params["b2"][0])))
            g = (p - yb) / len(yb)  # d log-loss / d logit
            grads = {"w2": h.T @ g + l2 * params["w2"], "b2": np.array([g.sum()])}
            if hidden:
                gh = np.outer(g, params["w2"]) * (1.0 - h * h)
                grads["w1"] = zb.T @ gh + l2 * params["w1"]
                grads["b1"] = gh.sum(axis=0)
            else:
                grads["w1"] = np.zeros_like(params["w1"])
                grads["b1"] = np.zeros_like(params["b1"])
            step += 1
            for k, grad in grads.items():
                m, s = moments[k]
                m[:] = beta1 * m + (1 - beta1) * grad
                s[:] = beta2 * s + (1 - beta2) * grad * grad
                mh = m / (1 - beta1**step)
                sh = s / (1 - beta2**step)
                params[k] -= lr * mh / (np.sqrt(sh) + 1e-8)

    def rounded(a: object) -> tuple[float, ...]:
        return tuple(float(f"{v:.6g}") for v in np.asarray(a).ravel())

    return LearnedEvaluation(
        mean=rounded(mean),
        scale=rounded(scale),
        hidden=tuple(rounded(row) for row in params["w1"].T) if hidden else (),
        hidden_bias=rounded(params["b1"]),
        output=rounded(params["w2"]),
        output_bias=float(f"{params['b2'][0]:.6g}"),
    )


# ------------------------------------------------------------------ held-out figures
def _log_loss(ps: list[float], ys: list[int]) -> float:
    total = 0.0
    for p, y in zip(ps, ys, strict=True):
        p = min(1 - EPS, max(EPS, p))
        total -= math.log(p) if y else math.log(1 - p)
    return total / max(1, len(ys))


def _accuracy(ps: list[float], ys: list[int]) -> float:
    return sum((p > 0.5) == bool(y) for p, y in zip(ps, ys, strict=True)) / max(1, len(ys))


def score(path: Path, keys: list[str]) -> None:
    """The held-out figures of the model at ``path``, read as the engine reads it."""
    t0 = time.perf_counter()
    model = LearnedEvaluation.from_json(json.loads(path.read_text(encoding="utf-8")))
    loaded = time.perf_counter() - t0
    size = path.stat().st_size
    print(f"{path}: {size / 1024:.0f} KiB, read in {loaded * 1000:.1f} ms")
    print("held-out positions (deals never trained on): log-loss / accuracy")
    print(f"{'variant':<9} {'positions':>9} {'base rate':>10} {'written':>16} {'learned':>16}")
    for key in keys:
        if not (DATA / f"test-{key}.tsv").exists():
            continue
        xs, written, ys = _read("test", key)
        learned = [model.probability(x) for x in xs]
        rate = sum(ys) / max(1, len(ys))
        print(
            f"{key:<9} {len(ys):>9} {_log_loss([rate] * len(ys), ys):>10.3f}"
            f" {_log_loss(written, ys):>8.3f} {_accuracy(written, ys) * 100:>6.1f}%"
            f" {_log_loss(learned, ys):>8.3f} {_accuracy(learned, ys) * 100:>6.1f}%"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate", help="self-play positions of one variant")
    gen.add_argument("--variant", choices=VARIANT_KEYS, required=True)
    gen.add_argument("--hands", type=int, default=3000)
    gen.add_argument("--seed", type=int, default=SEED)
    gen.add_argument("--held-out", action="store_true", help="the test deals")
    train = sub.add_parser("train", help="fit, write the model, print the held-out figures")
    train.add_argument("--hidden", type=int, default=16, help="tanh units (0: logistic)")
    train.add_argument("--seed", type=int, default=SEED)
    train.add_argument("--out", type=Path, default=MODEL_PATH)
    sub.add_parser("score", help="the held-out figures of the model in the repository")
    args = parser.parse_args()
    if args.command == "generate":
        t0 = time.process_time()
        generate(args.variant, args.hands, args.seed, args.held_out)
        print(f"({time.process_time() - t0:.0f} s of CPU)")
        return
    keys = [k for k in VARIANT_KEYS if (DATA / f"train-{k}.tsv").exists()]
    if args.command == "train":
        xs: list[list[float]] = []
        ys: list[int] = []
        for key in keys:
            kx, _, ky = _read("train", key)
            xs += kx
            ys += ky
        print(f"training on {len(ys)} positions of {', '.join(keys)}, {args.hidden} hidden units")
        model = fit(xs, ys, hidden=args.hidden, seed=args.seed)
        args.out.write_text(json.dumps(model.to_json(), indent=1) + "\n", encoding="utf-8")
        score(args.out, list(VARIANT_KEYS))
        return
    score(MODEL_PATH, list(VARIANT_KEYS))


if __name__ == "__main__":
    main()
