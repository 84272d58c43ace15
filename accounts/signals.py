"""New accounts receive the sign-up grant (settings.DDZ_SIGNUP_GRANT)."""

from __future__ import annotations

from typing import Any

from allauth.account.signals import user_signed_up
from django.conf import settings
from django.dispatch import receiver

from accounts.services import beans_grant


@receiver(user_signed_up, dispatch_uid="accounts.signup_grant")
def grant_on_signup(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    if settings.DDZ_SIGNUP_GRANT > 0 and not user.is_bot:
        beans_grant(user=user, amount=settings.DDZ_SIGNUP_GRANT)
