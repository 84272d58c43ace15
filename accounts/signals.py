"""New accounts receive the sign-up grant (settings.DDZ_SIGNUP_GRANT); the cached title ladder
is dropped whenever a Title changes."""

from __future__ import annotations

from typing import Any

from allauth.account.signals import user_signed_up
from django.conf import settings
from django.db.models.signals import post_delete, post_migrate, post_save
from django.dispatch import receiver

from accounts.models import Title
from accounts.selectors import title_ladder_clear
from accounts.services import beans_grant

post_save.connect(title_ladder_clear, sender=Title, dispatch_uid="accounts.title_ladder_save")
post_delete.connect(title_ladder_clear, sender=Title, dispatch_uid="accounts.title_ladder_delete")
# a flush (transactional tests) or migration may empty or reseed the table
post_migrate.connect(title_ladder_clear, dispatch_uid="accounts.title_ladder_migrate")


@receiver(user_signed_up, dispatch_uid="accounts.signup_grant")
def grant_on_signup(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    if settings.DDZ_SIGNUP_GRANT > 0 and not user.is_bot:
        beans_grant(user=user, amount=settings.DDZ_SIGNUP_GRANT)
