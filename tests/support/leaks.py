"""What a frame or a page may show its audience: the cards (and landlord-side marks) the
audience's own view holds, and a hidden solo named only to whom his view names it (暗独打 looks
like 叫朋友 until it shows), nothing more (docs/rules.md §2.6)."""

from __future__ import annotations

import functools
import json
import re

from django.utils import translation

from games.engine.state import HIDDEN_SOLO
from games.engine.views import public_view, view_for
from games.models import Hand
from games.reads.selectors import hand_state
from games.screen.labels import PARTNER_LABELS

# a card identity in §8.1 suited notation, not part of a longer word (hex seeds, class names)
CARD = re.compile(r"(?<![A-Za-z0-9_])([3-9TJQKA2][shcd]|SJ|BJ)(?![A-Za-z0-9_])")
LORD_SEAT = re.compile(r'<section class="seat[^"]*\blord\b')
# the regions a public frame may carry for spectators only (a seat's are its own)
PRIVATE_REGIONS = (
    "table-frame",
    "table-hand",
    "table-controls",
    "table-result",
    "table-counter",
    "table-session",
)


@functools.cache
def hidden_solo_words() -> frozenset[str]:
    """The name of 暗独打 in every language of the club."""
    words = set()
    for language in ("en", "zh-hans", "zh-hant"):
        with translation.override(language):
            words.add(str(PARTNER_LABELS[HIDDEN_SOLO]))
    return frozenset(words)


def cards_in(text: str) -> set[str]:
    return set(CARD.findall(text))


def views_of(table_id: int, seats: int) -> dict[str, dict]:
    hand = Hand.objects.filter(table_id=table_id).order_by("-number").first()
    state = hand_state(hand)
    views = {f"seat{i}": view_for(state, i) for i in range(seats)}
    views["watcher"] = public_view(state)
    return views


def check_frame(label: str, html: str, view: dict) -> None:
    allowed = cards_in(json.dumps(view))
    shown = cards_in(html)
    extra = shown - allowed
    if extra:
        token = sorted(extra)[0]
        at = html.find(token)
        raise AssertionError(
            f"{label} saw {sorted(extra)} (phase {view['phase']}, view seat {view.get('seat')}): "
            f"...{html[max(0, at - 300) : at + 100]}..."
        )
    known_side = len((view.get("teams") or {}).get("landlord") or [])
    marked = len(LORD_SEAT.findall(html))
    assert marked <= known_side, f"{label}: {marked} seats marked landlord side, knows {known_side}"
    # the landlord chooses the mode himself: the offer of 暗独打 may still be among the frames of
    # the step in which he answered it (the bots' replies that made him landlord came first)
    chooser = view.get("seat") is not None and view.get("seat") == view.get("landlord")
    offered = any(c.get("value") == HIDDEN_SOLO for c in view.get("choices") or [])
    if not (view["finished"] or chooser or offered) and view.get("partner_mode") != HIDDEN_SOLO:
        named = [w for w in hidden_solo_words() if w in html]
        at = html.find(named[0]) if named else 0
        assert not named, (
            f"{label} names the hidden solo ({named}), his view says {view.get('partner_mode')}"
            f" (seat {view.get('seat')}, landlord {view.get('landlord')}, phase {view['phase']}):"
            f" ...{html[max(0, at - 400) : at + 100]}..."
        )
