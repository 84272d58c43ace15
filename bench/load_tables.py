"""Load benchmark of the real-time tables (issue #6). Prints figures; not a test.

N tables of five socket clients (the ``websockets`` library, a signed-in session cookie and an
Origin header each) play whole qq5 hands against daphne: one process, or two processes behind
the Redis channel layer (the clients are split across them). The clients decide from what the
server sends them only: the hand version of ``#table-status``, the forms of
``#table-controls``, the hints of the seat's own hand (``data-hints``: the server's legal
plays, weakest first) and the choice buttons of the other phases. When a hand is over a
seated player presses "Next hand" (a POST to the first server, which deals and pushes).

Modes: ``--pace human`` (each table acts once every 2 s) and ``--pace flat`` (each table acts as
soon as all five tabs saw the previous update). Figures: actions/s, p50/p99/max from sending an
action to the arrival of the update at the last of the five tabs, errors (refusals, closed
sockets, timeouts), the servers' RSS growth per table, and ``manage.py audit_beans`` at the end.

Everything runs against a throw-away PostgreSQL database (``--database``, dropped and migrated at
the start) and a Redis database number of its own (flushed at the start), or with ``--redis ''``
one process on the in-memory channel layer. See bench/README.md.

  .venv/bin/python bench/load_tables.py --tables 200 --pace human --processes 1 --seconds 40
  .venv/bin/python bench/load_tables.py --pace flat --knee 1,5,10,20,40,80 --seconds 15
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import multiprocessing as mp
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SETTINGS = "tests.reliability.live_settings"
ORIGIN = "http://localhost"
HUMAN_GAP = 2.0
_VERSION = re.compile(rb'id="table-status"[^>]*data-version="(\d+)"')
_CONTROLS = b'<div id="table-controls"'
_TABLE_VERSION = re.compile(rb'id="table-status"[^>]*data-table-version="(\d+)"')


def _env(args: argparse.Namespace) -> dict[str, str]:
    return {
        "DATABASE_URL": args.database,
        "REDIS_URL": args.redis,
        "DJANGO_SETTINGS_MODULE": SETTINGS,
        "DEBUG": "0",
        "SECRET_KEY": "bench-only-secret-key-" + "x" * 40,
        "SECURE_SSL_REDIRECT": "0",
        "SESSION_COOKIE_SECURE": "0",
        "CSRF_COOKIE_SECURE": "0",
        "SECURE_PROXY_SSL_HEADER": "0",
        "DDZ_DEADLINE_POLL_SECONDS": "1",
        "LOG_LEVEL": "WARNING",
        # flat out, one tab may send far more than the flood guard lets a person (10 a second)
        "DDZ_WS_RATE_PER_SECOND": "1000",
        "DDZ_WS_RATE_BURST": "1000",
    }


def _django(args: argparse.Namespace) -> None:
    os.environ.update(_env(args))
    import django

    django.setup()


# --------------------------------------------------------------------------- setup (parent)


def prepare_database(args: argparse.Namespace) -> None:
    """Drop and create the bench database, migrate it, flush the bench Redis database."""
    import psycopg

    url = args.database
    name = url.rsplit("/", 1)[1]
    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    env = {**os.environ, **_env(args), "PYTHONPATH": str(ROOT)}
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True
    )
    if args.redis:
        import redis

        redis.Redis.from_url(args.redis).flushdb()


def make_tables(count: int, *, start: int) -> list[tuple[int, list[str]]]:
    """``count`` qq5 tables of five signed-in players: (table id, five session keys)."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    from accounts.models import User
    from accounts.services import beans_grant
    from games import services
    from games.models import Room

    room = Room.objects.filter(name="bench qq5").first() or services.room_create(
        name="bench qq5", variant="qq5", bid_seconds=120, turn_seconds=120
    )
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    out = []
    for t in range(count):
        table = services.table_create(room=room)
        cookies = []
        for s in range(5):
            user = User.objects.create_user(username=f"b{start + t}_{s}", password="x")
            beans_grant(user=user, amount=10_000_000)
            services.table_join(table_id=table.pk, user=user)
            session = SessionStore()
            session[SESSION_KEY] = str(user.pk)
            session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
            session[HASH_SESSION_KEY] = user.get_session_auth_hash()
            session.create()
            cookies.append(session.session_key)
        out.append((table.pk, cookies))
    return out


# --------------------------------------------------------------------------- clients (workers)


def _error_text(data: bytes) -> str:
    match = re.search(rb'<p class="error-msg"><span>(.*?)</span>', data, re.S)
    return match.group(1).decode(errors="replace")[:120] if match else "?"


class Tab:
    """A lean socket client: keeps the last state frame and (time, version) of each one."""

    def __init__(self, url: str, cookie: str) -> None:
        self.url = url
        self.cookie = cookie
        self.ws: Any = None
        self.last: bytes = b""
        self.version: int | None = -1
        self.arrivals: list[tuple[float, int | None]] = []
        self.errors = 0
        self.error_texts: list[str] = []
        self.shown = -1
        self.dropped = 0
        self.closed = False
        self.event = asyncio.Event()
        self._decided: tuple[bytes, dict[str, Any] | None] = (b"", None)

    async def connect(self) -> None:
        import websockets

        self.ws = await websockets.connect(
            self.url,
            origin=ORIGIN,
            additional_headers={"Cookie": f"sessionid={self.cookie}"},
            ping_interval=None,
            max_size=2**23,
            open_timeout=60,
        )
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            async for message in self.ws:
                at = time.perf_counter()
                data = message.encode() if isinstance(message, str) else message
                if _CONTROLS not in data:
                    if b"error-msg" in data:
                        self.errors += 1
                        self.error_texts.append(_error_text(data))
                    continue
                shown = _TABLE_VERSION.search(data)
                if shown is not None:  # drop an overtaken older state, as the page does
                    if int(shown.group(1)) < self.shown:
                        self.dropped += 1
                        continue
                    self.shown = int(shown.group(1))
                found = _VERSION.search(data)
                self.version = int(found.group(1)) if found else None
                self.last = data
                self.arrivals.append((at, self.version))
                self.event.set()
        except Exception:
            pass
        finally:
            self.closed = True
            self.event.set()

    def newer_at(self, version: int, since: int) -> float | None:
        for at, v in self.arrivals[since:]:
            if v is None or v > version:
                return at
        return None

    def sealed_at(self, version: int, since: int) -> float | None:
        """When a state at ``version`` itself came after ``since``: the sender's own frame of
        a decision inside a sealed step, which moves no version."""
        for at, v in self.arrivals[since:]:
            if v == version:
                return at
        return None

    def decide(self) -> dict[str, Any] | None:
        from tests.reliability.harness import Frame

        if not self.last:
            return None
        # the tables poll while they wait: parse each frame once, not at every poll
        if self._decided[0] is not self.last:
            self._decided = (self.last, Frame.parse(0.0, self.last.decode()).decide())
        return self._decided[1]


async def run_table(
    table_id: int,
    cookies: list[str],
    urls: list[str],
    *,
    pace: str,
    window: dict[str, float],
    stats: dict[str, Any],
    start_hand: Any,
    settled: Any,
    delay: float = 0.0,
) -> None:
    """One table's five tabs: connect, deal, then play until the measured ``window`` (opened
    once every table of the run is ready) is over. ``settled()``: this table is ready, or
    never will be."""
    tabs = [Tab(f"{urls[i % len(urls)]}/ws/table/{table_id}/", c) for i, c in enumerate(cookies)]
    await asyncio.sleep(delay)  # connects ramp up: daphne drops a handshake not accepted in 5 s
    try:
        for tab in tabs:
            await tab.connect()
    except Exception as error:
        stats["errors"]["connect"] += 1
        if len(stats["samples"]) < 5:
            stats["samples"].append(f"connect: {error!r}"[:200])
        settled()
        return
    stats["connected"] += 1
    await start_hand(table_id)
    await _wait(tabs, lambda: all(t.version not in (None, -1) for t in tabs), timeout=300)
    # a socket's frames are handled after its connect (admission, presence, first state), so
    # the refusal of a probe tells that the server is done connecting it
    for tab in tabs:
        await tab.ws.send(json.dumps({"intent": "ready?"}))
    await _wait(tabs, lambda: all(t.errors for t in tabs), timeout=300)
    for tab in tabs:
        tab.errors = 0
        tab.error_texts.clear()
    settled()
    # tables keep their own rhythm, as a club's do: connects ramped at a step that divides
    # the gap would otherwise line tables up to act at the same instant
    next_at = time.perf_counter() + random.Random(table_id).uniform(0, HUMAN_GAP)
    played = False
    while time.perf_counter() < window["stop"]:
        if any(t.closed for t in tabs):
            stats["errors"]["closed"] += 1
            return
        mover = None
        for tab in tabs:
            move = tab.decide() if tab.version not in (None, -1) else None
            if move is not None:
                mover, frame = tab, move
                break
        if mover is None:
            if all(t.version is None for t in tabs):  # hand over: deal the next one
                stats["hands"] += played
                played = False
                marks = [len(t.arrivals) for t in tabs]
                await start_hand(table_id)
                await _wait(tabs, lambda m=marks: _all_got(tabs, m))
                continue
            await _wait(tabs, lambda: False, timeout=0.05)
            continue
        if pace == "human":
            delay = next_at - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            if time.perf_counter() >= window["stop"]:
                # the other tables are hanging up by now: their disconnects are no move's cost
                break
            next_at = max(next_at + HUMAN_GAP, time.perf_counter())
        sent = int(frame["version"])
        marks = [len(t.arrivals) for t in tabs]
        errors_before = mover.errors
        t0 = time.perf_counter()
        await mover.ws.send(json.dumps(frame))
        played = True

        def arrived(marks=marks, sent=sent, before=errors_before, by=mover) -> bool:
            if by.errors > before:  # refused: the sender alone hears why
                return True
            if by.sealed_at(sent, marks[tabs.index(by)]) is not None:
                return True  # a decision inside a sealed step: its sender alone sees it
            return all(t.newer_at(sent, m) is not None for t, m in zip(tabs, marks, strict=True))

        ok = await _wait(tabs, arrived, timeout=30)
        if mover.errors > errors_before:
            stats["errors"]["refused"] += 1
            if len(stats["samples"]) < 5:
                stats["samples"].append(f"{frame} -> {mover.error_texts[-1]}")
            await _wait(tabs, lambda: False, timeout=0.2)  # the resync that follows a refusal
            continue
        if not ok:
            stats["errors"]["timeout"] += 1
            continue
        sealed = mover.sealed_at(sent, marks[tabs.index(mover)])
        last = sealed or max(t.newer_at(sent, m) for t, m in zip(tabs, marks, strict=True))
        if t0 >= window["from"]:
            stats["latencies"].append(last - t0)
            stats["actions"] += 1
    for tab in tabs:
        with contextlib.suppress(Exception):
            await tab.ws.close()
    stats["refused"] += sum(t.errors for t in tabs)


def _all_got(tabs: list[Tab], marks: list[int]) -> bool:
    return all(len(t.arrivals) > m for t, m in zip(tabs, marks, strict=True))


async def _wait(tabs: list[Tab], predicate: Any, *, timeout: float = 30.0) -> bool:
    deadline = time.perf_counter() + timeout
    while not predicate():
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            return False
        for tab in tabs:
            tab.event.clear()
        if predicate():
            return True
        waiters = [asyncio.ensure_future(t.event.wait()) for t in tabs]
        await asyncio.wait(waiters, timeout=min(remaining, 0.5), return_when="FIRST_COMPLETED")
        for waiter in waiters:
            waiter.cancel()
    return True


def _deal(url: str, table_id: int, session_key: str) -> None:
    """A seated player's "Next hand" button: the server deals and pushes (through whatever
    channel layer it has, the in-memory one included)."""
    import urllib.request

    secret = "b" * 32  # any: Django compares the header with the cookie's CSRF secret
    request = urllib.request.Request(
        f"{url}/table/{table_id}/deal/",
        data=b"",
        method="POST",
        headers={
            "Cookie": f"sessionid={session_key}; csrftoken={secret}",
            "X-CSRFToken": secret,
            "HX-Request": "true",
        },
    )
    with contextlib.suppress(Exception):  # refused (a hand already dealt): the tabs go on
        urllib.request.urlopen(request, timeout=30).read()


def worker(payload: dict[str, Any]) -> dict[str, Any]:
    deal_at = dict(zip((t for _, t, _ in payload["tables"]), payload["deal_urls"], strict=True))

    async def start_hand(table_id: int) -> None:
        url, cookie = deal_at[table_id]
        await asyncio.to_thread(_deal, url, table_id, cookie)

    stats: dict[str, Any] = {
        "latencies": [],
        "actions": 0,
        "hands": 0,
        "connected": 0,
        "refused": 0,
        "samples": [],
        "errors": {"connect": 0, "closed": 0, "timeout": 0, "refused": 0},
    }

    # the measured window opens once every table of every worker is connected and dealt:
    # until then the server also works through the connects (reported apart, as "ready")
    window = {"from": math.inf, "stop": math.inf}
    unsettled = [len(payload["tables"])]
    all_settled = asyncio.Event()

    def settled() -> None:
        unsettled[0] -= 1
        if unsettled[0] == 0:
            all_settled.set()

    async def open_window() -> None:
        await all_settled.wait()
        await asyncio.to_thread(payload["barrier"].wait)
        stats["ready_after"] = time.time() - payload["begin"]
        window["from"] = time.perf_counter() + payload["warmup"]
        window["stop"] = window["from"] + payload["seconds"]
        payload["opened"].set()

    async def main() -> None:
        while time.time() < payload["begin"]:
            await asyncio.sleep(0.01)
        await asyncio.gather(
            open_window(),
            *(
                run_table(
                    table_id,
                    cookies,
                    payload["urls"],
                    pace=payload["pace"],
                    window=window,
                    stats=stats,
                    start_hand=start_hand,
                    settled=settled,
                    delay=payload["ramp"] * index,
                )
                for index, table_id, cookies in payload["tables"]
            ),
        )

    asyncio.run(main())
    return stats


# --------------------------------------------------------------------------- one run


def one_run(args: argparse.Namespace, servers: list[Any], tables: int, pace: str) -> dict:
    from django.db import connection

    start = args._made
    made = make_tables(tables, start=start)
    args._made += tables
    connection.close()
    rss_before = sum(s.rss_kib() for s in servers)
    urls = [s.url for s in servers]
    http_urls = [s.url.replace("ws://", "http://", 1) for s in servers]
    indexed = [(i, table_id, cookies) for i, (table_id, cookies) in enumerate(made)]
    groups = [g for i in range(args.client_procs) if (g := indexed[i :: args.client_procs])]
    begin = time.time() + 1.0
    context = mp.get_context("spawn")
    manager = context.Manager()
    shared = {"barrier": manager.Barrier(len(groups)), "opened": manager.Event()}
    payloads = [
        {
            "tables": group,
            "deal_urls": [(http_urls[0], cookies[0]) for _, _, cookies in group],
            "urls": urls,
            "pace": pace,
            "seconds": args.seconds,
            "warmup": args.warmup,
            "ramp": args.ramp,
            "begin": begin,
            **shared,
        }
        for group in groups
    ]
    with manager, context.Pool(len(payloads)) as pool:
        pending = pool.map_async(worker, payloads)
        shared["opened"].wait(timeout=args.ramp * tables + 900)
        print(f"  every table ready: measuring after {args.warmup:g} s", flush=True)
        # server CPU and memory over the measured window only: not the connects before it
        time.sleep(args.warmup)
        cpu_before = sum(_cpu_seconds(s.pid) for s in servers)
        time.sleep(args.seconds / 2)
        rss_during = sum(s.rss_kib() for s in servers)
        time.sleep(args.seconds / 2)
        cpu_used = sum(_cpu_seconds(s.pid) for s in servers) - cpu_before
        results = pending.get(timeout=300)
    latencies = sorted(x for r in results for x in r["latencies"])
    errors: dict[str, int] = {}
    for r in results:
        for key, value in r["errors"].items():
            errors[key] = errors.get(key, 0) + value
    actions = sum(r["actions"] for r in results)

    def q(p: float) -> float:
        if not latencies:
            return float("nan")
        return latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000

    return {
        "tables": tables,
        "pace": pace,
        "processes": len(servers),
        "connected": sum(r["connected"] for r in results),
        "actions": actions,
        "actions_per_s": actions / args.seconds,
        "p50_ms": q(0.50),
        "p99_ms": q(0.99),
        "max_ms": latencies[-1] * 1000 if latencies else float("nan"),
        "mean_ms": statistics.fmean(latencies) * 1000 if latencies else float("nan"),
        "hands_finished": sum(r["hands"] for r in results),
        "refusals": sum(r["refused"] for r in results),
        "errors": errors,
        "rss_kib_per_table": (rss_during - rss_before) / tables,
        "cpu_ms_per_action": cpu_used * 1000 / actions if actions else float("nan"),
        "ready_after": max(r.get("ready_after", math.nan) for r in results),
        "samples": [x for r in results for x in r["samples"]][:5],
    }


def _cpu_seconds(pid: int | None) -> float:
    """User + system CPU time of a process so far (Linux /proc)."""
    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def show(row: dict) -> None:
    errors = ", ".join(f"{k} {v}" for k, v in row["errors"].items() if v) or "none"
    print(
        f"{row['processes']} proc  {row['pace']:5s} {row['tables']:4d} tables "
        f"({row['connected']} connected, ready after {row['ready_after']:.1f} s): "
        f"{row['actions_per_s']:7.1f} actions/s, "
        f"p50 {row['p50_ms']:6.1f} ms, p99 {row['p99_ms']:6.1f} ms, max {row['max_ms']:6.1f} ms, "
        f"{row['hands_finished']} hands, refusals {row['refusals']}, errors: {errors}, "
        f"RSS +{row['rss_kib_per_table']:.0f} KiB/table, "
        f"server CPU {row['cpu_ms_per_action']:.0f} ms/action",
        flush=True,
    )
    for sample in row["samples"]:
        print("   refused:", sample, flush=True)


def audit(args: argparse.Namespace) -> int:
    env = {**os.environ, **_env(args), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "manage.py", "audit_beans"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    print((done.stdout + done.stderr).strip(), f"(exit {done.returncode})", flush=True)
    return done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--pace", choices=["human", "flat"], default="human")
    parser.add_argument("--processes", type=int, choices=[1, 2], default=1)
    parser.add_argument("--seconds", type=float, default=30.0, help="measured time per run")
    parser.add_argument("--warmup", type=float, default=4.0)
    parser.add_argument(
        "--ramp", type=float, default=0.05, help="seconds between two tables' connects"
    )
    parser.add_argument("--client-procs", type=int, default=2, help="client worker processes")
    parser.add_argument(
        "--knee", default="", help="comma separated table counts: one run each (flat-out knee)"
    )
    parser.add_argument(
        "--database", default="postgres://postgres@127.0.0.1:5432/ddz_bench", help="dropped!"
    )
    parser.add_argument(
        "--redis",
        default="redis://127.0.0.1:6379/9",
        help="flushed! '' for the in-memory channel layer (one process only)",
    )
    args = parser.parse_args()
    if not args.redis and args.processes > 1:
        parser.error("several processes share the Redis channel layer: give --redis")
    args._made = 0

    layer = args.redis or "the in-memory channel layer"
    print(f"preparing {args.database} and {layer} ...", flush=True)
    prepare_database(args)
    _django(args)
    from tests.reliability.harness import Server, free_port

    status = 0
    counts = [int(x) for x in args.knee.split(",") if x] or [args.tables]
    for count in counts:
        # fresh processes for every run: no backlog or memory of the previous one
        servers = [
            Server(free_port(), _env(args), name=f"bench{i}").start() for i in range(args.processes)
        ]
        try:
            time.sleep(1.5)  # the deadline runner's start
            row = one_run(args, servers, count, args.pace)
            show(row)
            for server in servers:
                if not server.alive():
                    print(f"{server.name} died:\n{server.tail()}")
                    status = 1
                problems = server.errors()
                if problems:
                    print(f"{server.name}: {len(problems)} error lines ({server.log.name})")
        finally:
            for server in servers:
                server.stop()
    return audit(args) or status


if __name__ == "__main__":
    sys.exit(main())
