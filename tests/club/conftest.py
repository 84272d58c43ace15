"""Fixtures shared with the games tests: the append-only triggers and the browser tests'
daphne server and Chromium (module-scoped: each test module gets its own server)."""

from tests.games.table_helpers import append_only_triggers  # noqa: F401
from tests.games.test_views_browser import browser, chromium, server  # noqa: F401
