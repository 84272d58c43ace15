"""Room reads. (Later issues add table and hand reads here.)"""

from __future__ import annotations

from django.db.models import QuerySet

from games.models import Room


def room_list_active() -> QuerySet[Room]:
    return Room.objects.filter(is_active=True).order_by("variant", "coefficient", "name")
