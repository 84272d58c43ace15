"""Load benchmark of the real-time tables (issues #6 and #17). Prints figures; not a test.

N tables of five socket clients (the ``websockets`` library, a signed-in session cookie and an
Origin header each) play whole qq5 hands against daphne: one process, or two processes behind
the Redis channel layer (the clients are split across them). The clients decide from what the
server sends them only, as the page does: each state frame's ``#table-frame`` header (the
table's version; a full screen or a push) and its regions, merged into the screen the tab
shows; the hand version of ``#table-status``, the forms of ``#table-controls`` and their
hints (``data-hints``: the server's legal plays of the seat's own hand, weakest first) and the
choice buttons of the other phases. When a hand is over a seated player presses "Next hand" (a POST
to the first server, which deals and pushes).

Like static/games/reconnect.js a tab drops a state older than the one it shows, and a push
further ahead than the next version is a lost frame: the tab drops it and asks for a resync.

Modes: ``--pace human`` (each table acts once every 2 s, or ``--gap`` seconds) and ``--pace
flat`` (each table acts as soon as all five tabs saw the previous update). Figures: actions/s,
p50/p99/max from sending an action to the arrival of the update at the last of the five tabs,
errors (refusals, closed sockets, timeouts), lost frames and resyncs, the servers' CPU per
action (and per second of the window), bytes received per action per socket, the servers'
RSS growth per table, and ``manage.py audit_beans`` after each run.

``--base COMMIT`` measures the old code against this checkout's, alternating (old, new, old,
new ... ``--rounds`` times): the old servers run from a ``git worktree`` of COMMIT (sharing
.venv). Each run
has a freshly migrated database of its own (``--database``, and ``<database>_old`` for the old
code), dropped and migrated by that side's code, and a flushed Redis database; with
``--redis ''`` one process on the in-memory channel layer. See bench/README.md.

``--metrics-ab`` measures what the metrics cost (issue #38: at most 5 % more server CPU per
action): this checkout's code with the metrics off (``DDZ_METRICS=0``) and on as a club runs
them (``PROMETHEUS_MULTIPROC_DIR``, a fresh directory each run), alternating ``--rounds`` times;
the comparison's "CPU ms/act" column is the answer.

``--soak MINUTES`` plays for that long and prints each minute's actions/s, p50/p99 of the
actions sent in it, hands, lost frames, errors and the servers' RSS; then every table finishes
the hand in play (flat out, unmeasured, dealing no other), and the database is checked: every
hand dealt finished and settled exactly once. ``--kill-at MINUTE`` (with ``--processes 2``)
kills the second server with -9 that many minutes into the soak and starts a fresh one with
the same settings on the same port at once. Like the page, a tab whose socket drops comes back
by itself (static/games/reconnect.js's backoff, then a resync); the bench prints how long each
dropped tab took from the drop to its first state, against the socket lease
(DDZ_SOCKET_LEASE_SECONDS), and counts a table's errors from its drop until an action of it
gets through again apart ("drop: ...").

  .venv/bin/python bench/load_tables.py --tables 200 --pace human --processes 1 --seconds 40
  .venv/bin/python bench/load_tables.py --pace flat --knee 1,5,10,20,40,80 --seconds 15
  .venv/bin/python bench/load_tables.py --base main --rounds 2 --tables 200 --redis ''
  .venv/bin/python bench/load_tables.py --processes 2 --tables 200 --soak 10 --kill-at 5
  .venv/bin/python bench/load_tables.py --metrics-ab --rounds 3 --tables 100 --processes 2
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
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# the checkout whose code makes the tables (``--make-tables`` for an old side): this one else
CODE = Path(os.environ.get("DDZ_BENCH_CODE", ROOT))
sys.path.insert(0, str(CODE))

SETTINGS = "tests.reliability.live_settings"
ORIGIN = "http://localhost"
HUMAN_GAP = 2.0  # seconds between a table's actions at a human pace (--gap)
# after the window, how long a table may take to finish the hand then in play (--soak): flat
# out, a qq5 hand is about 140 actions, and at 200 tables the server is the queue
FINISH_PATIENCE = 600.0
# how long a dropped tab keeps trying to come back (the lease is 30 s)
RECONNECT_PATIENCE = 120.0
# the hand's version: on the status's clock (#table-clock, inside the status or sent alone),
# on the status itself in trees before it (the "old" side may be one)
_VERSION = re.compile(rb'id="table-(?:clock|status)"[^>]*data-version="(\d+)"')
_FRAME = re.compile(rb'id="table-frame"[^>]*data-version="(\d+)" data-full="([01])"')
# a frame's regions, the clock among them: inside the status, it cuts the status's rest off
# into the clock's part, which this client does not read
_REGION = re.compile(rb'(?=<(?:div|span) id="table-[a-z]+")')
_REGION_ID = re.compile(rb'^<(?:div|span) id="(table-[a-z]+)"')
COMPILE_IGNORES = ("--ignore=.venv/*", "--ignore=bench/*")
REPORT_EVERY = 5.0  # seconds between a worker's live figures (the soak's minute lines)


def _env(args: argparse.Namespace, side: dict[str, Any] | None = None) -> dict[str, str]:
    return {
        "DATABASE_URL": side["database"] if side else args.database,
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


# --------------------------------------------------------------------------- setup (parent)


def side_env(args: argparse.Namespace, side: dict[str, Any]) -> dict[str, str]:
    """The environment of a command run with ``side``'s code (its root on the path first)."""
    return {
        **os.environ,
        **_env(args, side),
        "DDZ_BENCH_CODE": str(side["root"]),
        "PYTHONPATH": str(side["root"]),
    }


def prepare_database(args: argparse.Namespace, side: dict[str, Any]) -> None:
    """Drop and create the side's bench database, migrate it with the side's code, flush the
    bench Redis database."""
    import psycopg

    url = side["database"]
    name = url.rsplit("/", 1)[1]
    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v", "0"],
        cwd=side["root"],
        env=side_env(args, side),
        check=True,
    )
    if args.redis:
        import redis

        redis.Redis.from_url(args.redis).flushdb()


def tables_of(args: argparse.Namespace, side: dict[str, Any], count: int) -> list:
    """``make_tables`` run by the side's code, in its database (a child process)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "load_tables.py"), "--make-tables", str(count)],
        cwd=side["root"],
        env=side_env(args, side),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


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


class Minutes:
    """A worker's figures per minute of the measured window (0 from its opening; nothing before
    it or after it): actions and a histogram of their latencies in whole milliseconds (a few
    hundred keys, cheap to publish every few seconds), hands, lost frames, errors, and errors
    of tables coming back from dropped sockets."""

    def __init__(self, window: dict[str, float]) -> None:
        self.window = window
        self.rows: dict[int, dict[str, Any]] = {}

    def _row(self, at: float) -> dict[str, Any] | None:
        if not self.window["from"] <= at < self.window["stop"]:
            return None
        return self.rows.setdefault(
            int((at - self.window["from"]) // 60),
            {"actions": 0, "ms": {}, "hands": 0, "lost": 0, "errors": 0, "drop_errors": 0},
        )

    def count(self, key: str, at: float | None = None) -> None:
        row = self._row(time.perf_counter() if at is None else at)
        if row is not None:
            row[key] += 1

    def latency(self, at: float, seconds: float) -> None:
        row = self._row(at)
        if row is not None:
            row["actions"] += 1
            ms = int(seconds * 1000)
            row["ms"][ms] = row["ms"].get(ms, 0) + 1


def _backoff(tries: int) -> float:
    """static/games/reconnect.js's delay before a reconnect: full jitter over
    min(15 s, 0.5 s * 2^tries), at least 250 ms."""
    cap = min(15.0, 0.5 * 2 ** min(tries, 5))
    return max(0.25, random.random() * cap)


class Tab:
    """A lean socket client: merges each state frame's regions into the screen it shows (as the
    page swaps them in) and keeps (time, table version) of each state it took. A dropped
    socket comes back as the page's does (``reconnect``), and the time from the drop to the
    first state after it is kept (``back_after``), and to the connect accepted
    (``accepted_after``)."""

    def __init__(
        self, url: str, cookie: str, window: dict[str, float], minutes: Minutes | None = None
    ) -> None:
        self.url = url
        self.cookie = cookie
        self.window = window  # the bytes it receives in the measured window are counted
        self.minutes = minutes
        self.ws: Any = None
        self.regions: dict[bytes, bytes] = {}
        self.last: bytes = b""
        self.version: int | None = -1
        self.arrivals: list[tuple[float, int]] = []
        self.errors = 0
        self.error_texts: list[str] = []
        self.shown = -1
        self.dropped = 0
        self.lost = 0
        self.resyncs = 0
        self.gap = False
        self.bytes = 0
        self.closed = False
        self.hung_up = False  # closed by the bench itself: not a drop
        self.dropped_at: float | None = None
        self.back_after: list[float] = []
        self.accepted_after: list[float] = []
        self.failed_reconnects = 0
        self.event = asyncio.Event()
        self._decided: tuple[bytes, dict[str, Any] | None] = (b"", None)

    async def connect(self, *, open_timeout: float = 60) -> None:
        import websockets

        self.ws = await websockets.connect(
            self.url,
            origin=ORIGIN,
            additional_headers={"Cookie": f"sessionid={self.cookie}"},
            ping_interval=None,
            max_size=2**23,
            open_timeout=open_timeout,
        )
        self.closed = False
        self.reader = asyncio.create_task(self._read())

    async def reconnect(self, *, patience: float) -> bool:
        """Come back after a dropped socket as the page does (static/games/reconnect.js and
        table.js): retry the same URL after the page's backoff until a connect is accepted,
        then ask for a resync. The screen shown before counts for nothing: the first state
        after the connect is taken whatever its version. False after ``patience`` seconds."""
        self.version, self.last, self.shown, self.gap = -1, b"", -1, False
        deadline = time.perf_counter() + patience
        tries = 0
        while time.perf_counter() < deadline:
            await asyncio.sleep(_backoff(tries))
            tries += 1
            try:
                # daphne drops a handshake it has not accepted within 5 s anyway
                await self.connect(open_timeout=10)
            except Exception:
                self.failed_reconnects += 1
                continue
            if self.dropped_at is not None:
                self.accepted_after.append(time.perf_counter() - self.dropped_at)
            with contextlib.suppress(Exception):
                await self.ws.send('{"intent": "resync"}')
            return True
        return False

    async def hang_up(self) -> None:
        self.hung_up = True
        with contextlib.suppress(Exception):
            await self.ws.close()

    async def _read(self) -> None:
        try:
            async for message in self.ws:
                at = time.perf_counter()
                data = message.encode() if isinstance(message, str) else message
                if self.window["from"] <= at < self.window["stop"]:
                    self.bytes += len(data)
                header = _FRAME.search(data)
                if header is None:
                    if b"error-msg" in data:
                        self.errors += 1
                        self.error_texts.append(_error_text(data))
                    continue
                version, full = int(header.group(1)), header.group(2) == b"1"
                if version < self.shown:  # overtaken by a newer state, as the page drops it
                    self.dropped += 1
                    continue
                if not full and self.shown >= 0 and version > self.shown + 1:
                    # a push was lost on the way: ask for the full screen, as the page does
                    if not self.gap:
                        self.lost += 1
                        if self.minutes is not None:
                            self.minutes.count("lost", at)
                        self.gap = True
                    await self.ws.send('{"intent": "resync"}')
                    continue
                if full:
                    self.resyncs += self.gap
                    self.gap = False
                    self.regions.clear()
                self.shown = version
                for part in _REGION.split(data):
                    found = _REGION_ID.match(part)
                    if found:
                        self.regions[found.group(1)] = part
                self.last = b"".join(self.regions.values())
                clock = self.regions.get(b"table-clock") or self.regions.get(b"table-status", b"")
                found = _VERSION.search(clock)
                self.version = int(found.group(1)) if found else None
                self.arrivals.append((at, version))
                if self.dropped_at is not None:
                    self.back_after.append(at - self.dropped_at)
                    self.dropped_at = None
                self.event.set()
        except Exception:
            pass
        finally:
            if not self.hung_up and self.dropped_at is None:
                self.dropped_at = time.perf_counter()
            self.closed = True
            self.event.set()

    def newer_at(self, version: int, since: int) -> float | None:
        for at, v in self.arrivals[since:]:
            if v > version:
                return at
        return None

    def sealed_at(self, version: int, since: int) -> float | None:
        """When a state at table ``version`` itself came after ``since``: the sender's own
        frame of a decision inside a sealed step, which moves no version."""
        for at, v in self.arrivals[since:]:
            if v == version:
                return at
        return None

    def decide(self) -> dict[str, Any] | None:
        from tests.reliability.harness import Frame

        if not self.last:
            return None
        # the tables poll while they wait: parse each screen once, not at every poll
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
    minutes: Minutes,
    start_hand: Any,
    settled: Any,
    finish: bool = False,
    delay: float = 0.0,
    gap: float = HUMAN_GAP,
) -> None:
    """One table's five tabs: connect, deal, then play until the measured ``window`` (opened
    once every table of the run is ready) is over; with ``finish``, play the hand then in
    play to its end (at once, unmeasured) and deal no other. ``settled()``: this table is
    ready, or never will be. Tabs whose socket drops come back (``Tab.reconnect``); the
    table's errors from the drop until its first action that gets through again are counted
    apart ("drop: ...")."""
    tabs = [
        Tab(f"{urls[i % len(urls)]}/ws/table/{table_id}/", c, window, minutes)
        for i, c in enumerate(cookies)
    ]
    stats["tabs"].extend(tabs)
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
    recovering = False

    def error(kind: str) -> None:
        key = f"drop: {kind}" if recovering else kind
        if time.perf_counter() >= window["stop"]:
            key = f"finishing, {key}"
        stats["errors"][key] = stats["errors"].get(key, 0) + 1
        minutes.count("drop_errors" if recovering else "errors")

    # tables keep their own rhythm, as a club's do: connects ramped at a step that divides
    # the gap would otherwise line tables up to act at the same instant
    next_at = time.perf_counter() + random.Random(table_id).uniform(0, gap)
    played = False
    while True:
        now = time.perf_counter()
        if now >= window["stop"] and (not finish or now >= window["stop"] + FINISH_PATIENCE):
            if finish:
                stats["unfinished"] += 1
            break
        closed = [t for t in tabs if t.closed]
        if closed:
            recovering = True
            back = await asyncio.gather(*(t.reconnect(patience=RECONNECT_PATIENCE) for t in closed))
            if not all(back):
                error("closed")
                break
            continue
        mover = None
        for tab in tabs:
            move = tab.decide() if tab.version not in (None, -1) else None
            if move is not None:
                mover, frame = tab, move
                break
        if mover is None:
            if all(t.version is None for t in tabs):  # hand over: deal the next one
                stats["hands"] += played
                if played:
                    minutes.count("hands")
                played = False
                if time.perf_counter() >= window["stop"]:
                    break  # finished: the hand in play when the window closed is over
                marks = [len(t.arrivals) for t in tabs]
                await start_hand(table_id)
                await _wait(tabs, lambda m=marks: _all_got(tabs, m))
                continue
            await _wait(tabs, lambda: False, timeout=0.05)
            continue
        if pace == "human" and time.perf_counter() < window["stop"]:
            delay = next_at - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            if time.perf_counter() >= window["stop"] and not finish:
                # the other tables are hanging up by now: their disconnects are no move's cost
                break
            next_at = max(next_at + gap, time.perf_counter())
        # every tab has taken the previous update: the table versions they show
        sent = [t.shown for t in tabs]
        marks = [len(t.arrivals) for t in tabs]
        errors_before = mover.errors
        t0 = time.perf_counter()
        try:
            await mover.ws.send(json.dumps(frame))
        except Exception:  # its socket is dropping: the reader will tell
            await _wait(tabs, lambda m=mover: m.closed, timeout=5)
            recovering = True
            error("closed")
            continue
        played = True
        by = tabs.index(mover)

        def arrived(marks=marks, sent=sent, before=errors_before, by=by) -> bool:
            if tabs[by].errors > before:  # refused: the sender alone hears why
                return True
            if tabs[by].sealed_at(sent[by], marks[by]) is not None:
                return True  # a decision inside a sealed step: its sender alone sees it
            return all(
                t.newer_at(v, m) is not None for t, v, m in zip(tabs, sent, marks, strict=True)
            )

        ok = await _wait(tabs, lambda: arrived() or any(t.closed for t in tabs), timeout=30)
        if mover.errors > errors_before:
            error("refused")
            if len(stats["samples"]) < 5:
                stats["samples"].append(f"{frame} -> {mover.error_texts[-1]}")
            await _wait(tabs, lambda: False, timeout=0.2)  # the resync that follows a refusal
            continue
        if not ok:
            error("timeout")
            continue
        if not arrived():  # a socket dropped on the way: it comes back at the loop's top
            recovering = True
            error("closed")
            continue
        recovering = False
        sealed = mover.sealed_at(sent[by], marks[by])
        last = sealed or max(t.newer_at(v, m) for t, v, m in zip(tabs, sent, marks, strict=True))
        if window["from"] <= t0 < window["stop"]:
            stats["latencies"].append(last - t0)
            stats["actions"] += 1
            minutes.latency(t0, last - t0)
    for tab in tabs:
        await tab.hang_up()
    stats["refused"] += sum(t.errors for t in tabs)
    stats["lost"] += sum(t.lost for t in tabs)
    stats["resyncs"] += sum(t.resyncs for t in tabs)
    stats["bytes"] += sum(t.bytes for t in tabs)
    stats["back_after"].extend(x for t in tabs for x in t.back_after)
    stats["accepted_after"].extend(x for t in tabs for x in t.accepted_after)
    stats["never_back"] += sum(t.dropped_at is not None for t in tabs)
    stats["failed_reconnects"] += sum(t.failed_reconnects for t in tabs)


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
        # and "drop: ..." for a table coming back from dropped sockets (see run_table)
        "errors": {"connect": 0, "timeout": 0, "refused": 0},
        "lost": 0,
        "resyncs": 0,
        "bytes": 0,
        "back_after": [],
        "accepted_after": [],
        "never_back": 0,
        "failed_reconnects": 0,
        "unfinished": 0,
        "tabs": [],
    }

    # the measured window opens once every table of every worker is connected and dealt:
    # until then the server also works through the connects (reported apart, as "ready")
    window = {"from": math.inf, "stop": math.inf}
    minutes = Minutes(window)
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

    async def report() -> None:
        # the soak's minute lines: this worker's figures so far
        while True:
            await asyncio.sleep(REPORT_EVERY)
            payload["live"][payload["index"]] = minutes.rows

    async def main() -> None:
        while time.time() < payload["begin"]:
            await asyncio.sleep(0.01)
        reporter = asyncio.create_task(report())
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
                    minutes=minutes,
                    start_hand=start_hand,
                    settled=settled,
                    finish=payload["finish"],
                    delay=payload["ramp"] * index,
                    gap=payload["gap"],
                )
                for index, table_id, cookies in payload["tables"]
            ),
        )
        reporter.cancel()

    asyncio.run(main())
    del stats["tabs"]
    stats["minutes"] = minutes.rows
    return stats


# --------------------------------------------------------------------------- one run


def one_run(
    args: argparse.Namespace, side: dict[str, Any], servers: list[Any], tables: int, pace: str
) -> dict:
    made = tables_of(args, side, tables)
    rss_before = sum(s.rss_kib() for s in servers)
    urls = [s.url for s in servers]
    http_urls = [s.url.replace("ws://", "http://", 1) for s in servers]
    indexed = [(i, table_id, cookies) for i, (table_id, cookies) in enumerate(made)]
    groups = [g for i in range(args.client_procs) if (g := indexed[i :: args.client_procs])]
    begin = time.time() + 1.0
    context = mp.get_context("spawn")
    manager = context.Manager()
    shared = {
        "barrier": manager.Barrier(len(groups)),
        "opened": manager.Event(),
        "live": manager.dict(),
    }
    seconds = args.soak * 60 if args.soak else args.seconds
    payloads = [
        {
            "index": index,
            "tables": group,
            "deal_urls": [(http_urls[0], cookies[0]) for _, _, cookies in group],
            "urls": urls,
            "pace": pace,
            "seconds": seconds,
            "warmup": args.warmup,
            "ramp": args.ramp,
            "gap": args.gap,
            "begin": begin,
            "finish": bool(args.soak),
            **shared,
        }
        for index, group in enumerate(groups)
    ]
    rss_samples: list[list[int]] = []  # each server's, at the end of each minute (or mid-run)
    killed_cpu = 0.0
    with manager, context.Pool(len(payloads)) as pool:
        pending = pool.map_async(worker, payloads)
        shared["opened"].wait(timeout=args.ramp * tables + 900)
        print(f"  every table ready: measuring after {args.warmup:g} s", flush=True)
        # server CPU and memory over the measured window only: not the connects before it
        time.sleep(args.warmup)
        cpu_before = sum(_cpu_seconds(s.pid) for s in servers)
        window_start = time.time()
        if args.soak:
            for minute in range(1, args.soak + 1):
                _sleep_until(window_start + 60 * minute)
                rss_samples.append([s.rss_kib() for s in servers])
                if minute == args.kill_at:
                    killed_cpu = kill_and_restart(servers[-1], minute=minute)
                # the workers publish every REPORT_EVERY seconds: wait for this minute's last
                _sleep_until(window_start + 60 * minute + REPORT_EVERY + 1)
                live = merge_minutes(list(shared["live"].values()))
                print(
                    minute_line(minute, live.get(minute - 1), rss_samples[-1], tables), flush=True
                )
        else:
            time.sleep(seconds / 2)
            rss_samples.append([s.rss_kib() for s in servers])
            time.sleep(seconds / 2)
        cpu_used = sum(_cpu_seconds(s.pid) for s in servers) + killed_cpu - cpu_before
        window = (window_start, time.time())
        if args.soak:
            print("  window over: each table finishes the hand in play", flush=True)
        results = pending.get(timeout=300 + FINISH_PATIENCE)
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
        "side": side["name"],
        "tables": tables,
        "pace": pace,
        "processes": len(servers),
        "connected": sum(r["connected"] for r in results),
        "actions": actions,
        "actions_per_s": actions / seconds,
        "p50_ms": q(0.50),
        "p99_ms": q(0.99),
        "max_ms": latencies[-1] * 1000 if latencies else float("nan"),
        "mean_ms": statistics.fmean(latencies) * 1000 if latencies else float("nan"),
        "hands_finished": sum(r["hands"] for r in results),
        "refusals": sum(r["refused"] for r in results),
        "errors": errors,
        "lost": sum(r["lost"] for r in results),
        "resyncs": sum(r["resyncs"] for r in results),
        # every frame a socket took in the measured window (deals' pushes included), per move
        "kib_per_action_socket": (
            sum(r["bytes"] for r in results) / 1024 / (actions * 5) if actions else float("nan")
        ),
        "rss_kib_per_table": (sum(rss_samples[-1]) - rss_before) / tables,
        "rss_minutes": rss_samples,
        "minutes": merge_minutes([r["minutes"] for r in results]),
        "back_after": sorted(x for r in results for x in r["back_after"]),
        "accepted_after": sorted(x for r in results for x in r["accepted_after"]),
        "never_back": sum(r["never_back"] for r in results),
        "failed_reconnects": sum(r["failed_reconnects"] for r in results),
        "unfinished": sum(r["unfinished"] for r in results),
        "cpu_ms_per_action": cpu_used * 1000 / actions if actions else float("nan"),
        "cpu_ms_per_second": cpu_used * 1000 / (window[1] - window[0]),
        "ready_after": max(r.get("ready_after", math.nan) for r in results),
        "samples": [x for r in results for x in r["samples"]][:5],
        "window": window,
    }


def _sleep_until(at: float) -> None:
    time.sleep(max(0.0, at - time.time()))


def kill_and_restart(server: Any, *, minute: int) -> float:
    """``kill -9`` the server (its process group) and start a fresh one with the same settings
    on the same port at once; the CPU time the killed process had used."""
    cpu = _cpu_seconds(server.pid)
    killed_at = time.time()
    server.kill()
    server.start()
    print(
        f"  minute {minute}: killed {server.name} with -9; listening again on port "
        f"{server.port} after {time.time() - killed_at:.1f} s",
        flush=True,
    )
    return cpu


MINUTE_FIELDS = ("actions", "hands", "lost", "errors", "drop_errors")


def merge_minutes(workers: list[dict[int, dict[str, Any]]]) -> dict[int, dict[str, Any]]:
    """The workers' figures of each minute (``Minutes.rows``) added up."""
    merged: dict[int, dict[str, Any]] = {}
    for rows in workers:
        for minute, row in rows.items():
            into = merged.setdefault(minute, {"ms": {}, **dict.fromkeys(MINUTE_FIELDS, 0)})
            for key in MINUTE_FIELDS:
                into[key] += row[key]
            for ms, count in row["ms"].items():
                into["ms"][ms] = into["ms"].get(ms, 0) + count
    return merged


def histogram_quantile(histogram: dict[int, int], p: float) -> float:
    total = sum(histogram.values())
    rank = min(total - 1, int(p * total))
    seen = 0
    for ms in sorted(histogram):
        seen += histogram[ms]
        if seen > rank:
            return float(ms)
    return float("nan")


def minute_line(minute: int, row: dict[str, Any] | None, rss: list[int], tables: int) -> str:
    row = row or {"ms": {}, **dict.fromkeys(MINUTE_FIELDS, 0)}
    return (
        f"  minute {minute:3d}: {row['actions'] / 60:6.1f} actions/s, "
        f"p50 {histogram_quantile(row['ms'], 0.50):6.0f} ms, "
        f"p99 {histogram_quantile(row['ms'], 0.99):6.0f} ms, {row['hands']} hands, "
        f"{row['lost']} lost frames, {row['errors']} errors (+{row['drop_errors']} of tables "
        f"coming back from a drop), RSS {sum(rss) / tables:.0f} KiB/table "
        f"({' + '.join(f'{x / 1024:.0f}' for x in rss)} MiB)"
    )


def _spread(seconds: list[float]) -> str:
    """max, p99 and p50 of sorted durations."""
    if not seconds:
        return "-"
    p99 = seconds[min(len(seconds) - 1, int(0.99 * len(seconds)))]
    return f"max {seconds[-1]:.1f} s, p99 {p99:.1f} s, p50 {statistics.median(seconds):.1f} s"


def show_soak(row: dict[str, Any], hands: dict[str, int]) -> None:
    """The soak's final figures: each minute's, the dropped tabs' return, the hands."""
    print("  per minute (final):")
    for minute, rss in enumerate(row["rss_minutes"], start=1):
        print(minute_line(minute, row["minutes"].get(minute - 1), rss, row["tables"]))
    back = row["back_after"]
    # ddz_site/settings.py's default unless the environment sets it
    lease = int(os.environ.get("DDZ_SOCKET_LEASE_SECONDS", "30"))
    if back or row["never_back"]:
        print(
            f"  dropped tabs: {len(back) + row['never_back']}, back after (the first state) "
            f"{_spread(back)}, accepted after {_spread(row['accepted_after'])} (lease "
            f"{lease} s; {sum(x > lease for x in back)} back later than it, "
            f"{row['never_back']} never back; {row['failed_reconnects']} failed reconnects)"
        )
    print(
        f"  hands: {hands['dealt']} dealt, {hands['settled']} finished and settled once "
        f"({hands['redeals']} of them re-deals, which move no beans), {hands['active']} still "
        f"in play, {hands['unsettled']} finished without their settlement; "
        f"{row['unfinished']} tables did not finish their last hand in time; actions by "
        f"source: {hands['sources']}",
        flush=True,
    )


def hands_check(side: dict[str, Any]) -> dict[str, Any]:
    """The bench database's hands after a soak: every hand dealt should be finished, and every
    finished one settled exactly once (one HandSettlement, ``hand_ref`` its id, unique) unless
    it is a re-deal; the applied actions by source (timeouts and auto-play mean a seat was
    given up for gone)."""
    import psycopg

    with psycopg.connect(side["database"]) as conn:
        dealt, active, settled, redeals, unsettled = conn.execute(
            """
            SELECT count(*),
                   count(*) FILTER (WHERE h.status = 'active'),
                   count(*) FILTER (WHERE h.status = 'finished' AND h.settled),
                   count(*) FILTER (WHERE h.status = 'finished' AND h.result ? 'redeal'),
                   count(*) FILTER (
                       WHERE h.status = 'finished' AND (NOT h.settled OR (
                           NOT coalesce(h.result ? 'redeal', false) AND NOT EXISTS (
                               SELECT 1 FROM accounts_handsettlement s
                               WHERE s.hand_ref = h.id::text))))
            FROM games_hand h
            """
        ).fetchone()
        sources = dict(
            conn.execute("SELECT source, count(*) FROM games_handaction GROUP BY source")
        )
    return {
        "dealt": dealt,
        "active": active,
        "settled": settled,
        "redeals": redeals,
        "unsettled": unsettled,
        "sources": sources,
    }


def server_latency(log: Path, window: tuple[float, float]) -> dict[str, float]:
    """p50/p99 of the server-side latency of the actions that arrived in the measured window,
    as the servers logged it (games/live/latency.py; an older tree logs nothing: NaN)."""
    found = []
    if log.exists():
        for line in log.read_text().splitlines():
            started, ms = (float(x) for x in line.split())
            if window[0] <= started <= window[1]:
                found.append(ms)
    found.sort()

    def q(p: float) -> float:
        return found[min(len(found) - 1, int(p * len(found)))] if found else float("nan")

    return {"server_p50_ms": q(0.50), "server_p99_ms": q(0.99)}


def _cpu_seconds(pid: int | None) -> float:
    """User + system CPU time of a process so far (Linux /proc)."""
    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def show(row: dict) -> None:
    errors = ", ".join(f"{k} {v}" for k, v in row["errors"].items() if v) or "none"
    print(
        f"{row['side']}: {row['processes']} proc  {row['pace']:5s} {row['tables']:4d} tables "
        f"({row['connected']} connected, ready after {row['ready_after']:.1f} s): "
        f"{row['actions_per_s']:7.1f} actions/s, "
        f"p50 {row['p50_ms']:6.1f} ms, p99 {row['p99_ms']:6.1f} ms, max {row['max_ms']:6.1f} ms, "
        f"{row['hands_finished']} hands, refusals {row['refusals']}, errors: {errors}, "
        f"lost frames {row['lost']} (resyncs {row['resyncs']}), "
        f"{row['kib_per_action_socket']:.1f} KiB/action/socket, "
        f"RSS +{row['rss_kib_per_table']:.0f} KiB/table, "
        f"server CPU {row['cpu_ms_per_action']:.1f} ms/action "
        f"({row['cpu_ms_per_second']:.0f} ms/s), "
        f"server-side p50 {row['server_p50_ms']:.1f} ms, p99 {row['server_p99_ms']:.1f} ms, "
        f"audit_beans {row['audit']}",
        flush=True,
    )
    for sample in row["samples"]:
        print("   refused:", sample, flush=True)


COLUMNS = (
    ("actions/s", "actions_per_s", "{:.1f}"),
    ("p50 ms", "p50_ms", "{:.0f}"),
    ("p99 ms", "p99_ms", "{:.0f}"),
    ("max ms", "max_ms", "{:.0f}"),
    ("CPU ms/act", "cpu_ms_per_action", "{:.1f}"),
    ("CPU ms/s", "cpu_ms_per_second", "{:.0f}"),
    ("srv p50 ms", "server_p50_ms", "{:.1f}"),
    ("srv p99 ms", "server_p99_ms", "{:.1f}"),
    ("KiB/act/sock", "kib_per_action_socket", "{:.1f}"),
    ("RSS KiB/table", "rss_kib_per_table", "{:.0f}"),
)


def compare(rows: list[dict]) -> None:
    """Each side's medians over its runs, and the counts summed: the final comparison."""
    print("\ncomparison (medians over each side's runs; errors and lost frames summed):")
    head = "".join(f"{title:>14}" for title, _key, _form in COLUMNS)
    print(f"{'side':>24} {'tables':>6} {'runs':>4}{head}{'errors':>8}{'lost':>6}  audit")
    keys = sorted({(r["side"], r["tables"]) for r in rows}, key=lambda k: (k[1], k[0]))
    for side, tables in keys:
        mine = [r for r in rows if (r["side"], r["tables"]) == (side, tables)]
        cells = "".join(
            f"{form.format(statistics.median(r[key] for r in mine)):>14}"
            for _title, key, form in COLUMNS
        )
        errors = sum(sum(r["errors"].values()) for r in mine)
        lost = sum(r["lost"] for r in mine)
        audits = ",".join(sorted({r["audit"] for r in mine}))
        print(f"{side:>24} {tables:>6} {len(mine):>4}{cells}{errors:>8}{lost:>6}  {audits}")


def audit(args: argparse.Namespace, side: dict[str, Any]) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", "audit_beans"],
        cwd=side["root"],
        env=side_env(args, side),
        capture_output=True,
        text=True,
        check=False,
    )
    print("  audit_beans:", (done.stdout + done.stderr).strip(), f"(exit {done.returncode})")
    return "clean" if done.returncode == 0 else f"FAILED({done.returncode})"


def base_checkout(commit: str) -> Path:
    """A detached worktree of ``commit`` beside the system's temporary files, sharing .venv
    and with its messages compiled."""
    sha = subprocess.run(
        ["git", "rev-parse", "--verify", f"{commit}^{{commit}}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    path = Path(tempfile.gettempdir()) / f"ddz-bench-base-{sha[:12]}"
    if not path.exists():
        subprocess.run(["git", "worktree", "add", "--detach", str(path), sha], cwd=ROOT, check=True)
        (path / ".venv").symlink_to(ROOT / ".venv")
        subprocess.run(
            [sys.executable, "manage.py", "compilemessages", "-v", "0", *COMPILE_IGNORES],
            cwd=path,
            check=True,
        )
    return path


def sides_of(args: argparse.Namespace) -> list[dict[str, Any]]:
    if args.metrics_ab:
        return [
            {"name": f"metrics {mode}", "root": ROOT, "database": args.database, "metrics": mode}
            for mode in ("off", "on")
        ]
    codes = [("new", ROOT, args.database)]
    if args.base:
        codes.insert(0, ("old", base_checkout(args.base), args.database + "_old"))
    return [{"name": label, "root": root, "database": database} for label, root, database in codes]


def metrics_env(mode: str | None) -> dict[str, str]:
    """The servers' environment for ``--metrics-ab``'s side ``mode``: none recorded, or recorded
    as a club's units do (several processes' files in one directory)."""
    if mode == "off":
        return {"DDZ_METRICS": "0"}
    if mode == "on":
        return {"PROMETHEUS_MULTIPROC_DIR": tempfile.mkdtemp(prefix="ddz-bench-metrics-")}
    return {}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--pace", choices=["human", "flat"], default="human")
    parser.add_argument(
        "--gap", type=float, default=HUMAN_GAP, help="human pace: seconds between a table's actions"
    )
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
    parser.add_argument("--base", default="", help="a commit: its code is measured as 'old'")
    parser.add_argument("--rounds", type=int, default=1, help="alternating runs of each side")
    parser.add_argument(
        "--metrics-ab",
        action="store_true",
        help="this code with the metrics off and on, alternating (their CPU per action)",
    )
    parser.add_argument("--soak", type=int, default=0, help="minutes: one long run per side")
    parser.add_argument(
        "--kill-at",
        type=int,
        default=0,
        help="minute of the soak at which the second process is killed (-9) and restarted",
    )
    parser.add_argument(
        "--database",
        default="postgres://postgres@127.0.0.1:5432/ddz_bench",
        help="dropped! (and <database>_old with --base)",
    )
    parser.add_argument(
        "--redis",
        default="redis://127.0.0.1:6379/9",
        help="flushed! '' for the in-memory channel layer (one process only)",
    )
    parser.add_argument("--make-tables", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.make_tables:
        # a side's own code, in its own database (the parent's environment): see tables_of
        import django

        django.setup()
        print(json.dumps(make_tables(args.make_tables, start=0)))
        return 0
    if args.metrics_ab and args.base:
        parser.error("--metrics-ab measures this checkout alone: no --base")
    if not args.redis and args.processes > 1:
        parser.error("several processes share the Redis channel layer: give --redis")
    if args.kill_at and not (args.processes == 2 and 0 < args.kill_at < args.soak):
        parser.error("--kill-at needs --processes 2 and a minute inside --soak")

    from tests.reliability.harness import Server, free_port

    status = 0
    sides = sides_of(args)
    counts = [int(x) for x in args.knee.split(",") if x] or [args.tables]
    rows = []
    for count in counts:
        for round_ in range(args.rounds):
            for side in sides:
                layer = args.redis or "the in-memory channel layer"
                print(
                    f"{side['name']} ({side['root']}), round {round_ + 1}: {count} tables, "
                    f"{side['database']} and {layer} ...",
                    flush=True,
                )
                # fresh processes and database for every run: no backlog or memory of another
                prepare_database(args, side)
                latency_log = Path(tempfile.mkstemp(prefix="ddz-latency-", suffix=".log")[1])
                env = {
                    **_env(args, side),
                    **metrics_env(side.get("metrics")),
                    "DDZ_LATENCY_LOG": str(latency_log),
                }
                servers = [
                    Server(free_port(), env, name=f"bench{i}", root=side["root"]).start()
                    for i in range(args.processes)
                ]
                try:
                    time.sleep(1.5)  # the deadline runner's start
                    row = one_run(args, side, servers, count, args.pace)
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
                row.update(server_latency(latency_log, row["window"]))
                latency_log.unlink(missing_ok=True)
                row["audit"] = audit(args, side)
                status = status or (row["audit"] != "clean")
                show(row)
                if args.soak:
                    hands = hands_check(side)
                    show_soak(row, hands)
                    status = status or bool(hands["active"] or hands["unsettled"])
                rows.append(row)
    if len(rows) > 1:
        compare(rows)
    return status


if __name__ == "__main__":
    sys.exit(main())
