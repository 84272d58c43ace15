"""Events in real Chromium against a real daphne (the table tests' server, its own rooms): an
operator sets up and starts a duplicate event of one round of two boards in classic3 and an
arena in qq5 from the admin, four players register on the event page, are sent to their tables
by themselves and play with bots; a spectator's event page shows the standings change and the
podium without reloading; the fees and prizes are in each player's bean history.
"""

from __future__ import annotations

import re
import time

from django.utils import timezone
from playwright.sync_api import Error as PlaywrightError

from tests.browser.pages import act, login, open_page, shot

PLAYERS = ("ann", "ben", "cat", "dan")


def _operator(browser, base: str):
    page = open_page(browser, base, lang="en")
    login(page, base, "boss")
    return page


def _create_event(page, base: str, **fields: str) -> int:
    """The admin's add form; returns the new event's id."""
    page.goto(base + "/admin/competitions/event/add/")
    start = timezone.localtime(timezone.now() + timezone.timedelta(hours=1))
    page.fill("#id_starts_at_0", start.strftime("%Y-%m-%d"))
    page.fill("#id_starts_at_1", start.strftime("%H:%M:%S"))
    page.select_option("#id_room", label=fields.pop("room"))
    page.select_option("#id_format", fields.pop("format"))
    if fields.pop("allow_bots", None):
        page.check("#id_allow_bots")
    for name, value in fields.items():
        page.fill(f"#id_{name}", value)
    page.click("input[name=_save]")
    page.wait_for_url(lambda url: url.rstrip("/").endswith("/admin/competitions/event"))
    link = page.locator("#result_list tbody tr a").first.get_attribute("href") or ""
    return int(re.search(r"/event/(\d+)/", link).group(1))


def _admin_action(page, base: str, event_id: int, action: str) -> None:
    page.goto(base + "/admin/competitions/event/")
    page.check(f"input[name=_selected_action][value='{event_id}']")
    page.select_option("select[name=action]", action)
    page.click("button[name=index]")
    page.wait_for_selector("ul.messagelist")


def _night(browser, base: str, **fields: str):
    """The operator sets up an event, a spectator opens its page, the four register, the
    operator starts it and each player's page goes to his table by itself."""
    boss = _operator(browser, base)
    event_id = _create_event(boss, base, min_entrants="2", allow_bots="1", **fields)
    watcher = open_page(browser, base, lang="en")
    login(watcher, base, "eve")
    watcher.goto(f"{base}/events/{event_id}/")
    pages = _register(browser, base, event_id)
    watcher.wait_for_function(
        "() => document.querySelectorAll('#event-standings tbody tr').length === 4"
    )
    return boss, event_id, watcher, pages


def _start(boss, base: str, event_id: int, pages: list) -> None:
    _admin_action(boss, base, event_id, "start_events")
    for page in pages:
        page.wait_for_url("**/table/**", timeout=60_000)


def _fees_and_prizes(browser, base: str) -> int:
    """Every player paid a fee (his bean history says so); how many prizes the four have won
    (earlier events of this server's club included)."""
    prizes = 0
    for name in PLAYERS:
        history = _history(browser, base, name)
        assert "Event entry fee" in history
        prizes += history.count("Event prize")
    return prizes


def _register(browser, base: str, event_id: int) -> list:
    pages = []
    for name in PLAYERS:
        page = open_page(browser, base)
        login(page, base, name)
        page.goto(f"{base}/events/{event_id}/")
        page.click(f"form[action='/events/{event_id}/register/'] button")
        try:
            page.wait_for_selector(f"form[action='/events/{event_id}/withdraw/']")
        except PlaywrightError as error:
            raise AssertionError(f"{name} not registered: {page.inner_text('main')}") from error
        pages.append(page)
    return pages


def _play_until(pages, done, *, stall: float = 120.0) -> None:
    """Every page acts when it is its turn (the pages move to their next table by themselves)
    until ``done()``; fails only when nothing moved for ``stall`` seconds."""
    last = time.monotonic()
    while not done():
        if time.monotonic() - last > stall:
            raise AssertionError(f"nothing moved for {stall:.0f} s: {[p.url for p in pages]}")
        acted = False
        for page in pages:
            try:
                acted = ("/table/" in page.url and act(page, by_clicking=False)) or acted
            except PlaywrightError:  # the page went on to its next table meanwhile
                acted = True
        if acted:
            last = time.monotonic()
        else:
            time.sleep(0.2)


def _podium(watcher) -> bool:
    return watcher.locator("#event-standings .podium").count() > 0


def _history(browser, base: str, name: str) -> str:
    page = open_page(browser, base, lang="en")
    login(page, base, name)
    page.goto(base + "/profile/")
    return page.inner_text("body")


def _standings(watcher) -> str:
    return watcher.inner_text("#event-standings")


def test_a_duplicate_night(browser, server):
    base = server
    boss, event_id, watcher, pages = _night(
        browser,
        base,
        name="Duplicate night",
        room="room-events-classic3",
        format="duplicate",
        rounds="1",
        boards_per_round="2",
        break_seconds="0",
        entry_fee="500",
        prize_bands="1:60, 2:40",
        bot_wait_seconds="0",
    )
    prizes = _fees_and_prizes(browser, base)
    shot(watcher, "event-duplicate-registered")
    watcher.goto(f"{base}/events/")
    shot(watcher, "event-list")
    watcher.goto(f"{base}/events/{event_id}/")
    before = _standings(watcher)
    _start(boss, base, event_id, pages)
    shot(pages[0], "event-duplicate-table")
    _play_until(pages, lambda: _standings(watcher) != before and "%" in _standings(watcher))
    _play_until(pages, lambda: _podium(watcher))
    shot(watcher, "event-duplicate-podium")
    assert watcher.locator("#event-head .event-status[data-status='finished']").count()
    assert _fees_and_prizes(browser, base) == prizes + 2


def test_an_arena_of_five_seats(browser, server):
    base = server
    boss, event_id, watcher, pages = _night(
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
    prizes = _fees_and_prizes(browser, base)
    _start(boss, base, event_id, pages)
    assert len({page.url for page in pages}) == 1  # four players and a bot at one table

    def scored() -> bool:
        cells = watcher.locator("#event-standings td.score").all_inner_texts()
        return any(int(text) > 0 for text in cells)

    _play_until(pages, scored)
    shot(watcher, "event-arena-standings")
    _admin_action(boss, base, event_id, "end_events")
    watcher.wait_for_selector("#event-standings .podium", timeout=60_000)
    shot(watcher, "event-arena-podium")
    assert _fees_and_prizes(browser, base) == prizes + 1
