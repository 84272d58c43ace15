import pytest


@pytest.fixture(autouse=True)
def _quick_bots(settings):
    """Bots here only fill seats: a short search keeps whole events within seconds."""
    settings.DDZ_BOT_THINK_SECONDS = 0.005
