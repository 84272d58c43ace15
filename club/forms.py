from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from club.models import PlayerSettings, Season
from club.services.seasons import season_validate


class PlayerSettingsForm(forms.ModelForm):
    language = forms.ChoiceField(
        label=_("Language"),
        choices=[("", _("Browser default")), *settings.LANGUAGES],
        required=False,
    )

    class Meta:
        model = PlayerSettings
        fields = ["card_size", "sound", "auto_pass", "language"]
        widgets = {"card_size": forms.RadioSelect}


class SuspendForm(forms.Form):
    reason = forms.CharField(label=_("Reason"), widget=forms.Textarea(attrs={"rows": 3}))


class SeasonForm(forms.ModelForm):
    class Meta:
        model = Season
        fields = ["name", "starts_at", "ends_at"]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        starts_at = data.get("starts_at", self.instance.starts_at)
        ends_at = data.get("ends_at")
        if starts_at is not None and ends_at is not None:
            season_validate(season_id=self.instance.pk, starts_at=starts_at, ends_at=ends_at)
        return data
