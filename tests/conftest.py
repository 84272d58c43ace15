"""Fixtures shared by the Django-side tests.

``live_db``: a transactional database for tests whose code runs in other threads (channels'
``database_sync_to_async``, deadline claimers). SQLite flushes a transactional test with
DELETE, which the append-only triggers of the ledger and the hand log refuse; the fixture drops
them just before pytest-django's flush and every database test that needs them (re)creates them
(``append_only_triggers``). PostgreSQL flushes with TRUNCATE, which row triggers do not see.
"""

from __future__ import annotations

import copy
import itertools
import subprocess
import sys
from pathlib import Path

import hypothesis
import pytest

from tests.support.tables import ensure_triggers

_names = itertools.count(1)

# The mutation run (scripts/mutation.sh, ``--hypothesis-profile=mutation``) calls each test many
# times in one process, once per mutant: the same examples every time (a mutant's verdict must
# not depend on the run), none saved between runs.
hypothesis.settings.register_profile(
    "mutation",
    derandomize=True,
    database=None,
    suppress_health_check=[hypothesis.HealthCheck.differing_executors],
)


@pytest.fixture(autouse=True)
def _club_language():
    """Every test starts in the club's default language: a request of an earlier test (the test
    client's LocaleMiddleware) leaves its own active in the thread."""
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def make_user(db, django_user_model):
    """Create a player, optionally holding beans granted through the ledger."""

    def make(*, beans: int = 0, username: str | None = None, **fields):
        from accounts.services import beans_grant

        user = django_user_model.objects.create_user(
            username=username or f"player{next(_names)}", password="pass-word-123", **fields
        )
        if beans:
            beans_grant(user=user, amount=beans)
        return user

    return make


@pytest.fixture
def staff_client(client, make_user):
    admin = make_user(username="operator", is_staff=True, is_superuser=True)
    client.force_login(admin)
    client.user = admin
    return client


def stale_catalogues(root: Path) -> list[Path]:
    """The project's .po files whose compiled .mo is missing or older (the .mo files are not in
    git: a fresh clone has none)."""
    stale = []
    for po in sorted((root / "locale").glob("*/LC_MESSAGES/*.po")):
        mo = po.with_suffix(".mo")
        if not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime:
            stale.append(po)
    return stale


def compile_translations(root: Path) -> None:
    """Compile the catalogues the pages are tested in, so that plain ``pytest`` passes on a fresh
    clone (scripts/test.sh compiles them too). Once, in the main process: xdist's workers start
    after it and find them compiled."""
    if not stale_catalogues(root):
        return
    ignore = ("--ignore=.venv/*", "--ignore=bench/*", "--ignore=mutants/*")
    command = [sys.executable, "manage.py", "compilemessages", *ignore, "-v", "0"]
    subprocess.run(command, cwd=root, check=True)
    # pytest-django set Django up before this hook, and loading the apps may already have read
    # (and cached) the catalogues that were missing: tell Django they changed, as a test that
    # overrides LOCALE_PATHS does, so that it reads them again.
    from django.conf import settings
    from django.test.signals import setting_changed

    setting_changed.send(
        sender=type(settings), setting="LOCALE_PATHS", value=settings.LOCALE_PATHS, enter=False
    )


def pytest_configure(config):
    if not hasattr(config, "workerinput"):
        compile_translations(Path(__file__).resolve().parent.parent)
    # whitenoise warns when STATIC_ROOT has not been collected; tests serve from the finders.
    config.addinivalue_line("filterwarnings", "ignore:No directory at:UserWarning")
    # The browser run disables pytest-asyncio (-p no:asyncio, docs/conventions.md §9); keep its
    # marker known there so --strict-markers still collects the async tests (and deselects them).
    config.addinivalue_line("markers", "asyncio: run the test in an event loop (pytest-asyncio)")


@pytest.fixture
def append_only_triggers(db):
    ensure_triggers()


@pytest.fixture
def live_db(transactional_db):
    """A transactional database (data committed, visible to other threads)."""
    ensure_triggers()


@pytest.fixture
def fresh_layer(settings):
    """A new channel layer for this test's event loop (same backend as configured)."""
    settings.CHANNEL_LAYERS = copy.deepcopy(settings.CHANNEL_LAYERS)
    yield
    settings.CHANNEL_LAYERS = copy.deepcopy(settings.CHANNEL_LAYERS)
