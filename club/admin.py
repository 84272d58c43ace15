"""Operator pages: fair-play signals (with the hands behind each, linked to their replays),
suspensions, seasons, and read-only views of chat, connections, hand outcomes, ratings and
season records. Staff only."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import User
from club.forms import SeasonForm, SuspendForm
from club.models import (
    ChatMessage,
    ConnectionRecord,
    FairPlaySignals,
    HandOutcome,
    Rating,
    Season,
    SeasonReset,
    SeasonStanding,
    Suspension,
)
from club.selectors.fair_play import fair_play_signals
from club.services.seasons import season_save
from club.services.suspensions import user_suspend, user_unsuspend
from site_kit.admin_views import ReadOnlyAdmin


@admin.register(FairPlaySignals)
class FairPlaySignalsAdmin(ReadOnlyAdmin):
    def has_module_permission(self, request: HttpRequest) -> bool:
        return request.user.is_active and request.user.is_staff

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.user.is_active and request.user.is_staff

    def get_urls(self) -> list[Any]:
        return [
            path(
                "suspend/<int:user_id>/",
                self.admin_site.admin_view(self.suspend_view),
                name="club_fairplay_suspend",
            ),
            *super().get_urls(),
        ]

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionError
        context = {
            **self.admin_site.each_context(request),
            "title": _("Fair-play signals"),
            "signals": fair_play_signals(),
            "suspended": set(Suspension.objects.values_list("user_id", flat=True)),
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "club/admin/fair_play.html", context)

    def suspend_view(self, request: HttpRequest, user_id: int) -> HttpResponse:
        player = get_object_or_404(User, pk=user_id)
        form = SuspendForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            user_suspend(user=player, reason=form.cleaned_data["reason"], actor=request.user)
            messages.success(request, _("%(name)s is suspended.") % {"name": player.username})
            return redirect("admin:club_fairplaysignals_changelist")
        context = {
            **self.admin_site.each_context(request),
            "title": _("Suspend %(name)s") % {"name": player.username},
            "player": player,
            "form": form,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "club/admin/suspend.html", context)


@admin.register(Suspension)
class SuspensionAdmin(admin.ModelAdmin):
    list_display = ("user", "reason", "actor", "created_at")
    search_fields = ("user__username", "reason")
    raw_id_fields = ("user",)
    readonly_fields = ("actor", "created_at")
    actions = ["lift"]

    def save_model(self, request: HttpRequest, obj: Suspension, form: Any, change: bool) -> None:
        if not change:
            user_suspend(user=obj.user, reason=obj.reason, actor=request.user)
            return
        super().save_model(request, obj, form, change)

    @admin.action(description=gettext_lazy("Lift the selected suspensions"))
    def lift(self, request: HttpRequest, queryset: Any) -> None:
        count = 0
        for suspension in queryset.select_related("user"):
            user_unsuspend(user=suspension.user)
            count += 1
        self.message_user(request, _("Lifted %(count)d suspension(s).") % {"count": count})


@admin.register(ChatMessage)
class ChatMessageAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "table", "user", "seat", "key", "text")
    list_filter = ("key",)
    search_fields = ("user__username", "text")


@admin.register(ConnectionRecord)
class ConnectionRecordAdmin(ReadOnlyAdmin):
    list_display = ("seen_at", "table", "user", "ip", "seated")
    search_fields = ("user__username", "ip")


@admin.register(HandOutcome)
class HandOutcomeAdmin(ReadOnlyAdmin):
    list_display = ("finished_at", "hand", "user", "variant_key", "side", "won", "beans", "score")
    list_filter = ("variant_key", "side", "won")
    search_fields = ("user__username",)


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin):
    """An operator opens a season: a name and its dates. It begins (soft-resets the title
    ladder's score) when its start comes; from then on its start stays, and once over it
    stays as it was."""

    form = SeasonForm
    list_display = ("name", "starts_at", "ends_at", "begun_at")
    readonly_fields = ("begun_at",)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is not None and obj.begun_at is not None:
            return ("starts_at", "begun_at")
        return self.readonly_fields

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return obj is None or obj.begun_at is None

    def save_model(self, request: HttpRequest, obj: Season, form: Any, change: bool) -> None:
        season_save(season=obj)


@admin.register(SeasonStanding)
class SeasonStandingAdmin(ReadOnlyAdmin):
    list_display = ("season", "user", "score_start", "score", "score_peak", "peak_title", "hands")
    list_filter = ("season",)
    search_fields = ("user__username",)


@admin.register(SeasonReset)
class SeasonResetAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "season", "user", "score_before", "score_after")
    list_filter = ("season",)
    search_fields = ("user__username",)


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin):
    list_display = ("variant_key", "user", "baseline", "ordinal", "mu", "sigma", "hands")
    list_filter = ("variant_key",)
    search_fields = ("user__username",)
