"""``{% session_panel table user facts as panel %}``: the private-table and score-sheet facts of the
#table-session region (games.screen.session.private_context), for whichever audience renders it;
``facts``: the audience-independent part when the caller read it once for several audiences
(None: read here)."""

from __future__ import annotations

from typing import Any

from django import template

from games.reads.private import session_facts
from games.screen.session import private_context

register = template.Library()


@register.simple_tag
def session_panel(table: Any, user: Any, facts: Any = None) -> dict[str, Any]:
    if table is None or getattr(table, "pk", None) is None:
        return {}
    return private_context(table=table, user=user, facts=facts or session_facts(table=table))
