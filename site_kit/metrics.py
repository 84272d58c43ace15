"""The server's Prometheus metrics (README "Running it"; deploy/metrics.md says which to watch).

Every served process counts into prometheus-client's metrics. With ``PROMETHEUS_MULTIPROC_DIR``
set (a club's systemd units do: several daphne processes) each process writes its values to
files there and any process's ``/metrics`` answers the sum of all of them (prometheus-client's
multiprocess mode); without it a process answers its own. The variable must be in the process's
environment before prometheus-client is imported, which is why it is not a Django setting.

What the hot paths do here is an increment or one observation: no query, no lock of ours.
``DDZ_METRICS=0`` (an environment variable too) records nothing: every metric is a stand-in
that ignores what it is told (bench/load_tables.py --metrics-ab compares the two).
Facts the database already holds (tables and hands in play per variant) are read when
Prometheus scrapes, by ``GameCollector``, never counted as they change.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import REGISTRY, Collector


class _Off:
    """A metric that records nothing (DDZ_METRICS=0)."""

    def labels(self, *values: str) -> _Off:
        return self

    def inc(self, amount: float = 1) -> None:
        pass

    dec = inc

    def set(self, value: float) -> None:
        pass

    observe = set


ON = os.environ.get("DDZ_METRICS", "1").strip().lower() not in {"0", "off", "false", "no"}


def _metric(kind: type, *args: object, **kwargs: object) -> Any:
    return kind(*args, **kwargs) if ON else _Off()


# Seconds from a player's frame arriving to its commit and to its push: a move is quick (a few
# ms) when the server keeps up, and anything past a second is a complaint.
_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

SOCKETS = _metric(
    Gauge,
    "ddz_sockets",
    "Open websockets: a seated player's table socket, a spectator's, an event page's.",
    ["kind"],
    multiprocess_mode="livesum",
)
SEATED_SOCKETS = SOCKETS.labels("seated")
SPECTATOR_SOCKETS = SOCKETS.labels("spectator")
EVENT_SOCKETS = SOCKETS.labels("event")

ACTIONS = _metric(Counter, "ddz_actions", "Players' moves and 托管 switches applied.", ["kind"])
REFUSED = _metric(
    Counter, "ddz_refused_actions", "Frames refused, by the refusal's code.", ["reason"]
)
ACTION_COMMIT_SECONDS = _metric(
    Histogram,
    "ddz_action_commit_seconds",
    "From a player's frame arriving to its write's commit.",
    buckets=_LATENCY_BUCKETS,
)
ACTION_PUSH_SECONDS = _metric(
    Histogram,
    "ddz_action_push_seconds",
    "From a player's frame arriving to its push handed to the channel layer.",
    buckets=_LATENCY_BUCKETS,
)
PUSH_CHARACTERS = _metric(
    Counter,
    "ddz_push_characters",
    "Characters of the frames written to table sockets (bytes, for the markup's ASCII).",
)
CHANNEL_LAYER_ERRORS = _metric(
    Counter,
    "ddz_channel_layer_errors",
    "Sends to or group changes of the channel layer that failed.",
)
RUNNER_LAG_SECONDS = _metric(
    Gauge,
    "ddz_runner_lag_seconds",
    "How late the deadline runner's oldest due hand was at its last round.",
    multiprocess_mode="max",
)
RUNNER_APPLY_LAG_SECONDS = _metric(
    Histogram,
    "ddz_runner_apply_lag_seconds",
    "How late each deadline was applied after it was due.",
    buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0),
)
BOT_DECISION_SECONDS = _metric(
    Histogram,
    "ddz_bot_decision_seconds",
    "The wall time of the bots' decisions of one deadline round of a hand.",
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0),
)
DB_POOL = _metric(
    Gauge,
    "ddz_db_pool_connections",
    "The database connection pools: their connections, the idle ones, requests waiting.",
    ["state"],
    multiprocess_mode="livesum",
)

# Names of a live gauge's per-process files (prometheus-client's multiprocess values)
_LIVE_FILE = re.compile(r"^gauge_live\w+_(\d+)\.db$")


def multiprocess_dir() -> str:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")


def forget_dead_processes() -> int:
    """Drop the live gauges of processes that are gone (a daphne that was restarted or killed),
    so open sockets counted by a dead process stop adding up. Returns how many it dropped."""
    directory = multiprocess_dir()
    if not directory:
        return 0
    dead = set()
    for path in Path(directory).glob("gauge_live*.db"):
        found = _LIVE_FILE.match(path.name)
        if found and not _alive(int(found.group(1))):
            dead.add(int(found.group(1)))
    for pid in dead:
        multiprocess.mark_process_dead(pid, directory)
    return len(dead)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def pool_observe(stats: dict[str, int]) -> None:
    """This process's database pool (psycopg_pool's ``get_stats()``)."""
    DB_POOL.labels("size").set(stats.get("pool_size", 0))
    DB_POOL.labels("idle").set(stats.get("pool_available", 0))
    DB_POOL.labels("waiting").set(stats.get("requests_waiting", 0))


class GameCollector(Collector):
    """Facts read from the database at scrape time: ``read()`` returns (name, help, label,
    {label value: count}) for each."""

    def __init__(self, read: Callable[[], Iterable[tuple[str, str, str, dict[str, int]]]]):
        self.read = read

    def collect(self) -> Iterable[GaugeMetricFamily]:
        for name, documentation, label, counts in self.read():
            family = GaugeMetricFamily(name, documentation, labels=[label])
            for value, count in sorted(counts.items()):
                family.add_metric([value], count)
            yield family


def exposition(*, extra: Collector | None = None) -> bytes:
    """The text Prometheus scrapes: every process's metrics (or this one's), and ``extra``."""
    if multiprocess_dir():
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    else:
        registry = CollectorRegistry()
        registry.register(_Everything())
    if extra is not None:
        registry.register(extra)
    return generate_latest(registry)


class _Everything(Collector):
    """The process's own metrics (its default registry), gathered into a fresh registry beside
    the scrape's extra collector."""

    def collect(self) -> Iterable[Metric]:
        yield from REGISTRY.collect()
