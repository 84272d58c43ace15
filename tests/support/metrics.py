"""Reading Prometheus's text in tests (tests/test_operations.py, the reliability ones)."""

from __future__ import annotations

import re


def samples(text: str, name: str) -> dict[str, float]:
    """Every sample of the metric ``name``: its labels as written (``{kind="act"}``, or "") ->
    its value."""
    found = {}
    for line in text.splitlines():
        match = re.match(rf"^{name}(\{{[^}}]*\}})? (\S+)$", line)
        if match:
            found[match.group(1) or ""] = float(match.group(2))
    return found
