"""The bean ledger: append-only for real, grants, adjustments, relief."""

from __future__ import annotations

import datetime

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction

from accounts import selectors, services
from accounts.models import BeanEntry, LedgerIsAppendOnly, User

pytestmark = pytest.mark.django_db


class TestAppendOnly:
    def test_orm_save_of_an_existing_entry_is_refused(self, make_user):
        user = make_user(beans=100)
        entry = BeanEntry.objects.get(user=user)
        entry.delta = 1_000_000
        with pytest.raises(LedgerIsAppendOnly):
            entry.save()
        assert BeanEntry.objects.get(pk=entry.pk).delta == 100

    def test_orm_delete_is_refused(self, make_user):
        user = make_user(beans=100)
        entry = BeanEntry.objects.get(user=user)
        with pytest.raises(LedgerIsAppendOnly):
            entry.delete()
        with pytest.raises(LedgerIsAppendOnly):
            BeanEntry.objects.filter(user=user).delete()
        with pytest.raises(LedgerIsAppendOnly):
            BeanEntry.objects.filter(user=user).update(delta=5)
        assert BeanEntry.objects.filter(user=user).count() == 1

    def test_raw_sql_update_is_refused_by_the_database(self, make_user):
        user = make_user(beans=100)
        entry = BeanEntry.objects.get(user=user)
        with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("UPDATE accounts_beanentry SET delta = 5 WHERE id = %s", [entry.pk])
        assert BeanEntry.objects.get(pk=entry.pk).delta == 100

    def test_raw_sql_delete_is_refused_by_the_database(self, make_user):
        user = make_user(beans=100)
        entry = BeanEntry.objects.get(user=user)
        with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("DELETE FROM accounts_beanentry WHERE id = %s", [entry.pk])
        assert BeanEntry.objects.filter(pk=entry.pk).exists()

    def test_negative_balance_after_is_refused_by_the_database(self, make_user):
        user = make_user()
        with pytest.raises(IntegrityError), transaction.atomic():
            BeanEntry.objects.create(
                user=user, delta=-1, balance_after=-1, reason=BeanEntry.Reason.RAKE
            )

    def test_negative_cached_balance_is_refused_by_the_database(self, make_user):
        user = make_user()
        with pytest.raises(IntegrityError), transaction.atomic():
            User.objects.filter(pk=user.pk).update(beans=-1)


class TestGrantAndAdjust:
    def test_grant_moves_balance_and_writes_entry(self, make_user):
        user = make_user()
        entry = services.beans_grant(user=user, amount=500)
        user.refresh_from_db()
        assert user.beans == 500
        assert entry.balance_after == 500
        assert entry.reason == BeanEntry.Reason.SIGNUP_GRANT

    def test_adjust_requires_a_reason(self, make_user):
        user = make_user(beans=100)
        operator = make_user(is_staff=True)
        with pytest.raises(services.BeansError):
            services.beans_adjust(user=user, delta=10, reason="  ", actor=operator)
        entry = services.beans_adjust(user=user, delta=-30, reason="refund abuse", actor=operator)
        user.refresh_from_db()
        assert user.beans == 70
        assert entry.note == "refund abuse"
        assert entry.actor == operator

    def test_adjust_cannot_take_below_zero(self, make_user):
        user = make_user(beans=10)
        operator = make_user(is_staff=True)
        with pytest.raises(services.InsufficientBeans):
            services.beans_adjust(user=user, delta=-11, reason="too much", actor=operator)
        user.refresh_from_db()
        assert user.beans == 10

    def test_bots_never_hold_beans(self, make_user):
        bot = make_user(is_bot=True)
        with pytest.raises(services.BeansError):
            services.beans_grant(user=bot, amount=10)


class TestRelief:
    def test_claim_once_a_day_below_the_floor(self, make_user, settings):
        settings.DDZ_RELIEF_FLOOR = 1000
        settings.DDZ_RELIEF_GRANT = 2000
        user = make_user(beans=10)
        day = datetime.date(2026, 11, 29)
        services.beans_claim_relief(user=user, today=day)
        user.refresh_from_db()
        assert user.beans == 2010
        # Above the floor now: refused; the next day below the floor again: allowed.
        with pytest.raises(services.ReliefNotAvailable):
            services.beans_claim_relief(user=user, today=day)
        operator = make_user(is_staff=True)
        services.beans_adjust(user=user, delta=-2010, reason="test", actor=operator)
        with pytest.raises(services.ReliefAlreadyClaimed):
            services.beans_claim_relief(user=user, today=day)
        services.beans_claim_relief(user=user, today=day + datetime.timedelta(days=1))
        user.refresh_from_db()
        assert user.beans == 2000

    def test_not_for_players_above_the_floor(self, make_user, settings):
        settings.DDZ_RELIEF_FLOOR = 1000
        user = make_user(beans=1000)
        with pytest.raises(services.ReliefNotAvailable):
            services.beans_claim_relief(user=user)


class TestSelectors:
    def test_ledger_totals_and_house_balance(self, make_user):
        user = make_user(beans=100)
        operator = make_user(is_staff=True)
        services.beans_adjust(user=user, delta=-40, reason="x", actor=operator)
        totals = selectors.ledger_totals(BeanEntry.objects.filter(user=user))
        assert totals == {"credit": 100, "debit": -40, "net": 60, "count": 2}
        assert selectors.house_balance() == 0
