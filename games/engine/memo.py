"""A memo of a function's last few calls, keyed by the argument's identity; and shared
frozen values made from their fields (``interned``).

Every view of one push (a dozen audiences) reads the same hand state, and a few facts of it
cost a pass over the whole hand's plays each time: the play list as JSON, the bombs that
double. States are immutable and the states of one push share their play tuple, so the last
tuples seen and what was made of them answer all but the first reader. A push reads two
states, the one before the move and the one after (to tell whose regions changed), in turns:
one remembered call would be made again at every turn. The calls are read and replaced as one
tuple: threads at worst compute one twice.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import TypeVar

A = TypeVar("A")
R = TypeVar("R")
K = TypeVar("K", bound=tuple[object, ...])

# a push's two states, and another thread's push meanwhile
KEPT = 4


def last_by_identity(func: Callable[[A], R]) -> Callable[[A], R]:
    recent: list[tuple[tuple[object, R], ...]] = [()]

    @wraps(func)
    def memo(arg: A) -> R:
        calls = recent[0]
        for known, made in calls:
            if known is arg:
                return made
        made = func(arg)
        recent[0] = ((arg, made), *calls[: KEPT - 1])
        return made

    return memo


def interned(make: Callable[[K], R], *, limit: int) -> Callable[[K], R]:
    """``make(fields)``, made once per ``fields`` and shared: the engine's caches keep plain
    tuples, which the garbage collector does not track (games/runner/collector.py), and
    rebuild a frozen dataclass from one at every use, about 1 µs a time without this. At most
    ``limit`` kept (emptied when full: the values are few, the bound a guard)."""
    made: dict[K, R] = {}

    def shared(fields: K) -> R:
        value = made.get(fields)
        if value is None:
            if len(made) >= limit:
                made.clear()
            value = made[fields] = make(fields)
        return value

    return shared
