from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path

from ddz_site import operators


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
