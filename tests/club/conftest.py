"""Fixtures shared with the games tests: the append-only triggers and the browser tests'
daphne server and Chromium (module-scoped: each test module gets its own server)."""

import pytest

from club.selectors import seat_ratings_clear
from tests.games.table_helpers import append_only_triggers  # noqa: F401
from tests.games.test_views_browser import browser, chromium, server  # noqa: F401


@pytest.fixture(autouse=True)
def _no_kept_ratings():
    """A rolled-back test's users' ids come back on SQLite: the ratings the table pushes keep
    in memory start empty in each test."""
    seat_ratings_clear()
