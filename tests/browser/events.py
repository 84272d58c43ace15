"""What the event tests in real Chromium share (test_events.py, test_event_arena.py): an
operator sets up and starts an event from the admin, four players register on the event page
and are sent to their tables by themselves; their bean histories. Two files, so that the two
long event tests run on two workers at once (``--dist loadfile``).
"""

from __future__ import annotations

import re
import time

from django.utils import timezone
from playwright.sync_api import Error as PlaywrightError

from tests.browser.pages import act, login, open_page

PLAYERS = ("ann", "ben", "cat", "dan")


def operator_page(browser, base: str):
    page = open_page(browser, base, lang="en")
    login(page, base, "boss")
    return page


def create_event(page, base: str, **fields: str) -> int:
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


def admin_action(page, base: str, event_id: int, action: str) -> None:
    page.goto(base + "/admin/competitions/event/")
    page.check(f"input[name=_selected_action][value='{event_id}']")
    page.select_option("select[name=action]", action)
    page.click("button[name=index]")
    page.wait_for_selector("ul.messagelist")


def night(browser, base: str, **fields: str):
    """The operator sets up an event, a spectator opens its page, the four register, the
    operator starts it and each player's page goes to his table by itself."""
    boss = operator_page(browser, base)
    event_id = create_event(boss, base, min_entrants="2", allow_bots="1", **fields)
    watcher = open_page(browser, base, lang="en")
    login(watcher, base, "eve")
    watcher.goto(f"{base}/events/{event_id}/")
    pages = register_players(browser, base, event_id)
    watcher.wait_for_function(
        "() => document.querySelectorAll('#event-standings tbody tr').length === 4"
    )
    return boss, event_id, watcher, pages


def start_event(boss, base: str, event_id: int, pages: list) -> None:
    admin_action(boss, base, event_id, "start_events")
    for page in pages:
        page.wait_for_url("**/table/**", timeout=60_000)


def fees_and_prizes(pages: list, base: str) -> int:
    """Every player paid a fee (his bean history says so); how many prizes the four have won
    (earlier events of this server's club included). Each history is read in a tab of his own
    browser, signed in already, beside his event or table page."""
    prizes = 0
    for page in pages:
        history = bean_history(page, base)
        assert "比赛报名费" in history  # Event entry fee: the players read Chinese
        prizes += history.count("比赛奖金")  # Event prize
    return prizes


def register_players(browser, base: str, event_id: int) -> list:
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


def play_until(pages, done, *, stall: float = 120.0) -> None:
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


# the seat's 托管 switch in its controls, off and on
AUTOPLAY_OFF = "#table-controls form:has(input[name=intent][value=autoplay]):has(input[value=true])"
AUTOPLAY_ON = "#table-controls form:has(input[name=intent][value=autoplay]):has(input[value=false])"


def hand_to_autoplay(page, *, limit: float = 120.0) -> None:
    """The page's player hands his seat to 托管, as a player who leaves the game to the server
    does: the server then plays his turns the moment they come. A push may replace the switch
    as it is tapped; then it is tapped again, until the controls show it on."""
    started = time.monotonic()
    while page.locator(AUTOPLAY_ON).count() == 0:
        if time.monotonic() - started > limit:
            raise AssertionError(f"托管 not on after {limit:.0f} s: {page.url}")
        try:
            page.locator(AUTOPLAY_OFF + " button").click(timeout=10_000)
            page.wait_for_selector(AUTOPLAY_ON, timeout=10_000)
        except PlaywrightError:
            continue  # replaced as it was tapped, or the server's answer is slow: look again


def podium(watcher) -> bool:
    return watcher.locator("#event-standings .podium").count() > 0


def bean_history(page, base: str) -> str:
    """The profile page's text, read in a new tab of ``page``'s browser (its player)."""
    tab = page.context.new_page()
    tab.goto(base + "/profile/")
    text = tab.inner_text("body")
    tab.close()
    return text


def standings(watcher) -> str:
    return watcher.inner_text("#event-standings")
