"""Running it like a service (issue #38) with real processes, PostgreSQL and Redis.

* Two daphne processes count into one metrics directory: either answers the sum (sockets open
  on both, moves sent to both). Their Redis is a private ``redis-server`` this test starts,
  stops and starts again (never the machine's shared one): readiness goes 503 while it is
  away, the process then refuses new pages, and it is ready again once Redis is back.
* A backup restores: hands and an event played, the nightly dump script (deploy/) run,
  ``manage.py restore_check`` restores it into a new database and audits it clean, every hand
  and ledger row is back, and a server on the restored database serves the tables.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import psycopg
import pytest
from channels.db import database_sync_to_async
from django.db import connection

from accounts.models import BeanEntry
from competitions import services as event_services
from competitions.management.commands.restore_check import database_url
from games import services
from games.models import Hand, HandAction
from tests.competitions.helpers import START, entrants, make_event, play_all, step
from tests.reliability.harness import ROOT, TableClient, free_port, session_cookie
from tests.support.metrics import samples
from tests.support.tables import ensure_triggers, make_player, make_room, play_to_end

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]

db = database_sync_to_async
PATIENCE = 90.0  # seconds a condition may take on a loaded machine before the test fails


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


async def _until(what: str, check, patience: float = PATIENCE):
    started = time.monotonic()
    while True:
        value = await asyncio.to_thread(check)
        if value:
            return value
        assert time.monotonic() - started < patience, f"{what}: not within {patience} s"
        await asyncio.sleep(0.2)


class PrivateRedis:
    """A redis-server of this test's own on a free port, stopped and started at will."""

    def __init__(self) -> None:
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [shutil.which("redis-server") or "redis-server", "--port", str(self.port),
             "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket_to(self.port) as sock:
                sock.sendall(b"PING\r\n")
                if sock.recv(16).startswith(b"+PONG"):
                    return
            time.sleep(0.05)
        raise RuntimeError("the private redis-server did not answer")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=30)
            self.proc = None


def socket_to(port: int):
    import socket

    return socket.create_connection(("127.0.0.1", port), timeout=1)


@pytest.fixture
def private_redis():
    redis = PrivateRedis()
    redis.start()
    yield redis
    redis.stop()


def _setup_table():
    ensure_triggers()
    room = make_room("classic3", bid_seconds=300, turn_seconds=300)
    table = services.table_create(room=room)
    users = [make_player() for _ in range(3)]
    for user in users:
        services.table_join(table_id=table.pk, user=user)
    return table.pk, users, [session_cookie(u) for u in users], session_cookie(make_player())


async def test_two_processes_add_up_and_readiness_follows_redis(
    servers, private_redis, tmp_path, settings
):
    env = {"REDIS_URL": private_redis.url, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    # this process pushes the deal through the servers' Redis (the settings' way to name it)
    layers = copy.deepcopy(settings.CHANNEL_LAYERS)
    layers["default"]["CONFIG"]["hosts"][0]["address"] = private_redis.url
    layers["default"]["CONFIG"]["prefix"] = "asgi0" + os.environ.get("PYTEST_XDIST_WORKER", "")
    settings.CHANNEL_LAYERS = layers
    first, second = servers("first", **env), servers("second", **env)
    for server in (first, second):
        ready = await _until("ready", lambda s=server: _get(f"{_http(s)}/readyz"))
        assert ready[0] == 200, ready
    table_id, users, cookies, watcher = await db(_setup_table)()
    placed = [first, second, first]
    tabs = [
        await TableClient(f"seat{i}", placed[i].url, table_id, cookie).connect()
        for i, cookie in enumerate(cookies)
    ]
    tabs.append(await TableClient("watcher", second.url, table_id, watcher).connect())
    await db(services.hand_start)(table_id=table_id, user=users[0])
    sent = {"first": 0, "second": 0}
    while not all(sent.values()):  # until each process has taken a move
        assert sum(sent.values()) < 30, sent
        await _until("a seat to move", lambda: any(_move(t) for t in tabs[:3]))
        tab, server = next((t, placed[i]) for i, t in enumerate(tabs[:3]) if _move(t))
        before = len(tab.frames)
        await tab.send(_move(tab))
        sent[server.name] += 1
        await tab.wait_for(lambda t=tab, b=before: any(f.is_state for f in t.frames[b:]))

    def scraped(server) -> dict[str, dict[str, float]] | None:
        status, text = _get(f"{_http(server)}/metrics")
        assert status == 200
        found = {
            name: samples(text, name)
            for name in ("ddz_sockets", "ddz_actions_total", "ddz_action_commit_seconds_count")
        }
        want = sum(sent.values())
        counted = found["ddz_actions_total"].get('{kind="act"}', 0)
        return found if counted >= want else None

    for server in (first, second):  # either process answers the sum of both
        found = await _until("the moves counted", lambda s=server: scraped(s))
        assert found["ddz_sockets"]['{kind="seated"}'] == 3
        assert found["ddz_sockets"]['{kind="spectator"}'] == 1
        assert found["ddz_actions_total"]['{kind="act"}'] == sum(sent.values())
        assert found["ddz_action_commit_seconds_count"][""] == sum(sent.values())
    for tab in tabs:
        await tab.close()

    base = _http(first)
    private_redis.stop()
    _, body = await _until(
        "unready without redis", lambda: (r := _get(f"{base}/readyz"))[0] == 503 and r
    )
    checks = json.loads(body)["checks"]
    assert checks["redis"] == checks["channel_layer"] == "failed"
    assert checks["database"] == "ok"
    # after its second failed check in a row, no new pages meanwhile
    await _until("new pages refused", lambda: _get(f"{base}/")[0] == 503)
    assert (await asyncio.to_thread(_get, f"{base}/healthz"))[0] == 200  # yet alive
    private_redis.start()
    await _until("ready again", lambda: _get(f"{base}/readyz")[0] == 200)
    assert (await asyncio.to_thread(_get, f"{base}/"))[0] == 200


def _http(server) -> str:
    return f"http://127.0.0.1:{server.port}"


def _move(tab: TableClient) -> dict | None:
    frame = tab.last_state()
    return frame.decide() if frame is not None and tab.open else None


# --------------------------------------------------------------------------- backups


def _play_hands_and_an_event() -> tuple[int, str]:
    """Two hands at a table and an arena night, played and settled; the table and a signed-in
    session of one of its players (which the dump keeps too)."""
    ensure_triggers()
    room = make_room("classic3", bot_delay_ms=0)
    table = services.table_create(room=room)
    players = [make_player() for _ in range(3)]
    for user in players:
        services.table_join(table_id=table.pk, user=user)
    for _ in range(2):
        services.hand_start(table_id=table.pk, user=None)
        play_to_end(table)
    event = make_event(make_room("classic3", bot_delay_ms=0), prize_bands="1:60, 2:40")
    entrants(event, 3)
    event = step(event, START)
    play_all(event)
    event_services.event_finish(event_id=event.pk)
    return table.pk, session_cookie(players[0])


def _counts() -> dict[str, int]:
    return {
        "hands": Hand.objects.count(),
        "actions": HandAction.objects.count(),
        "ledger": BeanEntry.objects.count(),
        "finished": Hand.objects.filter(status=Hand.Status.FINISHED).count(),
    }


def _counts_in(url: str) -> dict[str, int]:
    with psycopg.connect(url) as conn:
        count = lambda table: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # noqa: E731
        finished = conn.execute(
            "SELECT count(*) FROM games_hand WHERE status = 'finished'"
        ).fetchone()[0]
        return {
            "hands": count("games_hand"),
            "actions": count("games_handaction"),
            "ledger": count("accounts_beanentry"),
            "finished": finished,
        }


async def test_a_nightly_dump_restores_audits_clean_and_serves_the_tables(servers, tmp_path):
    table_id, cookie = await db(_play_hands_and_an_event)()
    played = await db(_counts)()
    assert played["finished"] >= 3 and played["ledger"] > 0
    params = connection.settings_dict
    live_url = database_url(params, params["NAME"])
    env = {**os.environ, "DATABASE_URL": live_url, "DDZ_BACKUP_DIR": str(tmp_path)}
    dumped = await asyncio.to_thread(
        subprocess.run, [str(ROOT / "deploy" / "ddz-backup.sh")],
        env=env, capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert dumped.returncode == 0, dumped.stderr
    dump = Path(dumped.stdout.strip())
    assert dump.is_file() and dump.parent == tmp_path
    scratch = f"{params['NAME']}_restored"
    restored = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "manage.py", "restore_check", str(dump), "--database", scratch, "--keep"],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    try:
        assert restored.returncode == 0, restored.stdout + restored.stderr
        assert "audit_beans: clean" in restored.stdout
        assert "rating_recompute --check: the ratings are the history's" in restored.stdout
        scratch_url = database_url(params, scratch)
        assert await asyncio.to_thread(_counts_in, scratch_url) == played
        server = servers("restored", DATABASE_URL=scratch_url)
        ready = await _until("ready", lambda: (r := _get(f"{_http(server)}/readyz"))[0] and r)
        assert ready[0] == 200, ready
        # the player's session came back with the rest: his table shows its last hand's result
        tab = await TableClient("restored", server.url, table_id, cookie).connect()
        await tab.wait_for(lambda: tab.last_state() is not None)
        assert 'id="table-result"' in tab.last_state().page
        await tab.close()
    finally:
        with psycopg.connect(database_url(params, "postgres"), autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{scratch}" WITH (FORCE)')
