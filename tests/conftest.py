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

import pytest

from tests.support.tables import ensure_triggers

_names = itertools.count(1)


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


def pytest_configure(config):
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
