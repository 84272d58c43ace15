"""Lobby. (Later issues add the table views here.)"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from games.selectors import room_list_active


def lobby(request: HttpRequest) -> HttpResponse:
    return render(request, "games/lobby.html", {"rooms": room_list_active()})
