"""``manage.py audit_beans``: silent on a clean history, and finds each kind of corruption.

The corruptions need writes the ledger refuses (UPDATE/DELETE of entries): ``ledger_unlocked``
lifts the append-only trigger inside the test's own transaction only (SQLite: drop and
re-create, PostgreSQL: disable and re-enable), the way ``flush`` does for teardown.
"""

from __future__ import annotations

from contextlib import contextmanager
from fractions import Fraction
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from accounts.audit import audit_beans
from accounts.models import BeanEntry, HandSettlement, User
from accounts.services import beans_settle_hand
from games.engine.beans import RoomStakes
from games.models import Hand
from site_kit.append_only import trigger_sql
from tests.support.tables import (
    make_player,
    make_room,
    play_to_end,
    seated_table,
)

# the ledger's table and its SQLite trigger statements
TABLE, LEDGER_SQL = trigger_sql()[0]
SQLITE_CREATE, SQLITE_DROP = LEDGER_SQL.SQLITE_CREATE, LEDGER_SQL.SQLITE_DROP

pytestmark = pytest.mark.usefixtures("append_only_triggers")

STAKES = RoomStakes(base_score=10, coefficient=1, house_take=5, rake_percent=10)


@contextmanager
def ledger_unlocked():
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            for statement in SQLITE_DROP:
                cursor.execute(statement)
        else:
            # deferred foreign-key checks pending in this transaction block ALTER TABLE
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute(f"ALTER TABLE {TABLE} DISABLE TRIGGER beanentry_append_only")
    try:
        yield connection.cursor()
    finally:
        with connection.cursor() as cursor:
            if connection.vendor == "sqlite":
                for statement in SQLITE_CREATE:
                    cursor.execute(statement)
            else:
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
                cursor.execute(f"ALTER TABLE {TABLE} ENABLE TRIGGER beanentry_append_only")


def run_audit() -> tuple[int, str]:
    out = StringIO()
    try:
        call_command("audit_beans", stdout=out)
    except CommandError as error:
        return error.returncode, out.getvalue() + str(error)
    return 0, out.getvalue()


def kinds() -> set[str]:
    return {f.kind for f in audit_beans().findings}


@pytest.fixture
def history(db):
    """Three players, two settled hands through the ledger, one with a bot seat."""
    a, b, c = (make_player(beans=1000) for _ in range(3))
    beans_settle_hand(
        hand_ref="h1",
        units=[Fraction(2), Fraction(-1), Fraction(-1)],
        stakes=STAKES,
        seats=[a, b, c],
        tie_order=[0, 1, 2],
    )
    beans_settle_hand(
        hand_ref="h2",
        units=[Fraction(-2), Fraction(1), Fraction(1)],
        stakes=STAKES,
        seats=[a, None, c],
        tie_order=[0, 1, 2],
    )
    return a, b, c


def test_clean_history_is_silent(history):
    status, out = run_audit()
    assert status == 0, out
    assert out.startswith("audit_beans: clean (")
    assert "2 settled hands" in out


def test_clean_after_whole_hands_at_a_table(db):
    room = make_room("qq5", house_take=3, rake_percent=5)
    table = seated_table(room, [make_player(), make_player()])
    from games import services

    for _ in range(2):
        services.hand_start(table_id=table.pk)
        play_to_end(table)
    assert HandSettlement.objects.count() >= 2
    assert Hand.objects.filter(status="finished").count() >= 2
    status, out = run_audit()
    assert status == 0, out


def test_cached_balance_off(history):
    a, _, _ = history
    a.refresh_from_db()
    User.objects.filter(pk=a.pk).update(beans=a.beans + 7)
    status, out = run_audit()
    assert status == 1
    assert f"[balance] {a.username}: cached balance" in out
    assert "difference +7" in out
    assert "finding(s)" in out


def test_balance_after_rewritten(history):
    a, _, _ = history
    entry = BeanEntry.objects.filter(user=a).order_by("id").last()
    with ledger_unlocked() as cursor:
        cursor.execute(
            f"UPDATE {TABLE} SET balance_after = balance_after + 1 WHERE id = %s", [entry.pk]
        )
    assert kinds() == {"balance_after"}
    status, out = run_audit()
    assert status == 1 and f"entry {entry.pk} records balance_after" in out


def test_balance_once_negative(history):
    _, b, _ = history
    grant = BeanEntry.objects.filter(user=b, reason="signup_grant").get()
    with ledger_unlocked() as cursor:
        cursor.execute(f"DELETE FROM {TABLE} WHERE id = %s", [grant.pk])
    found = audit_beans().findings
    negative = [f for f in found if f.kind == "negative"]
    assert len(negative) == 1 and b.username in negative[0].message
    assert "balance" in kinds()  # the cached balance no longer matches either


def test_hand_not_summing_to_zero(history):
    house_row = BeanEntry.objects.filter(hand_ref="h1", user__isnull=True).order_by("id").first()
    with ledger_unlocked() as cursor:
        cursor.execute(f"UPDATE {TABLE} SET delta = delta + 3 WHERE id = %s", [house_row.pk])
    assert {"hand_sum", "hand_house"} <= kinds()
    status, out = run_audit()
    assert status == 1 and "hand h1: players and house sum to +3, not zero" in out


def test_hand_settled_twice(history):
    # a second settlement of h2 written beside the first: every row again
    rows = list(BeanEntry.objects.filter(hand_ref="h2").order_by("id"))
    with ledger_unlocked() as cursor:
        # a partial unique index on both databases; the test's transaction brings it back
        cursor.execute("DROP INDEX IF EXISTS beanentry_once_per_hand_user_reason")
        for row in rows:
            BeanEntry.objects.create(
                user_id=row.user_id,
                delta=row.delta,
                balance_after=None if row.user_id is None else 1,
                reason=row.reason,
                hand_ref=row.hand_ref,
            )
    found = kinds()
    assert "duplicate" in found
    assert "hand_player" in found  # the players got their delta twice
    status, out = run_audit()
    assert status == 1 and "hand h2:" in out and "(settled more than once)" in out


def test_entries_without_settlement_and_settlement_removed(db):
    room = make_room("qq5")
    table = seated_table(room, [make_player(), make_player()])
    from games import services

    services.hand_start(table_id=table.pk)
    hand = play_to_end(table)
    assert run_audit()[0] == 0
    HandSettlement.objects.filter(hand_ref=str(hand.pk)).delete()
    assert {"orphan", "unsettled"} <= kinds()
    status, out = run_audit()
    assert status == 1
    assert f"hand {hand.pk}: finished with a result but never settled" in out
    assert f"hand {hand.pk}: ledger entries but no settlement record" in out


def test_bot_holding_beans(history):
    bot = User.objects.create_user(username="robot", is_bot=True)
    BeanEntry.objects.create(user=bot, delta=5, balance_after=5, reason="signup_grant")
    assert "bot" in kinds()
