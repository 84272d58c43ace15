"""An arena in qq5 in real Chromium against a real daphne: an operator sets it up and starts it
from the admin, four players register on the event page and play at one table with a bot; a
spectator's event page shows the standings score and the podium when the operator ends it;
the fees and the prize are in the players' bean histories. The four hand their seats to 托管
once seated, so the server plays the hand: clicking a five-seat hand through four pages took
one to two minutes of a CI run. A player's turns at an event table are clicked in
test_events.py's duplicate night.

Whoever ends a hand under 托管 is paused (he left the game to the server), so that hand is the
four's only one, and it may give none of them a point: the bot, landlord alone, wins it. So
the test waits for the hand to be counted, not for a point; then each player's table page
says he is paused instead of "your next table opens by itself".
"""

from __future__ import annotations

from tests.browser.events import (
    admin_action,
    fees_and_prizes,
    hand_to_autoplay,
    night,
    start_event,
)
from tests.browser.pages import shot

# the server plays the whole hand: a few seconds on an idle machine, generous for a loaded one
COUNTED_WITHIN_MS = 180_000


def test_an_arena_of_five_seats(browser, server):
    base = server
    boss, event_id, watcher, pages = night(
        browser,
        base,
        name="Arena night",
        room="room-events-qq5",
        format="arena",
        minutes="30",
        entry_fee="300",
        prize_bands="1:100",
        gather_seconds="0",
        bot_wait_seconds="2",
    )
    prizes = fees_and_prizes(pages, base)
    start_event(boss, base, event_id, pages)
    assert len({page.url for page in pages}) == 1  # four players and a bot at one table
    for page in pages:
        hand_to_autoplay(page)

    # every entrant's line counts the hand (the Hands column), and each is paused
    watcher.wait_for_function(
        """() => [...document.querySelectorAll('#event-standings tbody tr')]
            .every(row => row.cells[3].innerText.trim() === '1')""",
        timeout=COUNTED_WITHIN_MS,
    )
    shot(watcher, "event-arena-standings")
    rows = watcher.locator("#event-standings tbody tr")
    assert rows.count() == len(pages)
    for row in rows.all():
        assert row.locator("td.score").inner_text() in ("0", "2")  # a win is 2 points
        assert "paused" in row.inner_text()
    for page in pages:
        page.wait_for_selector("#event-banner [data-next-table][data-paused]", timeout=60_000)
        assert "暂停" in page.inner_text("#event-banner")  # the players read Chinese
    admin_action(boss, base, event_id, "end_events")
    watcher.wait_for_selector("#event-standings .podium", timeout=60_000)
    shot(watcher, "event-arena-podium")
    assert fees_and_prizes(pages, base) == prizes + 1
