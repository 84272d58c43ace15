from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path
from django.utils.functional import lazy
from django.utils.translation import gettext

from ddz_site import operators


def club_name() -> str:
    """The club's name (DDZ_CLUB_NAME), else the translated default."""
    return settings.DDZ_CLUB_NAME or gettext("Dou Dizhu Club")


# read per request, so each reader gets the default in his own language
admin.site.site_header = admin.site.site_title = lazy(club_name, str)()


def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico whatever the page's icon link says."""
    return redirect(static("favicon.svg"), permanent=True)


urlpatterns = [
    path("favicon.ico", favicon),
    path("admin/live/", admin.site.admin_view(operators.live), name="operators_live"),
    path("admin/", admin.site.urls),
    path("accounts/", include("allauth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("accounts.urls")),
    path("", include("games.urls")),
    path("", include("club.urls")),
    path("", include("competitions.urls")),
]
