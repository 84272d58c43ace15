"""The garbage collector of a process that serves the bots (issue #36): one setting, applied
the same way by the served process (``ddz_site.asgi``), the runner's own command
(``manage.py run_deadlines``) and ``bench/bot_latency.py``, so the bench times what is served.

A full collection walks every object the collector tracks, and it lands inside whatever runs
then: a bot's decision, a request. The engine's caches keep values the collector does not
track (``games.engine.planning.CompactPlan``); what is loaded at start-up (modules, templates,
settings, the caches' own containers) lives as long as the process and is frozen out of the
oldest generation here.
"""

from __future__ import annotations

import gc

__all__ = ["FULL_COLLECTION_EVERY", "settle_collector"]

# A full collection once per this many collections of the middle generation (Python's default:
# 10). Each full pass still reads the caches' untracked entries and the search's live state:
# 40-70 ms on one loaded core, a strong decision's 80 ms then past 100. Every 100 left about
# one strong new5 decision in a hundred past 100 ms (bot_latency.py, p99 104-107 ms); every
# 1000, none of 812 (the five-seat strong decisions of 3 hands a variant). Garbage in
# reference cycles that reached the oldest generation waits that much longer for its pass:
# the 100-table load_tables.py servers grew about 40 KiB a table more (bench/README.md,
# "Fifteenth round").
FULL_COLLECTION_EVERY = 1000


def settle_collector() -> None:
    """Call once start-up is done: what is loaded by now is kept out of every collection
    (full passes paused the process for up to 131 ms at 60 tables, and for up to 57 ms once
    frozen: bench/README.md, "Seventh round"), and full passes come once per FULL_COLLECTION_EVERY
    middle ones. The garbage of start-up is collected first, not frozen with it."""
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)
