from __future__ import annotations

from django.urls import path

from club import views

urlpatterns = [
    path("leaderboard/", views.leaderboard, name="leaderboard"),
    path("players/<str:username>/", views.player_profile, name="player_profile"),
    path("settings/", views.player_settings, name="player_settings"),
    path("settings/guide-seen/", views.player_guide_seen, name="player_guide_seen"),
]
