"""The browser tests' club: a daphne process per test module, on a database of its own, and
Chromium driven by Playwright.

They run in a pytest process of their own (``pytest -m browser -p no:asyncio``; docs/
conventions.md §9: Playwright's event loop and pytest-asyncio's cannot share one). The server
runs on the configuration of the run: PostgreSQL and Redis when DATABASE_URL and REDIS_URL say
so (CI runs the browser tests in that pass only), else a SQLite file and the in-memory layer.
Each module's server starts from a copy of a database migrated once per session, then runs the
module's setup code (``SETUP`` below, or the module's ``served`` fixture's own).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from itertools import count
from pathlib import Path
from urllib.parse import urlparse, urlunparse

import pytest

from tests.browser.pages import PASSWORD
from tests.reliability.harness import ROOT, Server, free_port

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# the club most browser tests play in: a room per variant, rooms of one test each, members
SETUP = f"""
from accounts.services import beans_grant
from club.services.player_settings import player_guide_seen
from django.contrib.auth import get_user_model
from games.services import room_create
# bots reply from the server's deadline runner, quicker than the default for whole new5 hands
for variant in ("qq5", "new5", "classic3", "fenzhou5"):
    room_create(name="room-" + variant, variant=variant, coefficient=1, bot_delay_ms=100)
# rooms of one test each: no table left over from an earlier test takes its players apart
for name in ("room-between-hands", "room-panels", "room-steady"):
    room_create(name=name, variant="classic3", coefficient=1, bot_delay_ms=100)
# the events' browser tests (tests/browser/test_events.py, test_event_arena.py) and their operator
for variant in ("classic3", "qq5"):
    room_create(name="room-events-" + variant, variant=variant, rake_percent=10, bot_delay_ms=100)
User = get_user_model()
User.objects.create_user(username="boss", password={PASSWORD!r}, is_staff=True, is_superuser=True)
for name in ("ann", "ben", "cat", "dan", "eve", "fay", "gil", "hal", "ivy", "kim"):
    user = User.objects.create_user(username=name, password={PASSWORD!r})
    beans_grant(user=user, amount=100000)
    # the first-hand guide opens over the table by itself; only ivy has not seen it yet
    # (tests/browser/test_rules_guide.py), so it covers nothing another test taps
    if name != "ivy":
        player_guide_seen(user=user)
"""


def pytest_collection_modifyitems(config, items):
    here = os.path.dirname(__file__)
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(pytest.mark.browser)


class Databases:
    """Fresh databases for the servers of one pytest process, each a copy of one migrated
    template: a file copy on SQLite, ``CREATE DATABASE ... TEMPLATE`` on PostgreSQL."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.postgres = os.environ.get("DATABASE_URL", "").startswith("postgres")
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        self.prefix = f"ddz_browser_{worker}_{os.getpid()}"
        self.made: list[str] = []
        self.numbers = count()
        self.template = self._url(f"{self.prefix}_template")
        if self.postgres:
            self._sql(f'CREATE DATABASE "{self.prefix}_template"')
            self.made.append(f"{self.prefix}_template")
        self.manage("migrate", "-v0", database=self.template)

    def _url(self, name: str) -> str:
        if self.postgres:
            return urlunparse(urlparse(os.environ["DATABASE_URL"])._replace(path=f"/{name}"))
        return f"sqlite:///{self.folder / (name + '.sqlite3')}"

    def _sql(self, statement: str) -> None:
        import psycopg

        server = urlunparse(urlparse(os.environ["DATABASE_URL"])._replace(path="/postgres"))
        with psycopg.connect(server, autocommit=True) as connection:
            connection.execute(statement)

    def fresh(self) -> str:
        """The URL of a new database holding the migrated schema and nothing else."""
        name = f"{self.prefix}_{next(self.numbers)}"
        if self.postgres:
            self._sql(f'CREATE DATABASE "{name}" TEMPLATE "{self.prefix}_template"')
            self.made.append(name)
        else:
            shutil.copyfile(urlparse(self.template).path, urlparse(self._url(name)).path)
        return self._url(name)

    def drop(self, url: str) -> None:
        if self.postgres:
            name = urlparse(url).path.strip("/")
            self._sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            self.made.remove(name)

    def env(self, url: str) -> dict[str, str]:
        return {
            **os.environ,
            "DATABASE_URL": url,
            "REDIS_URL": os.environ.get("REDIS_URL", ""),
            "DEBUG": "1",
            "DJANGO_SETTINGS_MODULE": "ddz_site.settings",
            # no bots fill a waiting table by themselves: on a loaded machine a player's table
            # filled before his friend's quick-join came, which then opened another table
            "DDZ_BOT_FILL_SECONDS": "0",
        }

    def manage(self, *args: str, database: str) -> str:
        """A manage.py command on ``database``; what it printed."""
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env(database),
            check=True,
            capture_output=True,
            text=True,
        ).stdout

    def close(self) -> None:
        for name in list(self.made):
            self._sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        self.made.clear()


@pytest.fixture(scope="session")
def databases() -> Iterator[Databases]:
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium is not installed")
    folder = Path(tempfile.mkdtemp(prefix="ddz-browser-"))
    made = Databases(folder)
    try:
        yield made
    finally:
        made.close()
        shutil.rmtree(folder, ignore_errors=True)


class Served:
    """A daphne process on a fresh database set up by ``setup`` (Python for manage.py shell),
    whose output is kept in ``printed``."""

    def __init__(self, databases: Databases, setup: str) -> None:
        self.databases = databases
        self.database = databases.fresh()
        self.printed = databases.manage("shell", "-c", setup, database=self.database)
        self.server = Server(free_port(), databases.env(self.database), name="browser")
        self.server.start(timeout=60)
        self.base = f"http://127.0.0.1:{self.server.port}"

    def manage(self, *args: str) -> str:
        return self.databases.manage(*args, database=self.database)

    def stop(self) -> None:
        self.server.stop()
        self.databases.drop(self.database)


@pytest.fixture(scope="module")
def server(databases, request) -> Iterator[str]:
    """The base URL of the module's server, set up with ``SETUP`` and the module's own
    ``EXTRA_SETUP`` when it has one."""
    served = Served(databases, SETUP + getattr(request.module, "EXTRA_SETUP", ""))
    try:
        yield served.base
    finally:
        served.stop()


@pytest.fixture(scope="module")
def chromium():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


@pytest.fixture
def browser(chromium):
    """The module's Chromium; the test's pages are closed after it. A page left open keeps its
    sockets and its user's socket leases, and its table keeps being played and pushed to."""
    yield chromium
    for context in chromium.contexts:
        context.close()
