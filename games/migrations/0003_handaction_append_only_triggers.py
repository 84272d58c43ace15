"""Database triggers that refuse UPDATE and DELETE on the hand action log (SQLite, PostgreSQL),
the same guard the bean ledger has (accounts migration 0002)."""

from django.db import migrations

SQLITE_CREATE = [
    """CREATE TRIGGER IF NOT EXISTS handaction_no_update BEFORE UPDATE ON games_handaction
    BEGIN SELECT RAISE(ABORT, 'hand action log is append-only: UPDATE refused'); END;""",
    """CREATE TRIGGER IF NOT EXISTS handaction_no_delete BEFORE DELETE ON games_handaction
    BEGIN SELECT RAISE(ABORT, 'hand action log is append-only: DELETE refused'); END;""",
]
SQLITE_DROP = [
    "DROP TRIGGER IF EXISTS handaction_no_update;",
    "DROP TRIGGER IF EXISTS handaction_no_delete;",
]
POSTGRESQL_CREATE = [
    """CREATE OR REPLACE FUNCTION handaction_refuse_change() RETURNS trigger AS $$
    BEGIN
        RAISE EXCEPTION 'hand action log is append-only: % refused', TG_OP;
    END;
    $$ LANGUAGE plpgsql;""",
    """CREATE TRIGGER handaction_append_only BEFORE UPDATE OR DELETE ON games_handaction
    FOR EACH ROW EXECUTE FUNCTION handaction_refuse_change();""",
]
POSTGRESQL_DROP = [
    "DROP TRIGGER IF EXISTS handaction_append_only ON games_handaction;",
    "DROP FUNCTION IF EXISTS handaction_refuse_change();",
]


def _run(statements_by_vendor):
    def run(apps, schema_editor):
        for statement in statements_by_vendor.get(schema_editor.connection.vendor, []):
            schema_editor.execute(statement, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("games", "0002_tables")]

    operations = [
        migrations.RunPython(
            _run({"sqlite": SQLITE_CREATE, "postgresql": POSTGRESQL_CREATE}),
            _run({"sqlite": SQLITE_DROP, "postgresql": POSTGRESQL_DROP}),
        )
    ]
