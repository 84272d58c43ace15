"""``manage.py restore_check DUMP``: prove a backup restores (README "Running it", backups).

Restores a ``pg_dump --format=custom`` file (deploy/ddz-backup.sh) into a scratch database on
the same PostgreSQL server, then runs ``audit_beans`` (the ledger, every settled hand and
event) and ``rating_recompute --check`` (the ratings are their hand history's) against it, each
as its own ``manage.py`` process with the scratch database as its DATABASE_URL. Exit status 1
when the restore or a check fails. The scratch database is dropped afterwards unless
``--keep`` (then a server can be started on it, which is how the restore is rehearsed).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psycopg
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from psycopg import sql

CHECKS = (["audit_beans"], ["rating_recompute", "--check"])


def database_url(params: dict[str, Any], name: str) -> str:
    user = quote(params.get("USER") or "", safe="")
    password = quote(params.get("PASSWORD") or "", safe="")
    auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host = params.get("HOST") or "127.0.0.1"
    port = params.get("PORT") or 5432
    return f"postgres://{auth}{host}:{port}/{name}"


def _major(version: str) -> int:
    found = re.search(r"(\d+)", version)
    return int(found.group(1)) if found else 0


class Command(BaseCommand):
    help = (
        "Restore a pg_dump (custom format) into a scratch database and check it: audit_beans "
        "and rating_recompute --check. Exit status 1 on any failure."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("dump", type=Path, help="a pg_dump --format=custom file")
        parser.add_argument(
            "--database", help="the scratch database's name (default: <site's>_restore_check)"
        )
        parser.add_argument("--keep", action="store_true", help="keep the scratch database")

    def handle(self, *args: Any, **options: Any) -> None:
        params = settings.DATABASES["default"]
        if connection.vendor != "postgresql":
            raise CommandError("restore_check needs the site on PostgreSQL")
        dump: Path = options["dump"]
        if not dump.is_file():
            raise CommandError(f"no such dump: {dump}")
        scratch = options["database"] or f"{params['NAME']}_restore_check"
        if scratch == params["NAME"]:
            raise CommandError("the scratch database must not be the site's own")
        self._versions_match()
        env = {**os.environ, "PGPASSWORD": params.get("PASSWORD") or ""}
        self._recreate(params, scratch)
        try:
            restore = subprocess.run(
                ["pg_restore", "--no-owner", "--no-privileges", "--exit-on-error",
                 "--dbname", database_url(params, scratch), str(dump)],
                env=env, capture_output=True, text=True, check=False,
            )  # fmt: skip
            if restore.returncode != 0:
                raise CommandError(f"pg_restore failed:\n{restore.stderr[-2000:]}")
            self.stdout.write(f"restore_check: {dump.name} restored into {scratch}")
            failed = [check[0] for check in CHECKS if not self._check(check, params, scratch)]
        finally:
            if not options["keep"]:
                self._drop(params, scratch)
        if failed:
            raise CommandError(f"restore_check: {', '.join(failed)} failed", returncode=1)
        self.stdout.write("restore_check: clean")

    def _versions_match(self) -> None:
        """pg_restore cannot read a dump of a newer server: say so before trying."""
        client = subprocess.run(
            ["pg_restore", "--version"], capture_output=True, text=True, check=True
        ).stdout
        with connection.cursor() as cursor:
            cursor.execute("SHOW server_version")
            server = cursor.fetchone()[0]
        if _major(client.partition("(PostgreSQL)")[2]) < _major(server):
            raise CommandError(f"pg_restore is older than the server: {client.strip()} < {server}")

    def _check(self, command: list[str], params: dict[str, Any], scratch: str) -> bool:
        done = subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=settings.BASE_DIR,
            env={**os.environ, "DATABASE_URL": database_url(params, scratch)},
            capture_output=True,
            text=True,
            check=False,
        )
        self.stdout.write(done.stdout.rstrip())
        if done.returncode != 0:
            self.stderr.write(done.stderr.rstrip()[-2000:])
        return done.returncode == 0

    def _maintenance(self, params: dict[str, Any]) -> psycopg.Connection[Any]:
        return psycopg.connect(database_url(params, "postgres"), autocommit=True)

    def _recreate(self, params: dict[str, Any], scratch: str) -> None:
        self._drop(params, scratch)
        with self._maintenance(params) as admin:
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(scratch)))

    def _drop(self, params: dict[str, Any], scratch: str) -> None:
        with self._maintenance(params) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(scratch))
            )
