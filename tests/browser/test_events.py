"""Events in real Chromium against a real daphne (the table tests' server, its own rooms): an
operator sets up and starts a duplicate event of one round of one board in classic3 from the
admin, four players register on the event page, are sent to their tables by themselves and
play with bots; a spectator's event page shows the standings change and the podium without
reloading; the fees and prizes are in each player's bean history. The arena: test_event_arena.py.
One board is enough for what a browser shows; events of several rounds and boards are
tests/competitions/test_duplicate.py's and tests/reliability/test_events_kill.py's.
"""

from __future__ import annotations

from tests.browser.events import fees_and_prizes, night, play_until, podium, standings, start_event
from tests.browser.pages import shot


def test_a_duplicate_night(browser, server):
    base = server
    boss, event_id, watcher, pages = night(
        browser,
        base,
        name="Duplicate night",
        room="room-events-classic3",
        format="duplicate",
        rounds="1",
        boards_per_round="1",
        break_seconds="0",
        entry_fee="500",
        prize_bands="1:60, 2:40",
        bot_wait_seconds="0",
    )
    prizes = fees_and_prizes(pages, base)
    shot(watcher, "event-duplicate-registered")
    watcher.goto(f"{base}/events/")
    shot(watcher, "event-list")
    watcher.goto(f"{base}/events/{event_id}/")
    before = standings(watcher)
    start_event(boss, base, event_id, pages)
    shot(pages[0], "event-duplicate-table")
    play_until(pages, lambda: standings(watcher) != before and "%" in standings(watcher))
    play_until(pages, lambda: podium(watcher))
    shot(watcher, "event-duplicate-podium")
    assert watcher.locator("#event-head .event-status[data-status='finished']").count()
    assert fees_and_prizes(pages, base) == prizes + 2
