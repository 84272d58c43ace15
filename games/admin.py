from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import lazy
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games import services
from games.engine.variants import VARIANTS
from games.models import VARIANT_LABELS, Hand, Room, Seat, ServerProcess, Table
from games.table.errors import ActionRejected
from games.table.options import OPTION_HELP, option_label, value_label
from site_kit.admin_views import ReadOnlyAdmin


# --------------------------------------------------------------------------- rooms
def _option_field(variant: str, name: str) -> str:
    return f"option__{variant}__{name}"


def _host_field(variant: str, name: str) -> str:
    return f"host__{variant}__{name}"


class RoomAdminForm(forms.ModelForm):
    """The rule options and the host-settable options as a form: one choice per option the
    room's variant knows (empty: the variant's default) and whether a private table's host
    may change it, with the option's help text. Each variant's options are listed; those of
    the variant chosen are saved (as the JSON fields the room keeps)."""

    class Meta:
        model = Room
        exclude = ["options", "host_options"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        room = self.instance
        for variant, cls in VARIANTS.items():
            for name in cls.option_choices:
                field = self.fields[_option_field(variant, name)]
                if room.variant == variant and name in (room.options or {}):
                    field.initial = json.dumps(room.options[name])
                self.fields[_host_field(variant, name)].initial = room.variant == variant and (
                    name in (room.host_options or [])
                )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        variant = data.get("variant")
        if variant in VARIANTS:
            names = VARIANTS[variant].option_choices
            self.instance.options = {
                name: json.loads(data[_option_field(variant, name)])
                for name in names
                if data.get(_option_field(variant, name))
            }
            self.instance.host_options = [
                name for name in names if data.get(_host_field(variant, name))
            ]
        return data


def _default_choice(value: Any) -> str:
    return gettext("default: %(value)s") % {"value": value_label(value)}


def _host_label(name: str) -> str:
    return gettext("A private table's host may change “%(option)s”") % {
        "option": option_label(name)
    }


# The form's fields are made once, at import: their words are read in each request's language.
_lazy_default_choice = lazy(_default_choice, str)
_lazy_host_label = lazy(_host_label, str)
_lazy_option_label = lazy(option_label, str)
_lazy_value_label = lazy(value_label, str)


def _room_option_fields() -> dict[str, list[str]]:
    """variant -> the names of its option fields, and their fields added to the form."""
    out: dict[str, list[str]] = {}
    for variant, cls in VARIANTS.items():
        for name, values in cls.option_choices.items():
            default = values[0]
            choices = [("", _lazy_default_choice(default))]
            choices += [(json.dumps(v), _lazy_value_label(v)) for v in values]
            fields = {
                _option_field(variant, name): forms.ChoiceField(
                    label=_lazy_option_label(name),
                    choices=choices,
                    required=False,
                    help_text=OPTION_HELP.get(name, ""),
                ),
                _host_field(variant, name): forms.BooleanField(
                    label=_lazy_host_label(name),
                    required=False,
                ),
            }
            # declared: the admin builds its form class from the fieldsets' names
            RoomAdminForm.declared_fields.update(fields)
            RoomAdminForm.base_fields.update(fields)
            out.setdefault(variant, []).extend(
                [_option_field(variant, name), _host_field(variant, name)]
            )
    return out


ROOM_OPTION_FIELDS = _room_option_fields()


@admin.register(Room)
class RoomAdmin(admin.ModelAdmin):
    form = RoomAdminForm
    list_display = [
        "name",
        "variant",
        "base_score",
        "coefficient",
        "house_take",
        "rake_percent",
        "max_multiplier",
        "min_balance_shown",
        "bot_level",
        "is_active",
    ]
    list_filter = ["variant", "bot_level", "is_active"]
    list_editable = ["is_active"]
    search_fields = ["name"]
    readonly_fields = ["created_at", "min_balance_shown"]

    class Media:
        js = ["ddz_admin/when.js"]

    def get_fieldsets(self, request: HttpRequest, obj: Room | None = None) -> Any:
        options = [
            (
                _("Rule options: %(variant)s") % {"variant": VARIANT_LABELS.get(v, v)},
                {
                    "fields": fields,
                    "description": _("Used when the room's variant is this one."),
                    # shown only while the variant select holds v (static/ddz_admin/when.js)
                    "classes": [f"when-variant-{v}"],
                },
            )
            for v, fields in ROOM_OPTION_FIELDS.items()
        ]
        return (
            (None, {"fields": ("name", "variant", "is_active")}),
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
            (
                _("Timers"),
                {"fields": ("bid_seconds", "turn_seconds", "step_min_seconds", "bot_delay_ms")},
            ),
            (
                _("Seating"),
                {"fields": ("regroup_between_hands", "bots_take_absent_seats", "bot_level")},
            ),
            (_("Private tables"), {"fields": ("private_tables", "private_coefficient_max")}),
            *options,
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


# --------------------------------------------------------------------------- tables and hands
class SeatInline(admin.TabularInline):
    model = Seat
    fields = ["index", "user", "is_bot", "connections", "disconnected_at", "autoplay"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ["index"]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Table)
class TableAdmin(ReadOnlyAdmin):
    list_display = ["id", "room", "status", "is_private", "players", "active_hand", "changed_at"]
    list_filter = ["status", "room", "is_private"]
    search_fields = ["=id", "seats__user__username"]
    list_select_related = ["room"]
    inlines = [SeatInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Table]:
        return super().get_queryset(request).prefetch_related("seats__user")

    @admin.display(description=_("players"))
    def players(self, obj: Table) -> str:
        names = [
            s.user.username if s.user is not None else gettext("bot") if s.is_bot else "—"
            for s in sorted(obj.seats.all(), key=lambda s: s.index)
        ]
        return " · ".join(names)

    @admin.display(description=_("hand in play"))
    def active_hand(self, obj: Table) -> str:
        hand = obj.hands.filter(status=Hand.Status.ACTIVE).first()
        if hand is None:
            return "—"
        url = reverse("admin:games_hand_change", args=[hand.pk])
        return format_html('<a href="{}">{}</a>', url, hand.number)


@admin.register(Seat)
class SeatAdmin(ReadOnlyAdmin):
    """Every seat, with the action that frees one the way the player leaving would: between
    hands at once, during a hand after it (the seat is auto-played until then)."""

    list_display = [
        "table",
        "index",
        "user",
        "is_bot",
        "connections",
        "disconnected_at",
        "autoplay",
        "sit_out_after_hand",
    ]
    list_filter = ["is_bot", "autoplay", "table__status"]
    search_fields = ["user__username", "=table__id"]
    list_select_related = ["table__room", "user"]
    actions = ["free_seats"]

    @admin.action(description=_("Free the selected seats"))
    def free_seats(self, request: HttpRequest, queryset: QuerySet[Seat]) -> None:
        freed = 0
        for seat in queryset.select_related("user"):
            try:
                if seat.user is not None:
                    services.table_leave(table_id=seat.table_id, user=seat.user)
                elif seat.is_bot:
                    services.table_remove_bot(table_id=seat.table_id, seat_index=seat.index)
                else:
                    continue
            except ActionRejected as error:
                self.message_user(
                    request,
                    _("Table %(t)s, seat %(n)s: %(why)s")
                    % {"t": seat.table_id, "n": seat.index + 1, "why": error.message},
                    messages.WARNING,
                )
                continue
            freed += 1
        self.message_user(request, _("Freed %(n)d seat(s).") % {"n": freed})


@admin.register(Hand)
class HandAdmin(ReadOnlyAdmin):
    """A hand as an operator may see it: never its seed or its cards while it is played (the
    commitment is public; the record and the seed are, once it is over, on the hand's page)."""

    list_display = [
        "id",
        "table",
        "number",
        "variant_key",
        "status",
        "version",
        "deadline_at",
        "overdue",
        "settled",
        "created_at",
    ]
    list_filter = ["status", "settled", "variant_key"]
    search_fields = ["=id", "=table__id", "players__user__username"]
    list_select_related = ["table"]
    fields = [
        "table",
        "number",
        "variant_key",
        "status",
        "version",
        "decision_started_at",
        "deadline_at",
        "overdue",
        "settled",
        "commitment",
        "players",
        "record_link",
        "created_at",
        "finished_at",
    ]
    readonly_fields = fields

    @admin.display(description=_("deadline passed"), boolean=True)
    def overdue(self, obj: Hand) -> bool:
        return obj.deadline_at is not None and obj.deadline_at < timezone.now()

    @admin.display(description=_("players"))
    def players(self, obj: Hand) -> str:
        rows = obj.players.select_related("user").order_by("seat")
        return format_html_join(
            ", ",
            "{}: {}",
            ((r.seat + 1, r.user.username if r.user is not None else gettext("bot")) for r in rows),
        )

    @admin.display(description=_("record"))
    def record_link(self, obj: Hand) -> str:
        if not obj.is_finished:
            return gettext("public once the hand is over")
        return format_html(
            '<a href="{}">{}</a>', reverse("hand_detail", args=[obj.pk]), gettext("Replay")
        )


@admin.register(ServerProcess)
class ServerProcessAdmin(ReadOnlyAdmin):
    """The served processes' heartbeats; the live view (ddz_site/operators.py) reads them."""

    list_display = ("host", "pid", "started_at", "seen_at", "sockets", "runner_lag_seconds")
    ordering = ("-seen_at",)
