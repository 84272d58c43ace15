"""Reliability tests: real daphne processes on PostgreSQL and Redis (issue #6).

They run only when DATABASE_URL (PostgreSQL) and REDIS_URL are set, as in CI's second pass
(`.ci/run`); several processes cannot share SQLite's test database or the in-memory layer.
Every subprocess is started through the ``servers`` fixture, which kills it whatever happens.
"""

from __future__ import annotations

import os

import pytest
from django.db import connection

from tests.reliability.harness import Server, database_url, free_port

LIVE = bool(
    os.environ.get("DATABASE_URL", "").startswith("postgres") and os.environ.get("REDIS_URL")
)
SKIP_REASON = (
    "reliability tests need PostgreSQL and Redis: set DATABASE_URL=postgres://... and "
    "REDIS_URL=redis://... (CI's second pass does)"
)


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by the marks given here
def pytest_collection_modifyitems(config, items):
    skip = pytest.mark.skip(reason=SKIP_REASON)
    here = os.path.dirname(__file__)
    for item in items:
        if not str(item.fspath).startswith(here):
            continue
        item.add_marker(pytest.mark.slow)  # real processes, started and stopped
        if not LIVE and "no_services" not in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def servers(transactional_db):
    """A factory of daphne processes on the test database; all killed at teardown (before the
    database is flushed)."""
    started: list[Server] = []
    env = {
        "DATABASE_URL": database_url(connection.settings_dict),
        "REDIS_URL": os.environ.get("REDIS_URL", ""),
        "DEBUG": "1",
    }

    def start(name: str = "daphne", **extra: str) -> Server:
        server = Server(free_port(), {**env, **extra}, name=name)
        started.append(server)
        return server.start()

    yield start
    for server in started:
        server.kill()
