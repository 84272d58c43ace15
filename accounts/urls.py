from __future__ import annotations

from django.urls import path

from accounts import views

urlpatterns = [
    path("profile/", views.profile, name="profile"),
    path("profile/relief/", views.relief_claim, name="relief_claim"),
]
