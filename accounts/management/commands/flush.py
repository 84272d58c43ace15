"""``flush`` that works with the append-only tables on SQLite.

Test teardown (TransactionTestCase, live servers) empties every table with ``flush``. On
SQLite that is a DELETE, which the ledger's and the hand log's triggers refuse, so this
override lifts the triggers for the duration of the flush and puts them back afterwards. On
PostgreSQL flush is a TRUNCATE, which row triggers do not see, and nothing is changed.
"""

from __future__ import annotations

from typing import Any

from django.core.management.commands.flush import Command as FlushCommand
from django.db import connections

from site_kit.append_only import trigger_sql


class Command(FlushCommand):
    def handle(self, **options: Any) -> None:
        connection = connections[options["database"]]
        if connection.vendor != "sqlite":
            return super().handle(**options)
        guarded = trigger_sql()
        with connection.cursor() as cursor:
            for _table, sql in guarded:
                for statement in sql.SQLITE_DROP:
                    cursor.execute(statement)
        try:
            return super().handle(**options)
        finally:
            present = set(connection.introspection.table_names())
            with connection.cursor() as cursor:
                for table, sql in guarded:
                    if table in present:
                        for statement in sql.SQLITE_CREATE:
                            cursor.execute(statement)
