"""Operators' event tools: one-off events and recurring schedules (variant through the room,
format, length or rounds, boards, entrants, fee, prize bands), entrants (withdraw one), cancel
(every fee refunded) and the results. Writes go through competitions.services."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from competitions import runner, services
from competitions.errors import EventRefused
from competitions.models import Entry, Event, Schedule, Settlement

_SETTINGS = (
    "name",
    "room",
    "format",
    "minutes",
    "stop_pairing_seconds",
    "rounds",
    "boards_per_round",
    "break_seconds",
    "min_entrants",
    "max_entrants",
    "entry_fee",
    "prize_bands",
    "allow_bots",
    "gather_seconds",
    "bot_wait_seconds",
)


class EntryInline(admin.TabularInline):
    model = Entry
    extra = 0
    can_delete = False
    fields = (
        "user",
        "active",
        "paused",
        "points",
        "played",
        "matchpoints",
        "rank",
        "prize",
        "fee_paid",
    )
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ("name", "room", "format", "starts_at", "status", "entrants")
    list_filter = ("status", "format", "room")
    fields = ("starts_at", *_SETTINGS, "status", "round", "cancel_reason")
    inlines = [EntryInline]
    actions = ["start_events", "end_events", "cancel_events"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        done = ("status", "round", "cancel_reason")
        if obj is not None and obj.status != Event.Status.SCHEDULED:
            return ("starts_at", *_SETTINGS, *done)  # a started event keeps its rules
        return done

    @admin.display(description=gettext_lazy("entrants"))
    def entrants(self, obj: Event) -> int:
        return obj.entries.filter(active=True).count()

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # cancel instead: the fees go back through the ledger

    @admin.action(description=gettext_lazy("Start the selected events now"))
    def start_events(self, request: HttpRequest, queryset: QuerySet[Event]) -> None:
        started = sum(services.event_start_now(event_id=e.pk) for e in queryset)
        self.message_user(request, _("%(n)s event(s) start now.") % {"n": started})

    @admin.action(
        description=gettext_lazy("End the selected events now (hands in play do not count)")
    )
    def end_events(self, request: HttpRequest, queryset: QuerySet[Event]) -> None:
        now = timezone.now()
        ended = sum(runner.event_end_now(event_id=e.pk, now=now) for e in queryset)
        self.message_user(request, _("%(n)s event(s) ended.") % {"n": ended})

    @admin.action(description=gettext_lazy("Cancel the selected events (refund every fee)"))
    def cancel_events(self, request: HttpRequest, queryset: QuerySet[Event]) -> None:
        for event in queryset:
            try:
                services.event_cancel(event_id=event.pk, reason=_("Cancelled by an operator."))
            except EventRefused as error:
                self.message_user(request, f"{event}: {error.message}", messages.WARNING)
            else:
                self.message_user(request, _("%(event)s: cancelled.") % {"event": event})


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin):
    list_display = ("user", "event", "active", "paused", "points", "played", "rank", "prize")
    list_filter = ("event", "active")
    search_fields = ("user__username",)
    actions = ["withdraw_players"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.action(description=gettext_lazy("Withdraw the selected players"))
    def withdraw_players(self, request: HttpRequest, queryset: QuerySet[Entry]) -> None:
        for entry in queryset.filter(active=True):
            try:
                services.event_withdraw(
                    event_id=entry.event_id, user=entry.user, actor=request.user
                )
            except EventRefused as error:
                self.message_user(request, f"{entry}: {error.message}", messages.WARNING)


@admin.register(Schedule)
class ScheduleAdmin(admin.ModelAdmin):
    list_display = ("name", "room", "format", "cadence", "weekday", "time_of_day", "is_active")
    fields = ("cadence", "weekday", "time_of_day", "open_hours", "is_active", *_SETTINGS)


@admin.register(Settlement)
class SettlementAdmin(admin.ModelAdmin):
    list_display = ("event", "fees", "house", "refunded", "created_at")
    readonly_fields = ("event", "fees", "house", "refunded", "prizes", "created_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
