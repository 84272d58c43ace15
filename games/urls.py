from __future__ import annotations

from django.urls import path

from games.views import history, lobby, private_tables, sessions, table

urlpatterns = [
    path("", lobby.lobby, name="lobby"),
    path("rules/", lobby.rules_index, name="rules_index"),
    path("rules/<str:variant>/", lobby.rules_page, name="rules"),
    path("rooms/<int:room_id>/quick-join/", lobby.room_quick_join, name="room_quick_join"),
    path("table/<int:table_id>/", table.table_page, name="table"),
    path("table/<int:table_id>/regions/", table.table_regions, name="table_regions"),
    path("table/<int:table_id>/sit/", table.table_sit, name="table_sit"),
    path("table/<int:table_id>/leave/", table.table_leave, name="table_leave"),
    path("table/<int:table_id>/bot/", table.table_add_bot, name="table_add_bot"),
    path("table/<int:table_id>/deal/", table.table_next_hand, name="table_next_hand"),
    path(
        "rooms/<int:room_id>/private/",
        private_tables.table_create_private,
        name="table_create_private",
    ),
    path("join/<str:code>/", private_tables.table_invite, name="table_invite"),
    path("table/<int:table_id>/settings/", private_tables.table_settings, name="table_settings"),
    path(
        "table/<int:table_id>/remove-seat/",
        private_tables.table_remove_seat,
        name="table_remove_seat",
    ),
    path("table/<int:table_id>/move/", private_tables.seat_move, name="seat_move"),
    path("table/<int:table_id>/swap/", private_tables.seat_swap, name="seat_swap"),
    path(
        "table/<int:table_id>/stand-after/",
        private_tables.seat_stand_after,
        name="seat_stand_after",
    ),
    path("sessions/", sessions.session_list, name="session_list"),
    path("sessions/<int:session_id>/", sessions.session_detail, name="session_detail"),
    path("sessions/<int:session_id>/sheet.csv", sessions.session_csv, name="session_csv"),
    path("hands/", history.hand_list, name="hand_list"),
    path("hands/<int:hand_id>/", history.hand_detail, name="hand_detail"),
    path("hands/<int:hand_id>/record.json", history.hand_record_json, name="hand_record"),
    path("hands/<int:hand_id>/verify/", history.hand_verify, name="hand_verify"),
]
