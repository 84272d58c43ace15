"""Table chat (issue #7): a phrase or free text, rate-limited, pushed after commit."""

from __future__ import annotations

import datetime
import unicodedata
from typing import Any

from django.conf import settings
from django.utils import timezone

from club import broadcast
from club.models import ChatMessage
from club.phrases import phrase_text
from games.api import ActionRejected, ErrorCode, Seat, Table, announce


class ChatRefused(ActionRejected):
    """A chat message the club refuses (rate limit, unknown phrase, free text off)."""

    def __init__(self, message: str, *, detail: str = "") -> None:
        super().__init__(ErrorCode.BAD_VALUE, message, detail=detail)


def _seat_index(table_id: int, user: Any) -> int | None:
    return (
        Seat.objects.filter(table_id=table_id, user_id=user.pk)
        .values_list("index", flat=True)
        .first()
    )


def _check_rate(user: Any, now: datetime.datetime) -> None:
    from django.utils.translation import gettext as _

    window = datetime.timedelta(seconds=settings.DDZ_CHAT_RATE_SECONDS)
    recent = ChatMessage.objects.filter(user_id=user.pk, created_at__gt=now - window).count()
    if recent >= settings.DDZ_CHAT_RATE_COUNT:
        raise ChatRefused(
            _("You are chatting too fast: at most %(count)d messages in %(seconds)d seconds.")
            % {"count": settings.DDZ_CHAT_RATE_COUNT, "seconds": settings.DDZ_CHAT_RATE_SECONDS},
            detail="chat rate",
        )


def _unprintable(text: str) -> bool:
    """Control characters (NUL among them, which PostgreSQL refuses in text) and lone
    surrogates (which UTF-8 cannot encode) are not chat: a bubble is one printed line."""
    return any(unicodedata.category(ch) in ("Cc", "Cs") for ch in text)


def chat_send(*, table_id: int, user: Any, key: str = "", text: str = "") -> ChatMessage:
    """Post a quick-chat phrase (or, when the operator allows it, a short free text) at a
    table and push the bubble: a player's to everyone at the table, a spectator's to the other
    spectators only. Refusals are ChatRefused with a translated message."""
    from django.utils.translation import gettext as _

    if user is None or not getattr(user, "is_authenticated", False):
        raise ActionRejected.of(ErrorCode.NOT_AUTHENTICATED)
    key = (key or "").strip()
    text = (text or "").strip()
    if key:
        if phrase_text(key) is None:
            raise ChatRefused(_("Unknown chat phrase."), detail=key[:32])
        text = ""
    elif text:
        if not settings.DDZ_CHAT_FREE_TEXT:
            raise ChatRefused(_("Free text chat is off at this club: pick a phrase."))
        limit = settings.DDZ_CHAT_MAX_CHARS
        if len(text) > limit:
            raise ChatRefused(
                _("A chat message has at most %(limit)d characters.") % {"limit": limit}
            )
        if _unprintable(text):
            raise ChatRefused(
                _("A chat message cannot hold control characters such as line breaks or tabs.")
            )
    else:
        raise ChatRefused(_("Pick a phrase to send."))
    if not Table.objects.filter(pk=table_id).exists():
        raise ActionRejected.of(ErrorCode.TABLE_NOT_FOUND)
    now = timezone.now()
    _check_rate(user, now)
    message = ChatMessage.objects.create(
        table_id=table_id,
        user_id=user.pk,
        key=key,
        text=text,
        seat=_seat_index(table_id, user),
        created_at=now,
    )
    message.user = user
    announce(broadcast.chat_bulletin(message))
    return message
