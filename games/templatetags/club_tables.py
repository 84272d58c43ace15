"""``{% club_panel table user facts as club %}``: the private-table and score-sheet facts of the
#table-club region (games.screen.club.private_context), for whichever audience renders it;
``facts``: the audience-independent part when the caller read it once for several audiences
(None: read here)."""

from __future__ import annotations

from typing import Any

from django import template

from games.reads.private import club_facts
from games.screen.club import private_context

register = template.Library()


@register.simple_tag
def club_panel(table: Any, user: Any, facts: Any = None) -> dict[str, Any]:
    if table is None or getattr(table, "pk", None) is None:
        return {}
    return private_context(table=table, user=user, facts=facts or club_facts(table=table))
