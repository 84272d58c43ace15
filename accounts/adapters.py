"""allauth hooks: sign-up can be closed by setting DDZ_SIGNUP_OPEN=0, and a new account gets
its sign-up grant when the form saves it (a service call here, not a signal receiver:
nothing writes from signals, docs/conventions.md §3)."""

from __future__ import annotations

import os
from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from django.db import transaction
from django.http import HttpRequest

from accounts.models import User
from accounts.services import user_signed_up


class AccountAdapter(DefaultAccountAdapter):
    def is_open_for_signup(self, request: HttpRequest) -> bool:
        return os.environ.get("DDZ_SIGNUP_OPEN", "1").strip().lower() not in {"0", "false", "no"}

    def save_user(self, request: HttpRequest, user: User, form: Any, commit: bool = True) -> User:
        if not commit:  # the caller saves later; the grant needs the saved row
            return super().save_user(request, user, form, commit=False)
        with transaction.atomic():  # an account and its grant, or neither
            saved = super().save_user(request, user, form, commit=True)
            user_signed_up(user=saved)
        return saved
