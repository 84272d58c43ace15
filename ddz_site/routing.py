"""Websocket routes. Empty until the real-time tables arrive; asgi.py wires this list."""

from __future__ import annotations

from django.urls import URLPattern

websocket_urlpatterns: list[URLPattern] = []
