from __future__ import annotations

from django.urls import path

from games import views

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("rooms/<int:room_id>/quick-join/", views.room_quick_join, name="room_quick_join"),
    path("table/<int:table_id>/", views.table_page, name="table"),
    path("table/<int:table_id>/regions/", views.table_regions, name="table_regions"),
    path("table/<int:table_id>/sit/", views.table_sit, name="table_sit"),
    path("table/<int:table_id>/leave/", views.table_leave, name="table_leave"),
    path("table/<int:table_id>/bot/", views.table_add_bot, name="table_add_bot"),
    path("table/<int:table_id>/deal/", views.table_next_hand, name="table_next_hand"),
    path("hands/", views.hand_list, name="hand_list"),
    path("hands/<int:hand_id>/", views.hand_detail, name="hand_detail"),
    path("hands/<int:hand_id>/record.json", views.hand_record_json, name="hand_record"),
    path("hands/<int:hand_id>/verify/", views.hand_verify, name="hand_verify"),
]
