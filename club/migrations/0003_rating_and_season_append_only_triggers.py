"""Database triggers that refuse UPDATE and DELETE on the rated hands' sequence and on the
season resets' record (SQLite, PostgreSQL), the guard the bean ledger has (accounts 0002)."""

from django.db import migrations

TABLES = (
    ("club_ratedhand", "ratedhand", "rated hand sequence"),
    ("club_seasonreset", "seasonreset", "season reset record"),
)

SQLITE_CREATE = [
    statement
    for table, name, what in TABLES
    for statement in (
        f"""CREATE TRIGGER IF NOT EXISTS {name}_no_update BEFORE UPDATE ON {table}
        BEGIN SELECT RAISE(ABORT, '{what} is append-only: UPDATE refused'); END;""",
        f"""CREATE TRIGGER IF NOT EXISTS {name}_no_delete BEFORE DELETE ON {table}
        BEGIN SELECT RAISE(ABORT, '{what} is append-only: DELETE refused'); END;""",
    )
]
SQLITE_DROP = [
    f"DROP TRIGGER IF EXISTS {name}_no_{op};" for _t, name, _w in TABLES for op in ("update", "delete")
]
POSTGRESQL_CREATE = [
    statement
    for table, name, what in TABLES
    for statement in (
        f"""CREATE OR REPLACE FUNCTION {name}_refuse_change() RETURNS trigger AS $$
        BEGIN
            RAISE EXCEPTION '{what} is append-only: % refused', TG_OP;
        END;
        $$ LANGUAGE plpgsql;""",
        f"""CREATE TRIGGER {name}_append_only BEFORE UPDATE OR DELETE ON {table}
        FOR EACH ROW EXECUTE FUNCTION {name}_refuse_change();""",
    )
]
POSTGRESQL_DROP = [
    statement
    for table, name, _w in TABLES
    for statement in (
        f"DROP TRIGGER IF EXISTS {name}_append_only ON {table};",
        f"DROP FUNCTION IF EXISTS {name}_refuse_change();",
    )
]


def _run(statements_by_vendor):
    def run(apps, schema_editor):
        for statement in statements_by_vendor.get(schema_editor.connection.vendor, []):
            schema_editor.execute(statement, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("club", "0002_ratings_and_seasons")]

    operations = [
        migrations.RunPython(
            _run({"sqlite": SQLITE_CREATE, "postgresql": POSTGRESQL_CREATE}),
            _run({"sqlite": SQLITE_DROP, "postgresql": POSTGRESQL_DROP}),
        )
    ]
