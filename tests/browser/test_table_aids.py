"""The table aids of issue #34 in real Chromium: the 记牌器 panel, 报牌 on the seat panels,
要不起 with the automatic pass after a second, and classic3's 明牌. Three players at a classic3
table whose room shows cards; every landlord bids 3 and shows. One server, one table."""

from __future__ import annotations

import time

from tests.browser.pages import act, join, login, open_page, shot

ROOM = "room-aids"
EXTRA_SETUP = f"""
room_create(name={ROOM!r}, variant="classic3", coefficient=1, bot_delay_ms=100,
            options={{"classic3_show_cards": True}})
"""


COUNTER = "() => [...document.querySelectorAll('#table-counter td')].map(td => +td.textContent)"
# each 报牌 tag on screen with the count its seat panel shows: (seat, announced, count)
REPORTS = """() => [...document.querySelectorAll('#table-seats [data-report]')].map(tag => {
    const seat = tag.closest('.seat');
    return [seat.dataset.seat, tag.dataset.report, seat.querySelector('.seat-count b').textContent];
})"""


def _record_report_sounds(page) -> None:
    """Keep the 报牌 sounds the page plays (whether the player muted them or not)."""
    page.evaluate(
        """() => { const sounds = window.ddzClubSounds, play = sounds.report;
        window.reportSounds = [];
        sounds.report = (left) => { window.reportSounds.push(left); play(left); }; }"""
    )


def _choose(page) -> bool:
    """Bid 3 and show the hand: the landlord of every hand is a player who shows."""
    for act_name, button in (("bid", "button"), ("show", "button.primary")):
        mine = f"#table-controls[data-my-turn='1'] form:has(input[value={act_name}]) {button}"
        buttons = page.locator(mine)
        if buttons.count():
            buttons.last.click()  # the highest bid; the one 明牌 button
            page.wait_for_function(
                f"() => !document.querySelector('#table-controls input[value={act_name}]')"
            )
            return True
    return False


def test_counter_reports_cant_beat_and_show_cards(browser, server) -> None:
    pages = []
    for name in ("ann", "ben", "cat"):
        page = open_page(browser, server, lang="zh-hans")
        login(page, server, name)
        join(page, server, ROOM)
        pages.append(page)
    assert len({p.url for p in pages}) == 1
    pages[0].reload()
    pages[0].click("#table-controls form[action$='/deal/'] button")
    for page in pages:
        page.wait_for_selector("#table-hand .hc")
        _record_report_sounds(page)

    # 记牌器: a button in the bar (closed until the player opens it, then as he left it), one
    # number per rank: 54 cards less his 17 and, unless he holds it, the face-up card (the
    # exact counts are tests/games/screen/test_table_aids.py's)
    ann = pages[0]
    assert ann.locator("details.counter-panel summary").inner_text() == "记牌器"
    ann.click("details.counter-panel summary")
    assert ann.locator("details.counter-panel[open] #table-counter .counter-grid").count() == 1
    counts = ann.evaluate(COUNTER)
    assert len(counts) == 15 and sum(counts) in (54 - 17, 54 - 18)
    ann.reload()  # opened, it stays open on the next visit
    ann.wait_for_selector("details.counter-panel[open] #table-counter .counter-grid")
    _record_report_sounds(ann)
    ann.click("details.counter-panel summary")  # closed, it stays closed through the pushes
    shot(ann, "aids-counter")

    shown = cant_beat = auto_passed = 0
    reports: set[tuple[str, str, str]] = set()
    for _hand in range(3):
        stall = time.monotonic()
        while time.monotonic() - stall < 90:
            if all(p.locator("#table-result .result-panel").count() for p in pages):
                break
            moved = False
            for page in pages:
                reports |= {tuple(r) for r in page.evaluate(REPORTS)}
                if _choose(page):
                    moved = True
                    continue
                controls = page.locator("#table-controls[data-cant-beat='1']")
                if controls.count():
                    # 要不起: said at once, Pass the only action, passed by itself after 1 s
                    cant_beat += 1
                    assert controls.locator("#cant-beat").inner_text() == "要不起"
                    assert controls.locator("#pass-form button").count() == 1
                    assert controls.locator("#hint-btn, #play-btn").count() == 0
                    version = controls.get_attribute("data-version")
                    page.wait_for_function(
                        "v => document.querySelector('#table-controls').dataset.version !== v",
                        arg=version,
                    )
                    # the page's pass, not a timeout's (which would put the seat under 托管)
                    auto_passed += page.locator("#table-seats .tag.auto").count() == 0
                    moved = True
                    continue
                moved = act(page, by_clicking=False) or moved
            shown = shown or ann.locator("#table-seats .seat-shown .pc").count()
            if moved:
                stall = time.monotonic()
            else:
                time.sleep(0.15)
        else:
            raise AssertionError("the hand stalled")
        assert ann.locator("details.counter-panel:not([open])").count() == 1
        if cant_beat and reports:
            break
        ann.click("#table-controls form[action$='/deal/'] button")
        for page in pages:
            page.wait_for_selector("#table-result .result-panel", state="detached")

    assert shown, "the landlord's shown hand never appeared on the panels"
    assert cant_beat and auto_passed == cant_beat
    # 报牌: every tag says what its seat's count shows, 2 or 1
    assert reports and all(left == count and left in ("1", "2") for _s, left, count in reports)
    sounded = {left for page in pages for left in page.evaluate("() => window.reportSounds")}
    assert sounded and sounded <= {"1", "2"}
    for page in pages:
        page.context.close()
