import pytest

from tests.games.table_helpers import append_only_triggers, live_db  # noqa: F401
from tests.games.test_views_browser import browser, chromium, server  # noqa: F401


@pytest.fixture(autouse=True)
def _quick_bots(settings):
    """Bots here only fill seats: a short search keeps whole events within seconds."""
    settings.DDZ_BOT_THINK_SECONDS = 0.005
