"""A signed-in player's stored language (player settings) when his browser has no language
cookie yet, e.g. on a new device; the cookie is then set so set_language keeps working. A
language picked with the page header's switcher (Django's set_language) is stored too."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils import translation


class PreferredLanguageMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        language = ""
        user = getattr(request, "user", None)
        if (
            user is not None
            and user.is_authenticated
            and settings.LANGUAGE_COOKIE_NAME not in request.COOKIES
        ):
            from club.models import PlayerSettings

            language = (
                PlayerSettings.objects.filter(user_id=user.pk)
                .values_list("language", flat=True)
                .first()
                or ""
            )
            if language and language in dict(settings.LANGUAGES):
                translation.activate(language)
                request.LANGUAGE_CODE = language
            else:
                language = ""
        response = self.get_response(request)
        if (
            request.method == "POST"
            and user is not None
            and user.is_authenticated
            and request.path == reverse("set_language")
        ):
            picked = request.POST.get("language", "")
            if picked in dict(settings.LANGUAGES):
                from club.models import PlayerSettings

                PlayerSettings.objects.update_or_create(
                    user_id=user.pk, defaults={"language": picked}
                )
        if language:
            response.set_cookie(settings.LANGUAGE_COOKIE_NAME, language, samesite="Lax")
        return response
