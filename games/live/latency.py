"""The server-side latency of a player's action, measured inside the process: from its frame's
arrival to the last frame of its push written to a socket, whatever the clients sharing the
machine do. On only with ``DDZ_LATENCY_LOG`` (bench/load_tables.py reads the file).

The consumer stamps the action (``push.send.action_started``, which the push's frames carry
when the log is on);
each socket that writes a frame of it reports here; a thread appends each action whose last
frame is a second old as ``<arrival, epoch seconds> <milliseconds>``.
"""

from __future__ import annotations

import threading
import time

from django.conf import settings

_SETTLED_SECONDS = 1.0
_last_written: dict[float, float] = {}
_lock = threading.Lock()
_writer: threading.Thread | None = None


def frame_written(started: float) -> None:
    """A socket wrote a frame of the action that arrived at ``started`` (epoch seconds)."""
    global _writer
    now = time.time()
    with _lock:
        _last_written[started] = max(now, _last_written.get(started, 0.0))
        if _writer is None:
            _writer = threading.Thread(target=_append_forever, name="ddz-latency", daemon=True)
            _writer.start()


def _append_forever() -> None:
    while True:
        time.sleep(_SETTLED_SECONDS)
        cutoff = time.time() - _SETTLED_SECONDS
        with _lock:
            done = {s: w for s, w in _last_written.items() if w < cutoff}
            for started in done:
                del _last_written[started]
        if done:
            with open(settings.DDZ_LATENCY_LOG, "a", encoding="ascii") as log:
                log.writelines(f"{s:.6f} {(w - s) * 1000:.3f}\n" for s, w in sorted(done.items()))
