"""Websocket routes; asgi.py wires this list behind the origin check and the session."""

from __future__ import annotations

from django.urls import URLPattern, path

from competitions.consumers import EventConsumer
from games.live.consumers import TableConsumer

websocket_urlpatterns: list[URLPattern] = [
    path("ws/table/<int:table_id>/", TableConsumer.as_asgi()),
    path("ws/events/<int:event_id>/", EventConsumer.as_asgi()),
]
