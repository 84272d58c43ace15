"""How strong the house bot is: mirrored deals against outside and earlier opponents.

A script that prints figures (never a test).

    .venv/bin/python bench/bot_strength.py [--deals 500] [--seed 20261201] [--base adbfde9]
        [--only rlcard|base|autoplay|cheat|belief|strong] [--variants classic3,qq5,new5,fenzhou5]
        [--rollout full|quick] [--cut 2] [--evaluation written|learned] [--think 0.1]
        [--samples 60] [--margin 0.05] [--margins 0.05,0.1,0.2] [--sure 2]
        [--strong-cards 10] [--strong-teams-known] [--search-deals 20] [--search-margin 0.1]
        [--cpu-clock] [--jobs 2]

Every deal is played twice from the same start, the bot once on each side ("mirrored"): the
bot's landlord side against the opponent's farmers, then the opponent's landlord side against
the bot's farmers. The engine judges every action (each goes through ``apply``). The pre-play
decisions (bids, grabs, reveals, doubles, the partner choice, the call) are made by the bot
at ``--base`` for every seat, so the contracts are the same deals for every version of the
bot measured and only the play differs. Opponents:

* ``rlcard``: RLCard 1.2.0's ``DouDizhuRuleAgentV1`` (classic3 only), installed apart in
  ``bench/.deps`` (see bench/README.md). It reads RLCard's raw observation: its hand as a
  string, the trace of plays and passes since the first lead, and its legal actions: our
  engine's legal plays written in RLCard's notation, kept when RLCard's action space has
  them (the strict kicker policy is used so that the two mostly agree). Its random fallback
  is seeded per game. A play of ours that RLCard cannot read (not in its action space) is
  counted and answered by the agent's own fallback for an unknown type.
* ``base``: the house bot as it was at the commit ``--base`` (its ``bot.py`` and
  ``planning.py`` loaded from git), every variant.
* ``autoplay``: the 托管 policy (docs/rules.md §2.5), every variant.
* ``cheat``: the ceiling of the search (issue #36, step 1): the bot's side is played by
  ``cheating_bot``, the search given the true hidden hands (one world, the real one, no
  clock), against the bot of ``--base``. ``--rollout full`` plays every candidate to the end
  with the whole bot in every seat (``best_of_worlds``, the search the bot has today);
  ``--rollout quick`` plays the cheap rollouts cut after ``--cut`` tricks and scored by the
  evaluation (``games.engine.rollouts``): ``--evaluation written`` the hand-written
  ``written_chance``, ``learned`` the learned ``games.engine.evaluation.learned_chance``
  (issue #36, step 4). It reads the whole state: a bench's tool, never the server's
  (nothing under games/ can build it).
* ``belief``: the bot's side searches its plays with ``games.engine.table_search`` (deals
  drawn from the seat's view and weighted by the plays seen, cheap rollouts cut after
  ``--cut`` tricks scored by ``--evaluation``, ``--think`` seconds and at most ``--samples``
  deals a decision, the bot's own move kept unless another scores ``--margin`` better),
  against ``--base``.
* ``strong``: the bot's side is the served bot at level STRONG (``bot_action(...,
  level=BotLevel.STRONG)``, the served think budget), against ``--base``. ``--margins a,b,c``
  prints a line per margin (``bot.STRONG_MARGIN`` set to it for the line's variant; without
  it, the engine's margins): choose a margin on held-out deals (another ``--seed``), then
  measure it on the default seed (bench/README.md, "Five-seat round 6"). ``--sure Z`` sets
  the standard errors a gain must clear too (``bot.STRONG_SURE``); ``--strong-cards N``
  and ``--strong-teams-known`` set where it searches (``bot.STRONG_CARDS``,
  ``bot.STRONG_TEAMS_KNOWN``). Each strong line is followed by its difference from the normal
  bot on the same deals (the normal bot's games played too): the deals where the strong bot
  never leaves the normal bot's moves cancel out, so the paired interval of the difference is
  much narrower than either line's, the figure to choose a margin by.

``--search-deals N`` takes the clock out of every search the bot makes: the strong level's
and classic3's end-game search draw exactly N deals (``bot.STRONG_SAMPLES``,
``bot.SEARCH_SAMPLES``) however long that takes (``STRONG_SECONDS``, ``SEARCH_SECONDS``
infinite), so a line's figure is the same on a quiet machine and a loaded one, and lines can
run side by side. The served bot draws at most that many within its budget: a strong line's
summary (``deals per search``, without ``--search-deals``) says how many it reaches.
``--cpu-clock`` keeps the clock but makes it count the process's own CPU time, not the
wall's (``time.perf_counter`` of the engine's modules that time a search becomes
``time.thread_time``): a figure of the served bot on a core of its own, taken while other
jobs run (their share of the caches aside). ``--search-margin M``: classic3's search leaves
the bot's own move only for a candidate that wins more than M of its deals more
(``bot.SEARCH_MARGIN``).

``--jobs J`` plays a line's deals in J processes (deal i in process i mod J) and adds their
counts up: the same games as one process plays (but RLCard's random fallback, drawn from each
process's copy of its generator), so use it only where the wall's time is not the search's:
with ``--search-deals`` or ``--cpu-clock``, or a line whose bot does not search.

Each line prints the bot's win share with a 95 % Wilson interval over games, and the half
width of a normal interval over deals (a deal's two games are not independent: the paired
interval is the honest one, and usually the narrower).
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import math
import multiprocessing
import random
import subprocess
import sys
import time
import types
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games.engine import bot as bot_module  # noqa: E402
from games.engine import rollouts as rollouts_module  # noqa: E402
from games.engine import search as search_module  # noqa: E402
from games.engine.bot import BotLevel, bot_action, play_candidates, rollout_policy  # noqa: E402
from games.engine.cards import cards_for_ranks, ranks_of  # noqa: E402
from games.engine.dealing import deal  # noqa: E402
from games.engine.evaluation import EVALUATIONS  # noqa: E402
from games.engine.hand import apply, autoplay_action, start_hand, waiting_seats  # noqa: E402
from games.engine.moves import legal_plays  # noqa: E402
from games.engine.rollouts import Evaluation, Scores, quick_best  # noqa: E402
from games.engine.search import best_of_worlds  # noqa: E402
from games.engine.state import FARMER_SIDE, LANDLORD_SIDE, PASS, PHASE_PLAY, PLAY, Action, HandState  # noqa: E402
from games.engine.table_search import belief_search  # noqa: E402
from games.engine.variants import find_variant  # noqa: E402
from games.engine.views import view_for  # noqa: E402

Policy = Callable[[HandState, int], Action]
VARIANT_KEYS = ("classic3", "qq5", "new5", "fenzhou5")


# ------------------------------------------------------------------ the bot at an older commit
def _module_from_git(commit: str, path: str, name: str) -> ModuleType:
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{commit}:{path}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    exec(compile(source, f"{commit}:{path}", "exec"), module.__dict__)  # our own code, from git
    return module


def frozen_bot(commit: str) -> Policy:
    """``bot_action`` as it was at ``commit``, with the planner of that commit too."""
    planning = _module_from_git(commit, "games/engine/planning.py", f"frozen_{commit}_planning")
    current = sys.modules["games.engine.planning"]
    sys.modules["games.engine.planning"] = planning  # the old bot's import binds the old planner
    try:
        bot = _module_from_git(commit, "games/engine/bot.py", f"frozen_{commit}_bot")
    finally:
        sys.modules["games.engine.planning"] = current
    return bot.bot_action


# ------------------------------------------------------------------ the search's ceiling
def cheating_bot(rollout: str, cut: int, evaluate: Evaluation) -> Policy:
    """The bot whose plays are chosen by its search over one world: the true state, every
    hidden hand and the teams included. Its candidates are the bot's own (``play_candidates``);
    the pre-play decisions are the bot's."""

    def decide(state: HandState, seat: int) -> Action:
        if state.phase != PHASE_PLAY:
            return bot_action(state, seat)
        candidates = play_candidates(state, seat)
        if rollout == "full":
            return best_of_worlds([state], seat, candidates, rollout_policy, seconds=math.inf)
        return quick_best([state], seat, candidates, seconds=math.inf, cut=cut, evaluate=evaluate)[
            0
        ]

    return decide


def belief_bot(
    *, think: float, samples: int, cut: int, margin: float, evaluate: Evaluation
) -> Policy:
    """The bot whose plays are searched over the beliefs its view supports."""

    def decide(state: HandState, seat: int) -> Action:
        if state.phase != PHASE_PLAY:
            return bot_action(state, seat)
        candidates = play_candidates(state, seat)
        rng = random.Random(f"{seat}:{len(state.history)}")
        return belief_search(
            view_for(state, seat),
            candidates,
            seconds=think,
            samples=samples,
            cut=cut,
            margin=margin,
            rng=rng,
            evaluate=evaluate,
        )

    return decide


class StrongBot:
    """The served bot at level STRONG (its pre-play decisions are the normal bot's), counting
    the plays where it left the normal bot's move, and the deals its searches scored."""

    def __init__(self) -> None:
        self.plays = self.departures = 0
        self.deals: list[int] = []  # per search
        scores = bot_module.belief_scores

        def counted(*args: Any, **kwargs: Any) -> Scores | None:
            found = scores(*args, **kwargs)
            self.deals.append(found.deals if found is not None else 0)
            return found

        bot_module.belief_scores = counted

    def __call__(self, state: HandState, seat: int) -> Action:
        action = bot_action(state, seat, level=BotLevel.STRONG)
        if state.phase == PHASE_PLAY:
            self.plays += 1
            self.departures += action != bot_action(state, seat)
        return action

    def summary(self) -> str:
        deals = sorted(self.deals) or [0]
        return (
            f"plays not the normal bot's: {self.departures}/{self.plays}; deals per search "
            f"p10 {deals[len(deals) // 10]} p50 {deals[len(deals) // 2]} ({len(self.deals)})"
        )

    def reset(self) -> None:
        self.plays = self.departures = 0
        self.deals.clear()


# ------------------------------------------------------------------ RLCard's rule agent
_RLCARD_CHARS = {
    **{r: ch for r, ch in zip(range(3, 16), "3456789TJQKA2", strict=True)},
    16: "B",
    17: "R",
}


def _rl(ranks: tuple[int, ...] | list[int]) -> str:
    return "".join(_RLCARD_CHARS[r] for r in sorted(ranks))


class RLCardRule:
    """RLCard's ``DouDizhuRuleAgentV1`` seated at one of our classic3 tables."""

    def __init__(self) -> None:
        sys.path.insert(0, str(ROOT / "bench" / ".deps"))
        import numpy as np
        from rlcard.games.doudizhu.utils import CARD_TYPE
        from rlcard.models.doudizhu_rule_models import DouDizhuRuleAgentV1

        self.np = np
        self.types = CARD_TYPE[0]
        self.agent = DouDizhuRuleAgentV1()
        self.unreadable = 0

    def action(self, state: HandState, seat: int, trace: list[tuple[int, str]]) -> Action:
        v = state.variant
        hand = state.hands[seat]
        ranks = ranks_of(hand)
        top = state.top.combo if state.top is not None else None
        plays = {_rl(c.ranks): c for c in legal_plays(v, ranks, top)}
        actions = [a for a in plays if a in self.types]
        if top is not None:
            actions.append("pass")
        obs = {
            "trace": trace,
            "current_hand": _rl(ranks),
            "actions": actions,
            "landlord": state.landlord,
            "self": seat,
        }
        try:
            choice = self.agent.step({"raw_obs": obs})
        except KeyError:  # our play has a shape RLCard does not know: it cannot answer it
            self.unreadable += 1
            choice = "pass"
        if choice == "pass":
            return Action(seat, PASS)
        combo = plays[choice]
        return Action(seat, PLAY, combo.kind, cards_for_ranks(hand, combo.ranks))


# ------------------------------------------------------------------ games
def _to_play(state: HandState, decide: Policy) -> HandState:
    while not state.finished and state.phase != PHASE_PLAY:
        state = apply(state, decide(state, waiting_seats(state)[0]))
    return state


def _play_out(state: HandState, bots: frozenset[int], bot: Policy, other: Callable) -> HandState:
    trace: list[tuple[int, str]] = []
    while not state.finished:
        seat = state.turn
        action = bot(state, seat) if seat in bots else other(state, seat, trace)
        trace.append((seat, _rl(ranks_of(action.cards)) if action.act == PLAY else "pass"))
        state = apply(state, action)
    return state


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def paired_half_width(per_deal: list[float], z: float = 1.96) -> float:
    n = len(per_deal)
    if n < 2:
        return 1.0
    mean = sum(per_deal) / n
    var = sum((x - mean) ** 2 for x in per_deal) / (n - 1)
    return z * math.sqrt(var / n)


def match(
    key: str, deals: Sequence[int], seed: int, decide: Policy, bot: Policy, other: Callable
) -> dict:
    """The mirrored games of the deals numbered ``deals``."""
    v = (
        find_variant(key, classic3_kicker_policy="strict")
        if key == "classic3"
        else find_variant(key)
    )
    lw = lg = fw = fg = 0
    per_deal: list[float] = []
    for i in deals:
        start = _to_play(start_hand(v, deal(v, f"{seed}-strength-{key}-{i}")), decide)
        if start.finished:
            continue
        won = 0
        end = _play_out(start, frozenset(start.landlord_side()), bot, other)
        lw += end.winner_side == LANDLORD_SIDE
        won += end.winner_side == LANDLORD_SIDE
        lg += 1
        end = _play_out(start, frozenset(start.farmer_side()), bot, other)
        fw += end.winner_side == FARMER_SIDE
        won += end.winner_side == FARMER_SIDE
        fg += 1
        per_deal.append(won / 2)
    return {"lw": lw, "lg": lg, "fw": fw, "fg": fg, "per_deal": per_deal}


# What the processes of ``--jobs`` play: set before they fork (closures do not pickle).
_SHARED: tuple[Any, ...] = ()


def _part(part: int) -> tuple[dict, tuple[int, int, list[int]] | None]:
    key, deals, seed, decide, bot, other, jobs = _SHARED
    r = match(key, range(part, deals, jobs), seed, decide, bot, other)
    return r, (bot.plays, bot.departures, bot.deals) if isinstance(bot, StrongBot) else None


def match_in(
    jobs: int, key: str, deals: int, seed: int, decide: Policy, bot: Policy, other: Callable
) -> dict:
    """``match`` of deals 0 … deals - 1 in ``jobs`` processes, their counts added up (the
    per-deal results of a line and of another over the same deals stay in the same order)."""
    if jobs <= 1:
        return match(key, range(deals), seed, decide, bot, other)
    global _SHARED
    _SHARED = (key, deals, seed, decide, bot, other, jobs)
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        parts = pool.map(_part, range(jobs))
    total: dict = {"lw": 0, "lg": 0, "fw": 0, "fg": 0, "per_deal": []}
    for r, counted in parts:
        for name in ("lw", "lg", "fw", "fg"):
            total[name] += r[name]
        total["per_deal"] += r["per_deal"]
        if counted is not None and isinstance(bot, StrongBot):
            bot.plays += counted[0]
            bot.departures += counted[1]
            bot.deals += counted[2]
    return total


def _line(name: str, key: str, r: dict, seconds: float) -> str:
    wins, games = r["lw"] + r["fw"], r["lg"] + r["fg"]
    lo, hi = wilson(wins, games)
    half = paired_half_width(r["per_deal"])
    return (
        f"{name:<10} {key:<9} {wins / max(1, games) * 100:6.1f}% [{lo * 100:5.1f}, {hi * 100:5.1f}]"
        f" ±{half * 100:4.1f} paired"
        f"  landlord {r['lw']}/{r['lg']} {r['lw'] / max(1, r['lg']) * 100:5.1f}%"
        f"  farmers {r['fw']}/{r['fg']} {r['fw'] / max(1, r['fg']) * 100:5.1f}%  ({seconds:.0f} s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=500, help="deals per line (each played twice)")
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--base", default="adbfde9", help="commit of the earlier bot")
    parser.add_argument(
        "--only",
        choices=("rlcard", "base", "autoplay", "cheat", "belief", "strong"),
        action="append",
    )
    parser.add_argument("--variants", default=",".join(VARIANT_KEYS))
    parser.add_argument("--rollout", choices=("full", "quick"), default="full", help="cheat only")
    parser.add_argument("--cut", type=int, default=2, help="tricks a quick rollout plays")
    parser.add_argument(
        "--evaluation", choices=tuple(EVALUATIONS), default="written", help="of a cut rollout"
    )
    parser.add_argument("--think", type=float, default=0.1, help="belief: seconds a play")
    parser.add_argument("--samples", type=int, default=60, help="belief: deals a play")
    parser.add_argument("--margin", type=float, default=0.05, help="belief: gain to deviate")
    parser.add_argument(
        "--margins", default="", help="strong: a line per margin (default: the engine's)"
    )
    parser.add_argument(
        "--strong-cards", type=int, help="strong: search once a seat holds this many or fewer"
    )
    parser.add_argument(
        "--sure", type=float, help="strong: standard errors a gain must clear (STRONG_SURE)"
    )
    parser.add_argument(
        "--strong-teams-known", action="store_true", help="strong: search once teams are known"
    )
    parser.add_argument(
        "--search-deals", type=int, help="exactly this many deals a search, no clock"
    )
    parser.add_argument(
        "--search-margin", type=float, help="classic3's search: gain to leave the bot's move"
    )
    parser.add_argument(
        "--cpu-clock", action="store_true", help="searches timed by CPU time, not wall time"
    )
    parser.add_argument("--jobs", type=int, default=1, help="processes a line's deals share")
    args = parser.parse_args()
    only = set(args.only or ("rlcard", "base", "autoplay"))
    if args.cpu_clock:
        cpu_clock = types.SimpleNamespace(perf_counter=time.thread_time)
        for module in (bot_module, search_module, rollouts_module):
            module.time = cpu_clock  # type: ignore[attr-defined]
    if args.search_margin is not None:
        bot_module.SEARCH_MARGIN = args.search_margin
    if args.search_deals is not None:
        bot_module.STRONG_SAMPLES = bot_module.SEARCH_SAMPLES = args.search_deals
        bot_module.STRONG_SECONDS = bot_module.SEARCH_SECONDS = math.inf
    evaluate = EVALUATIONS[args.evaluation]
    scored = "" if args.evaluation == "written" else f"-{args.evaluation}"
    keys = [k for k in args.variants.split(",") if k]
    base = frozen_bot(args.base)
    against_base = lambda s, seat, _t: base(s, seat)  # noqa: E731
    opponents: list[tuple[str, Policy, Callable, tuple[str, ...]]] = []
    if "rlcard" in only and "classic3" in keys:
        rl = RLCardRule()
        opponents.append(("rlcard", bot_action, rl.action, ("classic3",)))
    if "base" in only:
        opponents.append((f"base@{args.base}", bot_action, against_base, tuple(keys)))
    if "autoplay" in only:
        autoplay = lambda s, seat, _t: autoplay_action(s, seat)  # noqa: E731
        opponents.append(("autoplay", bot_action, autoplay, tuple(keys)))
    if "cheat" in only:
        cheat = cheating_bot(args.rollout, args.cut, evaluate)
        name = f"cheat-{args.rollout}" + (f"{args.cut}{scored}" if args.rollout == "quick" else "")
        opponents.append((name, cheat, against_base, tuple(keys)))
    if "belief" in only:
        searched = belief_bot(
            think=args.think,
            samples=args.samples,
            cut=args.cut,
            margin=args.margin,
            evaluate=evaluate,
        )
        name = f"belief-c{args.cut}{scored}-m{args.margin}"
        opponents.append((name, searched, against_base, tuple(keys)))
    margins: list[float | None] = [None]
    if "strong" in only:
        margins = [float(m) for m in args.margins.split(",") if m] or [None]
        if args.strong_cards is not None:
            bot_module.STRONG_CARDS = dict.fromkeys(keys, args.strong_cards)
        bot_module.STRONG_TEAMS_KNOWN |= args.strong_teams_known
        if args.sure is not None:
            bot_module.STRONG_SURE = args.sure
        strong = StrongBot()
        opponents.append(("strong", strong, against_base, tuple(keys)))
    normal: dict[str, dict] = {}  # the normal bot's games, for the strong lines' difference
    print(f"bot against opponents, {args.deals} mirrored deals per line (95% Wilson over games)")
    for name, bot, other, variant_keys in opponents:
        swept = margins if name == "strong" else [None]
        for key, margin in itertools.product(variant_keys, swept):
            t0 = time.perf_counter()
            label = name
            if name == "strong":
                if margin is not None:
                    bot_module.STRONG_MARGIN[key] = margin
                label = f"strong-m{bot_module.STRONG_MARGIN.get(key)}"
                label += f"-s{bot_module.STRONG_SURE}-c{bot_module.STRONG_CARDS.get(key)}"
                label += "-teams" if bot_module.STRONG_TEAMS_KNOWN else ""
            label += f"-d{args.search_deals}" if args.search_deals else ""
            label += "-cpu" if args.cpu_clock else ""
            label += f"-sm{args.search_margin}" if args.search_margin is not None else ""
            if name == "rlcard":
                rl.np.random.seed(args.seed)  # its fallback picks at random
            r = match_in(args.jobs, key, args.deals, args.seed, base, bot, other)
            print(_line(label, key, r, time.perf_counter() - t0), flush=True)
            if name == "strong":
                if key not in normal:
                    normal[key] = match_in(
                        args.jobs, key, args.deals, args.seed, base, bot_action, other
                    )
                gain = [a - b for a, b in zip(r["per_deal"], normal[key]["per_deal"], strict=True)]
                print(
                    f"{'':11}against the normal bot on the same deals: "
                    f"{sum(gain) / max(1, len(gain)) * 100:+5.1f} points "
                    f"±{paired_half_width(gain) * 100:4.1f} paired; {strong.summary()}"
                )
                strong.reset()
            if name == "rlcard" and rl.unreadable:
                print(f"           (plays RLCard could not read: {rl.unreadable})")


if __name__ == "__main__":
    main()
