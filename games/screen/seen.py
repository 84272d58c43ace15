"""Each audience's view of a hand state, built once per state and seat (the engine's
``view_for`` for a seat, ``public_view`` for everyone else): pure, it reads no database."""

from __future__ import annotations

import weakref
from typing import Any

from games.engine.state import HandState
from games.engine.views import public_view, view_for

# The views of each hand state built so far, by seat (None: the public view), kept while the
# state lives: a push reads each view of its state a few times (whose own regions changed,
# then their contexts), and the next move's push reads them again as its state before. A view
# is a pure function of the immutable state: nobody changes one, and a process that never
# built one builds it.
_seen: dict[int, dict[int | None, dict[str, Any]]] = {}


def seen_by(state: HandState, seat: int | None) -> dict[str, Any]:
    """``view_for(state, seat)``, or ``public_view(state)`` when ``seat`` is None, built once
    per state. Read it, never change it."""
    views = _seen.get(id(state))
    if views is None:
        views = _seen[id(state)] = {}
        weakref.finalize(state, _seen.pop, id(state), None)
    view = views.get(seat)
    if view is None:
        view = views[seat] = public_view(state) if seat is None else view_for(state, seat)
    return view
