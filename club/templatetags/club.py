"""``{% club_table_extras table %}`` (table page: spectators, quick chat, player settings) and
``{% club_watch_list %}`` (lobby: tables in play, each with a Watch link)."""

from __future__ import annotations

from typing import Any

from django import template
from django.conf import settings

from club.phrases import EMOTE_LABELS, EMOTES, PHRASES
from club.selectors.tables import spectator_count, tables_to_watch
from club.services.player_settings import player_settings_get

register = template.Library()


@register.inclusion_tag("club/table_extras.html", takes_context=True)
def club_table_extras(context: Any, table: Any) -> dict[str, Any]:
    request = context.get("request")
    user = getattr(request, "user", None) or context.get("user")
    return {
        "table": table,
        "user": user,
        "prefs": player_settings_get(user=user),
        "phrases": [(key, str(text)) for key, text in PHRASES.items()],
        "emotes": [(key, emote, str(EMOTE_LABELS[key])) for key, emote in EMOTES.items()],
        "free_text": settings.DDZ_CHAT_FREE_TEXT,
        "max_chars": settings.DDZ_CHAT_MAX_CHARS,
        "spectators": spectator_count(table_id=table.pk),
        "oob": False,
    }


@register.inclusion_tag("club/watch_list.html")
def club_watch_list() -> dict[str, Any]:
    return {"tables": tables_to_watch()}
