from __future__ import annotations

from django.urls import path

from competitions import views

urlpatterns = [
    path("events/", views.event_list, name="event_list"),
    path("events/<int:event_id>/", views.event_detail, name="event_detail"),
    path("events/<int:event_id>/register/", views.event_register, name="event_register"),
    path("events/<int:event_id>/withdraw/", views.event_withdraw, name="event_withdraw"),
    path("events/<int:event_id>/pause/", views.event_pause, name="event_pause"),
]
