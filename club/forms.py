from __future__ import annotations

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from club.models import PlayerSettings


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
