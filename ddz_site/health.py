"""Health and metrics endpoints of a served process (README "Running it").

Served by ``ReadinessGate`` in front of Django (ddz_site/asgi.py):

* ``/healthz``: liveness: the process answers. Nothing else is looked at.
* ``/readyz``: readiness: the database answers, Redis answers (when configured), a message
  goes through the channel layer and back, this process's deadline runner finished a round
  in the last DDZ_READY_RUNNER_SECONDS (when it runs here), and no migration is pending.
  JSON, 200 or 503; it names each check's verdict and never an error's text (which may hold
  an address or a password).
* ``/metrics``: Prometheus's text (site_kit/metrics.py), for the addresses of
  DDZ_METRICS_ALLOWED only.

A served process checks its own readiness every READY_INTERVAL_SECONDS on its event loop
(``ReadinessGate`` starts the check with the first request) and, once REFUSE_AFTER checks in a
row have failed and until one passes, refuses new pages with 503 and new sockets (closed
before they are accepted: the handshake gets 403): nginx then sends them to another process
(deploy/nginx.conf). ``/readyz`` answers from that check when it is fresh, so a probe costs
no query. The checks read the database in a thread of their own, not behind the tables' work.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.migrations.executor import MigrationExecutor
from redis.asyncio import Redis

from games.apps import serving
from games.push import send
from games.reads import selectors
from games.runner import deadlines
from site_kit.addresses import client_address
from site_kit.metrics import GameCollector, exposition

logger = logging.getLogger(__name__)

READY_INTERVAL_SECONDS = 5.0
_CHECK_TIMEOUT_SECONDS = 5.0
# a process refuses new work after this many failed checks in a row: one slow answer on a busy
# machine is no reason to send its players elsewhere
REFUSE_AFTER = 2
OK, FAILED, OFF = "ok", "failed", "off"


@dataclass
class Readiness:
    checks: dict[str, str] = field(default_factory=dict)
    at: float = 0.0  # monotonic

    @property
    def ready(self) -> bool:
        return all(verdict in (OK, OFF) for verdict in self.checks.values())

    def as_json(self) -> dict[str, Any]:
        return {"status": OK if self.ready else FAILED, "checks": self.checks}


# --------------------------------------------------------------------------- the checks


def _database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return OK


class _Migrations:
    """Whether every migration is applied: read once it is (a running process never gets new
    migrations; the next release's are applied before it starts)."""

    applied = False

    def check(self) -> str:
        if not self.applied:
            executor = MigrationExecutor(connections[DEFAULT_DB_ALIAS])
            self.applied = not executor.migration_plan(executor.loader.graph.leaf_nodes())
        return OK if self.applied else FAILED


_migrations = _Migrations()


def _own_connection(read: Callable[[], Any]) -> Any:
    """``read`` in a thread of its own, not the one the sockets' database work queues in: a
    check or a scrape must neither wait behind the tables nor make them wait."""
    try:
        return read()
    finally:
        connection.close()  # back to the pool


def _database_and_migrations() -> dict[str, str]:
    try:
        found = {"database": _database()}
    except Exception:
        logger.warning("readiness: the database does not answer", exc_info=True)
        return {"database": FAILED, "migrations": FAILED}
    try:
        found["migrations"] = _migrations.check()
    except Exception:
        logger.warning("readiness: the migrations could not be read", exc_info=True)
        found["migrations"] = FAILED
    return found


async def _redis() -> str:
    if not settings.REDIS_URL:
        return OFF
    client = Redis.from_url(
        settings.REDIS_URL,
        socket_connect_timeout=_CHECK_TIMEOUT_SECONDS,
        socket_timeout=_CHECK_TIMEOUT_SECONDS,
    )
    try:
        await client.ping()
        return OK
    finally:
        await client.aclose()


async def _channel_layer() -> str:
    return OK if await send.layer_round_trip() else FAILED


def _deadline_runner() -> str:
    if not deadlines.runner_running():
        return OFF
    age = deadlines.heartbeat.age_seconds()
    return OK if age <= settings.DDZ_READY_RUNNER_SECONDS else FAILED


async def _verdict(check: Callable[[], Awaitable[str]], name: str) -> str:
    try:
        return await asyncio.wait_for(check(), _CHECK_TIMEOUT_SECONDS)
    except Exception:
        logger.warning("readiness: %s failed", name, exc_info=True)
        return FAILED


async def readiness_check() -> Readiness:
    """Every check, the slow ones at once."""
    stored, redis, layer = await asyncio.gather(
        asyncio.to_thread(_own_connection, _database_and_migrations),
        _verdict(_redis, "redis"),
        _verdict(_channel_layer, "the channel layer"),
    )
    checks = {
        "database": stored["database"],
        "redis": redis,
        "channel_layer": layer,
        "deadline_runner": _deadline_runner(),
        "migrations": stored["migrations"],
    }
    return Readiness(checks=checks, at=time.monotonic())


class Monitor:
    """This process's readiness, checked every READY_INTERVAL_SECONDS on the server's loop."""

    def __init__(self) -> None:
        self.last: Readiness | None = None
        self.failures = 0  # failed checks in a row
        self.task: asyncio.Task[None] | None = None
        # only a served process checks itself on a timer: a test's loop is not the server's
        self.enabled = serving()

    def fresh(self) -> Readiness | None:
        last = self.last
        if last is None or time.monotonic() - last.at > 2 * READY_INTERVAL_SECONDS:
            return None
        return last

    def record(self, found: Readiness) -> Readiness:
        self.last = found
        self.failures = 0 if found.ready else self.failures + 1
        return found

    def refusing(self) -> bool:
        return self.fresh() is not None and self.failures >= REFUSE_AFTER

    def ensure_running(self) -> None:
        if self.enabled and (self.task is None or self.task.done()):
            self.task = asyncio.get_running_loop().create_task(self.run_forever())

    async def run_forever(self) -> None:
        while True:
            try:
                self.record(await readiness_check())
            except Exception:  # the checks catch their own failures; this is a bug
                logger.exception("the readiness check failed")
            await asyncio.sleep(READY_INTERVAL_SECONDS)


monitor = Monitor()


class ReadinessGate:
    """ASGI, in front of the site: answers the health and metrics paths itself (before
    Django's middleware: a probe on a process's own port names no allowed host and speaks
    plain HTTP), and while this process is not ready gives a new page 503 and closes a new
    socket before accepting it, so nginx sends them elsewhere."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            monitor.ensure_running()
            endpoint = ENDPOINTS.get(scope.get("path", "")) if scope["type"] == "http" else None
            if endpoint is not None:
                status, content_type, body = await endpoint(scope)
                await _respond(send, status, content_type, body)
                return
            if monitor.refusing():
                if scope["type"] == "websocket":
                    await receive()  # websocket.connect
                    await send({"type": "websocket.close", "code": 1013})  # try again later
                else:
                    await _respond(send, 503, b"text/plain", b"not ready\n")
                return
        await self.application(scope, receive, send)


async def _respond(send: Any, status: int, content_type: bytes, body: bytes) -> None:
    headers = [(b"content-type", content_type), (b"cache-control", b"no-store")]
    if status == 503:
        headers.append((b"retry-after", b"5"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


# --------------------------------------------------------------------------- the endpoints

_JSON = b"application/json"
Answer = tuple[int, bytes, bytes]


async def healthz(scope: dict[str, Any]) -> Answer:
    return 200, _JSON, json.dumps({"status": OK}).encode()


async def readyz(scope: dict[str, Any]) -> Answer:
    found = monitor.fresh()
    if found is None:
        found = monitor.record(await readiness_check())
    return (200 if found.ready else 503), _JSON, json.dumps(found.as_json()).encode()


def metrics_allowed(address: str | None) -> bool:
    if not address:
        return False
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    allowed = settings.DDZ_METRICS_ALLOWED
    return any(ip in ipaddress.ip_network(net, strict=False) for net in allowed)


def _game_facts() -> list[tuple[str, str, str, dict[str, int]]]:
    return [
        (
            "ddz_tables_in_play",
            "Tables playing a hand, per variant.",
            "variant",
            selectors.tables_in_play_by_variant(),
        ),
        (
            "ddz_hands_active",
            "Hands being played, per variant.",
            "variant",
            selectors.hands_active_by_variant(),
        ),
    ]


def _exposition() -> bytes:
    return exposition(extra=GameCollector(_game_facts))


async def metrics(scope: dict[str, Any]) -> Answer:
    headers = dict(scope.get("headers") or [])
    forwarded = headers.get(b"x-forwarded-for", b"").decode("latin-1") or None
    peer = (scope.get("client") or (None, None))[0]
    if not metrics_allowed(client_address(forwarded_for=forwarded, peer=peer)):
        return 404, b"text/plain", b"not found\n"
    body = await asyncio.to_thread(_own_connection, _exposition)
    return 200, b"text/plain; version=0.0.4; charset=utf-8", body


ENDPOINTS: dict[str, Callable[[dict[str, Any]], Awaitable[Answer]]] = {
    "/healthz": healthz,
    "/readyz": readyz,
    "/metrics": metrics,
}
