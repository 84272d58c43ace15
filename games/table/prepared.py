"""Reads and writes made on every move, with their SQL compiled once.

Django compiles a queryset's SQL anew each time it runs. For the few reads of every move (the
table's lock, its active hand, its seats, the hand's players) compiling costs several times
what running the SQL does: locking a table row took 0.6 ms of CPU, of which the statement
itself was 0.14 ms (bench/README.md, "Fifth round").

A ``PreparedRead`` builds its queryset once per thread and database with stand-in integers
for its parameters, keeps the compiled SQL and the compiler, and later runs that SQL with the
caller's integers. Rows come back as the queryset would give them: model instances with their
``select_related`` objects, or the tuples of ``values_list``. The SQL is the backend's own
(``FOR NO KEY UPDATE`` on PostgreSQL, nothing on SQLite), and a shape whose SQL would differ
by value (an ``IN`` list) cannot be prepared: give it a fixed shape or use the ORM.

The move's writes go the same way: a ``PreparedUpdate`` or ``PreparedInsert`` names its model's
fields once, and each call only adapts the values (``get_db_prep_save``, as the ORM does). A
queryset's ``update`` and ``bulk_create`` cost 0.5 to 0.9 ms of CPU each, nearly all of it
compiling the statement (bench/README.md, "Seventh round"). They send no signals and run no
``save``, as ``update`` and ``bulk_create`` do not either.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import EmptyResultSet, FullResultSet
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Model, QuerySet
from django.db.models.query import ModelIterable, ValuesListIterable, get_related_populators

# far from any primary key or constant of the project's queries
_STAND_IN = -7_303_000_000
_SMALLEST_KEY, _LARGEST_KEY = -(2**63), 2**63 - 1


@dataclass(frozen=True)
class _Compiled:
    sql: str
    params: tuple[Any, ...]
    slots: dict[str, tuple[int, ...]]  # parameter -> its positions in params
    compiler: Any
    models: bool  # model instances, else values_list tuples
    converters: dict[int, Any]  # the compiler's, by column: what results_iter works out per read


class PreparedRead:
    """``build(**parameters)`` -> the queryset, each parameter a key (compared with a primary
    or foreign key column: a stand-in key compared with a small column would compile to
    nothing, and is refused)."""

    def __init__(
        self, build: Callable[..., QuerySet], *parameters: str, using: str = DEFAULT_DB_ALIAS
    ) -> None:
        self.build = build
        self.parameters = parameters
        self.using = using
        self._local = threading.local()

    def _compiled(self) -> _Compiled:
        # per thread: a compiler belongs to its thread's connection
        compiled: _Compiled | None = getattr(self._local, "compiled", None)
        if compiled is not None and compiled.compiler.connection is connections[self.using]:
            return compiled
        stand_ins = {name: _STAND_IN - i for i, name in enumerate(self.parameters)}
        queryset = self.build(**stand_ins).using(self.using)
        if queryset._iterable_class not in (ModelIterable, ValuesListIterable):
            raise TypeError(f"{queryset._iterable_class.__name__} rows cannot be prepared")
        compiler = queryset.query.get_compiler(using=self.using)
        try:
            sql, params = compiler.as_sql()
        except (EmptyResultSet, FullResultSet) as error:
            raise TypeError(
                f"a {queryset.model.__name__} read compiles to no SQL with stand-in keys"
            ) from error
        slots = {
            name: tuple(i for i, value in enumerate(params) if value == stand_in)
            for name, stand_in in stand_ins.items()
        }
        if not all(slots.values()):
            raise TypeError(f"a parameter of {sql!r} does not reach its SQL as it was given")
        columns = [selected[0] for selected in compiler.select[: compiler.col_count]]
        if compiler.has_composite_fields(columns):
            raise TypeError("rows of a composite key cannot be prepared")
        compiled = _Compiled(
            sql=sql,
            params=tuple(params),
            slots=slots,
            compiler=compiler,
            models=queryset._iterable_class is ModelIterable,
            converters=compiler.get_converters(columns),
        )
        self._local.compiled = compiled
        return compiled

    def bound(self, **values: int) -> tuple[str, list[Any]] | None:
        """The SQL and its parameters for ``values`` (None: no row can match)."""
        compiled = self._compiled()
        params = list(compiled.params)
        for name, positions in compiled.slots.items():
            value = int(values[name])
            if not _SMALLEST_KEY <= value <= _LARGEST_KEY:
                return None  # no key that large: the database would refuse the value itself
            for position in positions:
                params[position] = value
        return compiled.sql, params

    def fetched(self, rows: list[tuple[Any, ...]]) -> list[Any]:
        """Rows as the queryset gives them, from what its SQL fetched: ``results_iter`` with the
        converters worked out once (they were a quarter of the CPU of a move's reads)."""
        compiled = self._compiled()
        compiler = compiled.compiler
        found: Any = rows
        if compiled.converters:
            found = compiler.apply_converters(rows, compiled.converters)
        if not compiled.models:
            return [tuple(row) for row in found]
        return list(_instances(compiler, found))

    def rows(self, **values: int) -> list[Any]:
        return read_together((self, values))[0]

    def first(self, **values: int) -> Any:
        found = self.rows(**values)
        return found[0] if found else None


def read_together(*reads: tuple[PreparedRead, dict[str, int]]) -> list[list[Any]]:
    """The rows of each read, in order. On PostgreSQL they go in one round trip (one execute of
    several statements, each seeing what committed before it ran: a read after a lock sees the
    state the lock guards); elsewhere one after the other."""
    connection = connections[reads[0][0].using]
    bound = [read.bound(**values) for read, values in reads]
    together = connection.vendor == "postgresql" and len(reads) > 1
    out: list[list[Any]] = []
    with connection.cursor() as cursor:
        if together:
            cursor.execute(
                ";\n".join(b[0] if b else "SELECT 1 WHERE false" for b in bound),
                [p for b in bound if b for p in b[1]],
            )
        for index, ((read, _values), statement) in enumerate(zip(reads, bound, strict=True)):
            if together and index:
                cursor.nextset()
            elif not together and statement is not None:
                cursor.execute(*statement)
            fetched = cursor.fetchall() if together or statement is not None else []
            out.append(read.fetched(fetched) if statement is not None else [])
    return out


def _instances(compiler: Any, rows: Any) -> Any:
    """Model instances from ``rows``, as Django's ModelIterable builds them."""
    select, klass_info = compiler.select, compiler.klass_info
    start, end = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
    names = [column[0].target.attname for column in select[start:end]]
    populators = get_related_populators(klass_info, select, compiler.using)
    model = klass_info["model"]
    for row in rows:
        instance = model.from_db(compiler.using, names, row[start:end])
        for populator in populators:
            populator.populate(row, instance)
        yield instance


class PreparedUpdate:
    """``UPDATE`` of the ``fields`` of the rows of ``model`` whose ``where`` fields equal the
    given values; ``run`` returns how many rows changed."""

    def __init__(
        self,
        model: type[Model],
        *,
        fields: tuple[str, ...],
        where: tuple[str, ...],
        using: str = DEFAULT_DB_ALIAS,
    ) -> None:
        self.model = model
        self.fields = tuple(model._meta.get_field(name) for name in fields)
        self.where = tuple(model._meta.get_field(name) for name in where)
        self.using = using
        self._sql: dict[str, str] = {}

    def _statement(self, connection: Any) -> str:
        sql = self._sql.get(connection.vendor)
        if sql is None:
            quote = connection.ops.quote_name
            assignments = ", ".join(f"{quote(f.column)} = %s" for f in self.fields)
            conditions = " AND ".join(f"{quote(f.column)} = %s" for f in self.where)
            sql = f"UPDATE {quote(self.model._meta.db_table)} SET {assignments} WHERE {conditions}"
            self._sql[connection.vendor] = sql
        return sql

    def statement(self, *, where: dict[str, Any], **values: Any) -> tuple[str, list[Any]]:
        connection = connections[self.using]
        params = [f.get_db_prep_save(values[f.name], connection) for f in self.fields]
        params += [f.get_db_prep_save(where[f.name], connection) for f in self.where]
        return self._statement(connection), params

    def run(self, *, where: dict[str, Any], **values: Any) -> int:
        with connections[self.using].cursor() as cursor:
            cursor.execute(*self.statement(where=where, **values))
            return cursor.rowcount


class PreparedInsert:
    """``INSERT`` of model instances, one statement for all of them; the rows' primary keys
    are not read back (nothing that uses it needs them)."""

    def __init__(
        self, model: type[Model], *, fields: tuple[str, ...], using: str = DEFAULT_DB_ALIAS
    ) -> None:
        self.model = model
        self.fields = tuple(model._meta.get_field(name) for name in fields)
        self.using = using
        self._sql: dict[tuple[str, int], str] = {}

    def _statement(self, connection: Any, count: int) -> str:
        sql = self._sql.get((connection.vendor, count))
        if sql is None:
            quote = connection.ops.quote_name
            columns = ", ".join(quote(f.column) for f in self.fields)
            row = "(" + ", ".join(["%s"] * len(self.fields)) + ")"
            table = quote(self.model._meta.db_table)
            sql = f"INSERT INTO {table} ({columns}) VALUES {', '.join([row] * count)}"
            self._sql[(connection.vendor, count)] = sql
        return sql

    def statement(self, instances: list[Model]) -> tuple[str, list[Any]]:
        connection = connections[self.using]
        params = [
            f.get_db_prep_save(f.pre_save(instance, True), connection)
            for instance in instances
            for f in self.fields
        ]
        return self._statement(connection, len(instances)), params

    def run(self, instances: list[Model]) -> None:
        if not instances:
            return
        with connections[self.using].cursor() as cursor:
            cursor.execute(*self.statement(instances))


def write_together(
    guarded: tuple[str, list[Any]], *others: tuple[str, list[Any]], using: str = DEFAULT_DB_ALIAS
) -> int:
    """Run ``guarded`` (an UPDATE) and then ``others``; returns how many rows ``guarded``
    changed. On PostgreSQL they are one statement (data-modifying WITH clauses) and one round
    trip; elsewhere one after the other. Either way all of them run: a caller that finds the
    guard missed rolls the transaction back."""
    connection = connections[using]
    with connection.cursor() as cursor:
        if connection.vendor != "postgresql":
            cursor.execute(*guarded)
            changed = cursor.rowcount
            for statement in others:
                cursor.execute(*statement)
            return changed
        parts = [f"guarded AS ({guarded[0]} RETURNING 1)"]
        parts += [f"part{i} AS ({sql})" for i, (sql, _params) in enumerate(others)]
        params = [*guarded[1], *(p for _sql, statement_params in others for p in statement_params)]
        cursor.execute(f"WITH {', '.join(parts)} SELECT count(*) FROM guarded", params)
        return cursor.fetchone()[0]
