"""Fixtures shared with the games tests: the append-only triggers."""

import pytest

from club.selectors.ratings import seat_ratings_clear


@pytest.fixture(autouse=True)
def _no_kept_ratings():
    """A rolled-back test's users' ids come back on SQLite: the ratings the table pushes keep
    in memory start empty in each test."""
    seat_ratings_clear()
