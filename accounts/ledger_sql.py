"""The database triggers that make the bean ledger append-only, per database vendor.

Migration 0002 installs them; the ``flush`` command override lifts them on SQLite for the one
statement that empties every table (test teardown), since SQLite's flush is a DELETE.
PostgreSQL's flush is a TRUNCATE, which row triggers do not see.
"""

TABLE = "accounts_beanentry"

SQLITE_CREATE = [
    f"""CREATE TRIGGER IF NOT EXISTS beanentry_no_update BEFORE UPDATE ON {TABLE}
    BEGIN SELECT RAISE(ABORT, 'bean ledger is append-only: UPDATE refused'); END;""",
    f"""CREATE TRIGGER IF NOT EXISTS beanentry_no_delete BEFORE DELETE ON {TABLE}
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
    f"""CREATE TRIGGER beanentry_append_only BEFORE UPDATE OR DELETE ON {TABLE}
    FOR EACH ROW EXECUTE FUNCTION beanentry_refuse_change();""",
]
POSTGRESQL_DROP = [
    f"DROP TRIGGER IF EXISTS beanentry_append_only ON {TABLE};",
    "DROP FUNCTION IF EXISTS beanentry_refuse_change();",
]
