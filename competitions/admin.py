"""Operators' event tools: one-off events and recurring schedules (variant through the room,
format, length or rounds, boards, entrants, fee, prize bands), entrants (withdraw one), cancel
(every fee refunded) and the results. Writes go through competitions.services."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from competitions import runner, services
from competitions.errors import EventRefused
from competitions.models import Entry, Event, Format, Schedule, Settlement
from site_kit.admin_views import ReadOnlyAdmin

# The event form's fieldsets: what both formats use, then each format's own fields, shown only
# while the format select holds that format (static/ddz_admin/when.js).
_SHARED = (
    "name",
    "room",
    "format",
    "min_entrants",
    "max_entrants",
    "entry_fee",
    "prize_bands",
    "allow_bots",
    "bot_wait_seconds",
)
_BY_FORMAT = (
    (Format.ARENA, ("minutes", "stop_pairing_seconds", "gather_seconds")),
    (Format.DUPLICATE, ("rounds", "boards_per_round", "break_seconds")),
)
_SETTINGS = (*_SHARED, *(name for _format, names in _BY_FORMAT for name in names))


def _fieldsets(first: tuple[str, ...], last: tuple[str, ...] = ()) -> tuple[Any, ...]:
    return (
        (None, {"fields": (*first, *_SHARED)}),
        *(
            (fmt.label, {"fields": names, "classes": [f"when-format-{fmt.value}"]})
            for fmt, names in _BY_FORMAT
        ),
        *(((None, {"fields": last}),) if last else ()),
    )


class EventSettingsForm(forms.ModelForm):
    """An event's or a schedule's settings. A new one starts as an arena; the minimum of
    entrants may be left empty for the fewest the room and format allow, so the defaults make
    a valid event of either format. The fields of the other format keep their values and are
    not shown (the model's clean still checks everything)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "min_entrants" in self.fields:
            field = self.fields["min_entrants"]
            field.required = False
            field.help_text = _(
                "Empty: the fewest this room and format allow. Fewer at the start: the event "
                "is cancelled and every fee refunded."
            )
            if self.instance.pk is None:
                field.initial = None
                self.fields["format"].initial = Format.ARENA

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if "min_entrants" in self.fields and data.get("min_entrants") is None:
            probe = self.instance
            probe.room = data.get("room")
            probe.format = data.get("format") or ""
            probe.allow_bots = bool(data.get("allow_bots"))
            fewest = probe.fewest_entrants() if probe.room is not None else None
            if fewest is None:
                self.add_error("min_entrants", _("Choose a room first."))
            else:
                data["min_entrants"] = fewest
        return data


class EventForm(EventSettingsForm):
    """Refuses a start that has passed, in the club's time zone's words: an operator whose
    browser runs on another zone otherwise makes an event that is cancelled at once."""

    def clean_starts_at(self) -> Any:
        starts = self.cleaned_data["starts_at"]
        now = timezone.now()
        if "starts_at" in self.changed_data and starts is not None and starts <= now:
            shown = "%Y-%m-%d %H:%M"
            raise forms.ValidationError(
                _(
                    "This start (%(start)s) has passed: it is %(now)s now in the club's time "
                    "zone, %(zone)s. Times on this form are the club's."
                )
                % {
                    "start": timezone.localtime(starts).strftime(shown),
                    "now": timezone.localtime(now).strftime(shown),
                    "zone": settings.TIME_ZONE,
                }
            )
        return starts


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
    form = EventForm
    fieldsets = _fieldsets(("starts_at",), ("status", "round", "cancel_reason"))
    inlines = [EntryInline]
    actions = ["start_events", "end_events", "cancel_events"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        done = ("status", "round", "cancel_reason")
        if obj is not None and obj.status != Event.Status.SCHEDULED:
            return ("starts_at", *_SETTINGS, *done)  # a started event keeps its rules
        return done

    class Media:
        js = ["ddz_admin/when.js"]

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
class EntryAdmin(ReadOnlyAdmin):
    list_display = ("user", "event", "active", "paused", "points", "played", "rank", "prize")
    list_filter = ("event", "active")
    search_fields = ("user__username",)
    actions = ["withdraw_players"]

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
    form = EventSettingsForm
    fieldsets = _fieldsets(("cadence", "weekday", "time_of_day", "open_hours", "is_active"))

    class Media:
        js = ["ddz_admin/when.js"]


@admin.register(Settlement)
class SettlementAdmin(ReadOnlyAdmin):
    list_display = ("event", "fees", "house", "refunded", "created_at")
    readonly_fields = ("event", "fees", "house", "refunded", "prizes", "created_at")
