"""Bots off the request path (issue #20): how long a bot decides, and how long a player waits for
its reply, with the deadline runner doing the bots' work while a server carries load. Prints
figures; not a test.

    .venv/bin/python bench/bot_latency.py [--tables 2] [--seconds 60] [--load 50] [--delay-ms 600]
    .venv/bin/python bench/bot_latency.py --levels easy,normal,strong [--hands 20] [--think S]

Tables of one player and bots (classic3: two bots; qq5, new5, fenzhou5: four) play in this
process through the services, as a table socket's consumer calls them: the player's move
returns at once and the bots' replies come from the deadline runner (``run_forever``, the loop
of ``manage.py run_deadlines``; a thread here, a separate thread of daphne in the default
deployment) after the room's delay, with the search's own time budget (``--think``: the
engine's when not given). Each player answers ``--pace`` seconds after the bots are done.

Figures, per variant:
* decision: wall and CPU milliseconds of each bot decision (``bot_action`` as the runner calls
  it, outside any transaction); ``new5 38 cards`` are the decisions of a bot holding 38 cards
  (the new5 landlord after the bottom cards);
* reply: from the player's move returning to the first bot's move being in the database, as
  served (the room's delay included; ``late`` is that minus the delay);
* move: how long the player's own service call took (no bot decides in it).

``--levels easy,normal,strong`` instead times the engine alone, no server (issue #36): bots of
each level in every seat play ``--hands`` seeded deals per variant in this process, and every
play decision's wall and CPU time is reported per variant and level, with ``--think`` as the
served budget (the engine's when not given); ``no-gc`` is the wall time less the garbage
collector's pauses inside the decision (a full collection walks every cached plan of the
process: a pause of the process, not of the decision's work), the collector set as served
(``games.runner.collector``). Run it with nothing else busy, pinned to one core (``taskset -c
0``), for the p99 of one core.

``--load N`` runs ``bench/load_tables.py --tables N --pace human --redis ''`` meanwhile (its own
daphne, clients and database ``<database>_load``) so the machine carries a served load.
Everything runs against throw-away PostgreSQL databases (``--database``, dropped and migrated).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import load_tables  # noqa: E402

VARIANTS = ("classic3", "qq5", "new5", "fenzhou5")
# how often a player looks: for his turn, and for the bot's reply (its figure's resolution)
TURN_POLL = 0.05
REPLY_POLL = 0.01


def _setup(database: str, threads: int) -> None:
    load_tables.prepare_database(SimpleNamespace(database=database, redis=""))
    os.environ.update(
        DATABASE_URL=database,
        # a pooled connection per thread: every player's and the runner's
        DB_POOL_MAX_SIZE=str(threads + 2),
        DJANGO_SETTINGS_MODULE="ddz_site.settings",
        DEBUG="0",
        SECRET_KEY="bench-only-secret-key-" + "x" * 40,
        LOG_LEVEL="WARNING",
    )
    import django

    django.setup()


class Recorder:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.rows: dict[str, list[tuple[float, ...]]] = defaultdict(list)

    def add(self, key: str, *figures: float) -> None:
        with self.lock:
            self.rows[key].append(figures)


def _time_decisions(recorder: Recorder) -> None:
    """Time every bot decision the runner makes (the runner's own call, unchanged)."""
    from games.services import hand_deadlines

    decide = hand_deadlines.bot_action

    def timed(state, seat, **kwargs):
        wall, cpu = time.perf_counter(), time.thread_time()
        action = decide(state, seat, **kwargs)
        wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
        recorder.add(state.variant.key, wall, cpu)
        if state.variant.key == "new5" and len(state.hands[seat]) == 38:
            recorder.add("new5 38 cards", wall, cpu)
        return action

    hand_deadlines.bot_action = timed


def _tables(variants: list[str], count: int, delay_ms: int) -> list[tuple[str, int, object]]:
    from accounts.models import User
    from accounts.services import beans_grant
    from games import services

    out = []
    for variant in variants:
        room = services.room_create(
            name=f"bench bots {variant}",
            variant=variant,
            bid_seconds=120,
            turn_seconds=120,
            bot_delay_ms=delay_ms,
        )
        for i in range(count):
            user = User.objects.create_user(username=f"{variant}-{i}", password="x")
            beans_grant(user=user, amount=10_000_000)
            table = services.table_create(room=room)
            services.table_join(table_id=table.pk, user=user)
            services.table_fill_with_bots(table_id=table.pk)
            out.append((variant, table.pk, user))
    return out


def _player(
    variant: str,
    table_id: int,
    user: object,
    *,
    stop: threading.Event,
    pace: float,
    delay: float,
    replies: Recorder,
    moves: Recorder,
) -> None:
    from django.db import connection

    from games import services
    from games.engine.hand import waiting_seats
    from games.models import Hand, Seat
    from games.reads.selectors import hand_state
    from games.table.errors import ActionRejected
    from tests.support.tables import client_action

    seat = Seat.objects.get(table_id=table_id, user=user).index
    try:
        while not stop.is_set():
            hand = Hand.objects.filter(table_id=table_id, status=Hand.Status.ACTIVE).first()
            if hand is None:
                try:
                    services.hand_start(table_id=table_id, user=user)
                except ActionRejected:
                    stop.wait(TURN_POLL)
                continue
            state = hand_state(hand)
            if seat not in waiting_seats(state):
                stop.wait(TURN_POLL)
                continue
            stop.wait(pace)
            sent = time.perf_counter()
            try:
                after = services.hand_submit_action(
                    hand_id=hand.pk,
                    user=user,
                    action=client_action(state, seat),
                    expected_version=hand.version,
                )
            except ActionRejected:
                continue  # a timeout of ours or the like: read again
            returned = time.perf_counter()
            moves.add(variant, returned - sent)
            if after.status != Hand.Status.ACTIVE or seat in waiting_seats(hand_state(after)):
                continue
            # the first bot's reply: the version moves past the one our move left
            while not stop.is_set():
                if Hand.objects.filter(pk=after.pk, version__gt=after.version).exists():
                    served = time.perf_counter() - returned
                    replies.add(variant, served, served - delay)
                    break
                stop.wait(REPLY_POLL)
    finally:
        connection.close()


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _show(title: str, rows: dict[str, list[tuple[float, ...]]], labels: tuple[str, ...]) -> None:
    print(title)
    print(
        f"{'variant':<14} {'n':>6} "
        + " ".join(f"{f'{label} {q}':>11}" for label in labels for q in ("p50", "p99", "max"))
    )
    for key in (*VARIANTS, "new5 38 cards"):
        values = rows.get(key) or []
        if not values:
            continue
        cells = []
        for column in range(len(labels)):
            ms = [v[column] * 1e3 for v in values]
            cells += [statistics.median(ms), _percentile(ms, 0.99), max(ms)]
        print(f"{key:<14} {len(values):>6} " + " ".join(f"{c:>11.1f}" for c in cells))
    print()


def _engine_decisions(
    variants: list[str], levels: list[str], hands: int, think: float | None
) -> None:
    """Every play decision of bots of each level in every seat, timed: wall and CPU ms per
    variant and level (the engine alone, the process's caches warm after the first hand)."""
    from games.engine.bot import BotLevel, bot_action
    from games.engine.dealing import deal
    from games.engine.hand import apply, start_hand, waiting_seats
    from games.engine.state import PHASE_PLAY
    from games.engine.variants import find_variant
    from games.runner.collector import settle_collector

    settle_collector()  # as the served process does once started (the caches start cold)

    collecting: list[float] = []  # the garbage collector's pauses, seconds (issue #36)

    def pauses(phase: str, info: dict) -> None:
        if phase == "start":
            collecting.append(-time.perf_counter())
        else:
            collecting[-1] += time.perf_counter()

    gc.callbacks.append(pauses)
    print(f"engine only, {hands} seeded hands a line, think {think or 'engine default'}")
    for level in levels:
        rows: dict[str, list[tuple[float, ...]]] = defaultdict(list)
        for key in variants:
            v = find_variant(key)
            for i in range(hands):
                state = start_hand(v, deal(v, f"20261205-latency-{key}-{i}"))
                while not state.finished:
                    seat = waiting_seats(state)[0]
                    wall, cpu = time.perf_counter(), time.thread_time()
                    before = len(collecting)
                    action = bot_action(state, seat, think=think, level=BotLevel(level))
                    wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
                    row = (wall, cpu, wall - sum(collecting[before:]))
                    if state.phase == PHASE_PLAY:
                        rows[key].append(row)
                        if key == "new5" and len(state.hands[seat]) == 38:
                            rows["new5 38 cards"].append(row)
                    state = apply(state, action)
        _show(f"play decisions, level {level}, ms", rows, ("wall", "cpu", "no-gc"))
    gc.callbacks.remove(pauses)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=2, help="tables per variant")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--pace", type=float, default=0.3, help="a player's answer, seconds")
    parser.add_argument("--delay-ms", type=int, default=600, help="the rooms' bot delay")
    parser.add_argument("--think", type=float, default=None, help="DDZ_BOT_THINK_SECONDS")
    parser.add_argument("--load", type=int, default=50, help="load_tables.py tables; 0: none")
    parser.add_argument(
        "--database", default="postgres://postgres@127.0.0.1:5432/ddz_botbench", help="dropped!"
    )
    parser.add_argument("--levels", default="", help="engine only: bot levels to time")
    parser.add_argument("--hands", type=int, default=20, help="engine only: hands a variant")
    args = parser.parse_args()
    if args.levels:
        _engine_decisions(args.variants.split(","), args.levels.split(","), args.hands, args.think)
        return 0
    if args.think is not None:
        os.environ["DDZ_BOT_THINK_SECONDS"] = str(args.think)

    load = None
    if args.load:
        load = subprocess.Popen(
            [
                sys.executable,
                str(ROOT / "bench" / "load_tables.py"),
                *("--tables", str(args.load), "--pace", "human", "--redis", ""),
                *("--seconds", str(args.seconds + 60), "--database", args.database + "_load"),
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        print(f"load: bench/load_tables.py --tables {args.load} --pace human (pid {load.pid})")
        time.sleep(25)  # its database, server and clients up and playing
    print(f"preparing {args.database} ...", flush=True)
    variants = args.variants.split(",")
    _setup(args.database, threads=len(variants) * args.tables + 1)
    from django.conf import settings

    from games.runner.collector import settle_collector
    from games.runner.deadlines import run_forever

    decisions, replies, moves = Recorder(), Recorder(), Recorder()
    _time_decisions(decisions)
    tables = _tables(variants, args.tables, args.delay_ms)
    settle_collector()  # as daphne's process does once started
    stop = threading.Event()
    runner = threading.Thread(target=run_forever, kwargs={"stop": stop}, name="runner")
    players = [
        threading.Thread(
            target=_player,
            args=(variant, table_id, user),
            kwargs={
                "stop": stop,
                "pace": args.pace,
                "delay": args.delay_ms / 1e3,
                "replies": replies,
                "moves": moves,
            },
        )
        for variant, table_id, user in tables
    ]
    runner.start()
    for player in players:
        player.start()
    time.sleep(args.seconds)
    stop.set()
    for thread in (runner, *players):
        thread.join(timeout=60)

    think = settings.DDZ_BOT_THINK_SECONDS
    print(
        f"{len(tables)} tables, {args.seconds:.0f} s, bot delay {args.delay_ms} ms, think "
        f"{'engine default' if think is None else f'{think * 1e3:.0f} ms'}, "
        f"load {args.load or 'none'}"
    )
    _show("bot decisions in the runner, ms", decisions.rows, ("wall", "cpu"))
    _show("a player's wait for the first bot's reply, ms", replies.rows, ("reply", "late"))
    _show("a player's own move (service call), ms", moves.rows, ("move",))
    if load is not None:
        out, _ = load.communicate(timeout=args.seconds + 300)
        print("load_tables.py:")
        print(out.strip()[-2000:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
