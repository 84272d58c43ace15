"""A signed-in player's pages speak his stored language (player settings), the one his table's
pushes and resyncs are rendered in: when his browser's language cookie says otherwise (a new
device, or a pick made on another one) the stored language wins and the cookie is set to it, so
a page is never half in one language and half in another. A language picked with the page
header's switcher (Django's set_language) is stored."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils import translation

from club.services.player_settings import player_settings_get, player_settings_update

LANGUAGES = dict(settings.LANGUAGES)


class PreferredLanguageMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return self.get_response(request)
        if request.method == "POST" and request.path == reverse("set_language"):
            response = self.get_response(request)
            picked = request.POST.get("language", "")
            if picked in LANGUAGES:
                player_settings_update(user=user, language=picked)
            return response
        stored = player_settings_get(user=user).language
        if stored not in LANGUAGES or request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) == stored:
            return self.get_response(request)
        translation.activate(stored)
        request.LANGUAGE_CODE = stored
        response = self.get_response(request)
        response.set_cookie(settings.LANGUAGE_COOKIE_NAME, stored, samesite="Lax")
        return response
