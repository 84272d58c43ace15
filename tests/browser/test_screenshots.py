"""One hand of each variant against bots at 1280×800 and 390×844 (new5's, the biggest hand, at
768×1024 too), its screen photographed at
the first decision, the first turn to play, a turn later and the result, into
``$BROWSER_ARTIFACTS`` (scripts/screenshots.py points it at ``screenshots/``). Run apart:
``pytest -m browser -p no:asyncio tests/browser/test_screenshots.py``. Marked ``photos``: the
suite leaves it out (tests/browser/test_table.py plays a hand of every variant, at a phone's
size too, and tests/browser/test_table_layout.py checks what a tap reaches at every size)."""

from __future__ import annotations

import time

import pytest

from tests.browser.pages import act, fill_and_deal, join, login, open_page, shot

SIZES = {"desktop": (1280, 800), "phone": (390, 844), "tablet": (768, 1024)}
PLAYERS = {"desktop": "ann", "phone": "ben", "tablet": "cat"}
LATER_TURN = 5
# every variant on a phone and a desktop; a tablet only for new5, a hand's time being precious
CASES = [
    (variant, size)
    for variant in ("qq5", "new5", "classic3", "fenzhou5")
    for size in SIZES
    if size != "tablet" or variant == "new5"
]


@pytest.mark.photos
@pytest.mark.parametrize(("variant", "size"), CASES)
def test_one_hand_photographed(browser, server, variant, size) -> None:
    width, height = SIZES[size]
    page = open_page(browser, server, width=width, height=height, lang="en")
    login(page, server, PLAYERS[size])
    join(page, server, f"room-{variant}")
    fill_and_deal(page)
    shots: list[str] = []

    def photograph(moment: str) -> None:
        page.wait_for_timeout(300)  # the turn's toast in sight
        name = f"{variant}-{size}-{len(shots) + 1}-{moment}"
        shot(page, name)
        shots.append(name)

    turns = {"decision": 0, "play": 0}
    deadline = time.time() + 240
    while not page.locator("#table-result .result-panel").count():
        assert time.time() < deadline, "the hand did not end"
        if not page.locator("#table-controls[data-my-turn='1']").count():
            page.wait_for_timeout(150)
            continue
        kind = "play" if page.locator("#play-form").count() else "decision"
        turns[kind] += 1
        if turns[kind] == 1 or (kind == "play" and turns[kind] == LATER_TURN):
            photograph(kind if kind == "decision" else f"play-turn-{turns[kind]}")
        act(page, by_clicking=False)
    photograph("result")
    assert turns["play"] >= 1 and page.locator("#table-result .result-table tbody tr").count()
    page.context.close()
