"""The event page's websocket ``/ws/events/<id>/``: a page socket of games.live.pages. Its
admission finds its user and language, the event's group (and the user's own) and the current
regions; it then relays the pushes of competitions.broadcast in its reader's language. Closes
4404 for no such event."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from django.conf import settings
from django.contrib import auth
from django.utils import translation

from accounts.models import User
from competitions import broadcast, pages
from competitions.models import Event
from games.api import PageAdmission, PageConsumer, hooks
from site_kit import metrics


def _admit(scope: dict[str, Any], event_id: int) -> PageAdmission | None:
    """The socket's admission, or None for no such event."""
    session = scope.get("session")
    user = scope.get("user")
    if user is None and session is not None:
        user = auth.get_user(SimpleNamespace(session=session))
    event = Event.objects.select_related("room").filter(pk=event_id).first()
    if event is None:
        return None
    headers = dict(scope.get("headers") or [])
    cookie = (scope.get("cookies") or {}).get(settings.LANGUAGE_COOKIE_NAME)
    member = user if isinstance(user, User) and user.is_authenticated else None
    if member is not None:
        language = hooks.socket_language(
            user=member,
            cookie=cookie,
            accept_language=headers.get(b"accept-language", b"").decode("latin-1"),
        )
    else:  # a visitor: his language cookie, else the club's (nothing is stored for him)
        try:
            language = translation.get_supported_language_variant(cookie or "")
        except LookupError:
            language = settings.LANGUAGE_CODE
    with translation.override(language):
        html = pages.render_shared(event=event)
        if member is not None:
            html += pages.render_own(event=event, user=member)
    groups = [broadcast.group(event_id)]
    if member is not None:
        groups.append(broadcast.user_group(event_id, member.pk))
    return PageAdmission(
        user_id=member.pk if member else None, language=language, groups=tuple(groups), html=html
    )


class EventConsumer(PageConsumer):
    sockets = metrics.EVENT_SOCKETS

    def admit(self, scope: dict[str, Any]) -> PageAdmission | None:
        try:
            event_id = int(scope["url_route"]["kwargs"]["event_id"])
        except (KeyError, TypeError, ValueError):
            return None
        return _admit(scope, event_id)
