"""Database triggers that refuse UPDATE and DELETE on the bean ledger (SQLite, PostgreSQL).

The SQL is inlined so this migration keeps meaning the same thing whatever the code does later;
site_kit/append_only.py reads these lists when flush has to lift the triggers on SQLite.
"""

from django.db import migrations

SQLITE_CREATE = [
    """CREATE TRIGGER IF NOT EXISTS beanentry_no_update BEFORE UPDATE ON accounts_beanentry
    BEGIN SELECT RAISE(ABORT, 'bean ledger is append-only: UPDATE refused'); END;""",
    """CREATE TRIGGER IF NOT EXISTS beanentry_no_delete BEFORE DELETE ON accounts_beanentry
    BEGIN SELECT RAISE(ABORT, 'bean ledger is append-only: DELETE refused'); END;""",
]
SQLITE_DROP = [
    "DROP TRIGGER IF EXISTS beanentry_no_update;",
    "DROP TRIGGER IF EXISTS beanentry_no_delete;",
]
POSTGRESQL_CREATE = [
    """CREATE OR REPLACE FUNCTION beanentry_refuse_change() RETURNS trigger AS $$
    BEGIN
        RAISE EXCEPTION 'bean ledger is append-only: % refused', TG_OP;
    END;
    $$ LANGUAGE plpgsql;""",
    """CREATE TRIGGER beanentry_append_only BEFORE UPDATE OR DELETE ON accounts_beanentry
    FOR EACH ROW EXECUTE FUNCTION beanentry_refuse_change();""",
]
POSTGRESQL_DROP = [
    "DROP TRIGGER IF EXISTS beanentry_append_only ON accounts_beanentry;",
    "DROP FUNCTION IF EXISTS beanentry_refuse_change();",
]


def _run(statements_by_vendor):
    def run(apps, schema_editor):
        for statement in statements_by_vendor.get(schema_editor.connection.vendor, []):
            schema_editor.execute(statement, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_initial")]

    operations = [
        migrations.RunPython(
            _run({"sqlite": SQLITE_CREATE, "postgresql": POSTGRESQL_CREATE}),
            _run({"sqlite": SQLITE_DROP, "postgresql": POSTGRESQL_DROP}),
        )
    ]
