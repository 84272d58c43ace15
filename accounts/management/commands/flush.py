"""``flush`` that works with the append-only ledger on SQLite.

Test teardown (TransactionTestCase, live servers) empties every table with ``flush``. On
SQLite that is a DELETE, which the ledger's trigger refuses, so this override lifts the
triggers for the duration of the flush and puts them back afterwards. On PostgreSQL flush is
a TRUNCATE, which row triggers do not see, and nothing is changed.
"""

from __future__ import annotations

from typing import Any

from django.core.management.commands.flush import Command as FlushCommand
from django.db import connections

from accounts.ledger_sql import SQLITE_CREATE, SQLITE_DROP, TABLE


class Command(FlushCommand):
    def handle(self, **options: Any) -> None:
        connection = connections[options["database"]]
        if connection.vendor != "sqlite":
            return super().handle(**options)
        with connection.cursor() as cursor:
            for statement in SQLITE_DROP:
                cursor.execute(statement)
        try:
            return super().handle(**options)
        finally:
            if TABLE in connection.introspection.table_names():
                with connection.cursor() as cursor:
                    for statement in SQLITE_CREATE:
                        cursor.execute(statement)
