"""Operator pages: players, the read-only ledger with totals, adjustments, house intake."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts import selectors, services
from accounts.models import BeanEntry, HandSettlement, Title, User
from site_kit.admin_views import ReadOnlyAdmin


class AdjustBeansForm(forms.Form):
    delta = forms.IntegerField(
        label=gettext_lazy("Change in beans"),
        help_text=gettext_lazy("Positive to credit, negative to debit."),
    )
    reason = forms.CharField(
        label=gettext_lazy("Reason"), widget=forms.Textarea(attrs={"rows": 3}), max_length=500
    )

    def clean_delta(self) -> int:
        delta = self.cleaned_data["delta"]
        if delta == 0:
            raise forms.ValidationError(_("The change cannot be zero."))
        return delta


@admin.action(description=gettext_lazy("Adjust beans (asks for a reason)"))
def adjust_beans(
    modeladmin: UserAdmin, request: HttpRequest, queryset: QuerySet[User]
) -> HttpResponse | None:
    if "apply" in request.POST:
        form = AdjustBeansForm(request.POST)
        if form.is_valid():
            done = 0
            for user in queryset.order_by("pk"):
                try:
                    services.beans_adjust(
                        user=user,
                        delta=form.cleaned_data["delta"],
                        reason=form.cleaned_data["reason"],
                        actor=request.user,
                    )
                    done += 1
                except services.BeansError as error:
                    modeladmin.message_user(request, f"{user}: {error}", messages.ERROR)
            modeladmin.message_user(
                request, _("Adjusted %(count)d player(s).") % {"count": done}, messages.SUCCESS
            )
            return None
    else:
        form = AdjustBeansForm()
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": _("Adjust beans"),
        "form": form,
        "users": queryset,
        "opts": modeladmin.model._meta,
        "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
    }
    return TemplateResponse(request, "admin/accounts/adjust_beans.html", context)


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    list_display = ["username", "beans", "score", "title", "is_bot", "is_staff", "date_joined"]
    list_filter = ["is_bot", "is_staff", "is_active"]
    readonly_fields = ["beans", "title"]
    actions = [adjust_beans]
    fieldsets = (
        *BaseUserAdmin.fieldsets,
        (gettext_lazy("Club"), {"fields": ("beans", "score", "title", "is_bot")}),
    )

    @admin.display(description=gettext_lazy("title"))
    def title(self, obj: User) -> str:
        title = selectors.title_for(obj.score)
        return title.name if title else "-"


@admin.register(BeanEntry)
class BeanEntryAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "who", "delta", "balance_after", "reason", "hand_ref", "note"]
    list_filter = [
        "reason",
        ("created_at", admin.DateFieldListFilter),
        ("user", admin.RelatedOnlyFieldListFilter),
    ]
    search_fields = ["user__username", "hand_ref", "note"]
    date_hierarchy = "created_at"
    list_select_related = ["user"]
    change_list_template = "admin/accounts/beanentry/change_list.html"

    @admin.display(description=gettext_lazy("player"))
    def who(self, obj: BeanEntry) -> str:
        return obj.user.username if obj.user else _("house")

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        response = super().changelist_view(request, extra_context)
        changelist = getattr(response, "context_data", {}).get("cl")
        if changelist is not None:
            response.context_data["totals"] = selectors.ledger_totals(changelist.queryset)
            response.context_data["house_balance"] = selectors.house_balance()
        return response

    def get_urls(self) -> list[Any]:
        custom = [
            path(
                "house/",
                self.admin_site.admin_view(self.house_view),
                name="accounts_beanentry_house",
            )
        ]
        return custom + super().get_urls()

    def house_view(self, request: HttpRequest) -> HttpResponse:
        if not self.has_view_permission(request):
            from django.core.exceptions import PermissionDenied

            raise PermissionDenied
        context = {
            **self.admin_site.each_context(request),
            "title": _("House intake"),
            "opts": self.model._meta,
            "balance": selectors.house_balance(),
            "days": selectors.house_intake_by_day(days=60),
            "reasons": BeanEntry.Reason,
        }
        return TemplateResponse(request, "admin/accounts/house_intake.html", context)


@admin.register(HandSettlement)
class HandSettlementAdmin(ReadOnlyAdmin):
    list_display = ["hand_ref", "house", "created_at"]
    search_fields = ["hand_ref"]
    readonly_fields = ["hand_ref", "house", "detail", "created_at"]


@admin.register(Title)
class TitleAdmin(admin.ModelAdmin):
    list_display = ["threshold", "name_hans", "name_hant", "name_en"]
    list_editable = ["name_hans", "name_hant", "name_en"]
    ordering = ["threshold"]
