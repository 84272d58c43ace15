"""Rows that may be added and never changed: the bean ledger, the hands' action logs, the
rated hands' sequence and the season resets.

The model and its queryset refuse updates and deletes here; a database trigger on each table
(see the apps' migrations) refuses them for raw SQL too.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any, ClassVar, NoReturn

from django.db import models

# Each append-only table with the migration whose SQLITE_CREATE / SQLITE_DROP statements hold
# its triggers. The migrations keep their SQL inline so their meaning never changes.
TRIGGER_MIGRATIONS: tuple[tuple[str, str], ...] = (
    ("accounts_beanentry", "accounts.migrations.0002_ledger_append_only_triggers"),
    ("games_handaction", "games.migrations.0003_handaction_append_only_triggers"),
    ("club_ratedhand", "club.migrations.0003_rating_and_season_append_only_triggers"),
    ("club_seasonreset", "club.migrations.0003_rating_and_season_append_only_triggers"),
)


def trigger_sql() -> list[tuple[str, ModuleType]]:
    """(table, migration module) of every append-only table, for SQLite's trigger statements."""
    return [(table, importlib.import_module(name)) for table, name in TRIGGER_MIGRATIONS]


class AppendOnlyError(Exception):
    """Raised on any attempt to change or remove an append-only row."""


def _refuse(model: type[models.Model], what: str) -> NoReturn:
    error: type[AppendOnlyError] = getattr(model, "append_only_error", AppendOnlyError)
    raise error(f"{model._meta.verbose_name_plural} cannot be {what}")


class AppendOnlyQuerySet(models.QuerySet):
    def update(self, **kwargs: Any) -> NoReturn:
        _refuse(self.model, "updated")

    def bulk_update(self, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse(self.model, "updated")

    def delete(self) -> NoReturn:
        _refuse(self.model, "deleted")


class AppendOnlyModel(models.Model):
    append_only_error: ClassVar[type[AppendOnlyError]] = AppendOnlyError

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            _refuse(type(self), "updated")
        kwargs["force_insert"] = True
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse(type(self), "deleted")
