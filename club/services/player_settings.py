"""A player's settings (issue #7): his preferences, the first-hand guide, his language."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils import translation

from accounts.models import User
from club.models import PlayerSettings


def player_settings_get(*, user: Any) -> PlayerSettings:
    if user is None or not getattr(user, "is_authenticated", False):
        return PlayerSettings()
    found = PlayerSettings.objects.filter(user_id=user.pk).first()
    return found or PlayerSettings(user_id=user.pk)


def player_settings_update(*, user: User, **fields: Any) -> PlayerSettings:
    prefs = player_settings_get(user=user)
    for name in ("card_size", "sound", "auto_pass", "language"):
        if name in fields:
            setattr(prefs, name, fields[name])
    prefs.full_clean(exclude=["user"])
    prefs.save()
    return prefs


def player_guide_seen(*, user: User) -> None:
    """The player closed the table's guide: it no longer opens by itself."""
    prefs = player_settings_get(user=user)
    if not prefs.guide_seen:
        prefs.guide_seen = True
        prefs.save()


def player_language_settle(*, user: User, cookie: str | None, accept_language: str) -> str:
    """The language a player's table sockets and pushes use: his stored one, else what his
    browser asks for (language cookie, then Accept-Language), which is then stored so the
    pushes rendered for his seat speak it too."""
    stored = player_settings_get(user=user)
    if stored.language in dict(settings.LANGUAGES):
        return stored.language
    wanted = [cookie] if cookie else []
    wanted += [code for code, _ in translation.trans_real.parse_accept_lang_header(accept_language)]
    for code in wanted:
        try:
            language = translation.get_supported_language_variant(code)
        except LookupError:
            continue
        stored.language = language
        stored.save()
        return language
    return settings.LANGUAGE_CODE
