from __future__ import annotations

from django.urls import path

from games import views

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("rules/", views.rules_index, name="rules_index"),
    path("rules/<str:variant>/", views.rules_page, name="rules"),
    path("rooms/<int:room_id>/quick-join/", views.room_quick_join, name="room_quick_join"),
    path("table/<int:table_id>/", views.table_page, name="table"),
    path("table/<int:table_id>/regions/", views.table_regions, name="table_regions"),
    path("table/<int:table_id>/sit/", views.table_sit, name="table_sit"),
    path("table/<int:table_id>/leave/", views.table_leave, name="table_leave"),
    path("table/<int:table_id>/bot/", views.table_add_bot, name="table_add_bot"),
    path("table/<int:table_id>/deal/", views.table_next_hand, name="table_next_hand"),
    path("rooms/<int:room_id>/private/", views.table_create_private, name="table_create_private"),
    path("join/<str:code>/", views.table_invite, name="table_invite"),
    path("table/<int:table_id>/settings/", views.table_settings, name="table_settings"),
    path("table/<int:table_id>/remove-seat/", views.table_remove_seat, name="table_remove_seat"),
    path("table/<int:table_id>/move/", views.seat_move, name="seat_move"),
    path("table/<int:table_id>/swap/", views.seat_swap, name="seat_swap"),
    path("table/<int:table_id>/stand-after/", views.seat_stand_after, name="seat_stand_after"),
    path("sessions/", views.session_list, name="session_list"),
    path("sessions/<int:session_id>/", views.session_detail, name="session_detail"),
    path("sessions/<int:session_id>/sheet.csv", views.session_csv, name="session_csv"),
    path("hands/", views.hand_list, name="hand_list"),
    path("hands/<int:hand_id>/", views.hand_detail, name="hand_detail"),
    path("hands/<int:hand_id>/record.json", views.hand_record_json, name="hand_record"),
    path("hands/<int:hand_id>/verify/", views.hand_verify, name="hand_verify"),
]
