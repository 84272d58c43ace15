"""Demo data: one room per variant and a demo operator account. Safe to run again."""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import transaction

from accounts.models import BeanEntry, User
from accounts.services import beans_grant
from games.models import Room
from games.services import room_create

DEMO_ROOMS: list[dict[str, Any]] = [
    {
        "name": "五人斗地主 · 欢乐场",
        "variant": "qq5",
        "base_score": 1,
        "coefficient": 50,
        "house_take": 10,
    },
    {"name": "新五人斗地主 · 三副牌", "variant": "new5", "coefficient": 10},
    {"name": "经典斗地主 · 十倍场", "variant": "classic3", "coefficient": 10, "rake_percent": 10},
    {"name": "汾州五人斗地主", "variant": "fenzhou5", "coefficient": 10},
]


class Command(BaseCommand):
    help = "Create the demo rooms (one per variant) and a demo admin; prints the credentials."

    @transaction.atomic
    def handle(self, *args: Any, **options: Any) -> None:
        for fields in DEMO_ROOMS:
            if Room.objects.filter(name=fields["name"]).exists():
                continue
            room_create(**fields)
            self.stdout.write(f"room created: {fields['name']} ({fields['variant']})")
        username = os.environ.get("DDZ_DEMO_ADMIN", "demo-admin")
        password = os.environ.get("DDZ_DEMO_PASSWORD", "ddz-demo-pass")
        admin, created = User.objects.get_or_create(
            username=username, defaults={"is_staff": True, "is_superuser": True}
        )
        if created:
            admin.set_password(password)
            admin.save()
        if not BeanEntry.objects.filter(user=admin).exists() and settings.DDZ_SIGNUP_GRANT > 0:
            beans_grant(user=admin, amount=settings.DDZ_SIGNUP_GRANT)
        self.stdout.write(
            self.style.SUCCESS(
                f"demo admin: username {username!r}, password {password!r}"
                + ("" if created else " (existing account: password unchanged)")
                + " -> http://127.0.0.1:8000/admin/"
            )
        )
