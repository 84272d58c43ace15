"""allauth hooks: sign-up can be closed by setting DDZ_SIGNUP_OPEN=0."""

from __future__ import annotations

import os

from allauth.account.adapter import DefaultAccountAdapter
from django.http import HttpRequest


class AccountAdapter(DefaultAccountAdapter):
    def is_open_for_signup(self, request: HttpRequest) -> bool:
        return os.environ.get("DDZ_SIGNUP_OPEN", "1").strip().lower() not in {"0", "false", "no"}
