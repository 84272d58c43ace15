from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from games.models import Room


@admin.register(Room)
class RoomAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "variant",
        "base_score",
        "coefficient",
        "house_take",
        "rake_percent",
        "max_multiplier",
        "min_balance_shown",
        "is_active",
    ]
    list_filter = ["variant", "is_active"]
    list_editable = ["is_active"]
    search_fields = ["name"]
    readonly_fields = ["created_at", "min_balance_shown"]
    fieldsets = (
        (None, {"fields": ("name", "variant", "is_active", "options")}),
        (
            _("Stakes"),
            {
                "fields": (
                    "base_score",
                    "coefficient",
                    "house_take",
                    "rake_percent",
                    "max_multiplier",
                    "min_balance",
                    "min_balance_shown",
                )
            },
        ),
        (_("Timers"), {"fields": ("bid_seconds", "turn_seconds", "step_min_seconds")}),
        (
            _("Private tables"),
            {"fields": ("private_tables", "host_options", "private_coefficient_max")},
        ),
        (None, {"fields": ("created_at",)}),
    )

    @admin.display(description=_("effective minimum balance"))
    def min_balance_shown(self, obj: Room) -> int | str:
        if obj.pk is None:
            return "-"
        try:
            return obj.effective_min_balance
        except ValueError:
            return "-"
