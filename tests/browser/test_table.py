"""The table screen in real Chromium against a real daphne (websockets, deadlines, bots): a
hand against bots in each variant on a desktop and a phone, three players at one table, the seat
panels a move sends, and joining between hands. Screenshots of the key screens are kept in
``$BROWSER_ARTIFACTS`` (tests/browser/pages.py)."""

from __future__ import annotations

import time

import pytest

from tests.browser.pages import (
    DEAL_BUTTON,
    FILL_BUTTON,
    act,
    fill_and_deal,
    join,
    login,
    open_page,
    play_to_the_end,
    seat_places,
    shot,
    wait_or_show,
)


class TableBrowserTests:
    def test_signup_qq5_with_bots_to_the_settlement(self, browser, server) -> None:
        page = open_page(browser, server, lang="en")
        page.goto(server + "/accounts/signup/")
        page.fill("input[name=username]", "newcomer")
        page.fill("input[name=password1]", "a-Long-pass-2026")
        page.fill("input[name=password2]", "a-Long-pass-2026")
        page.click("form [type=submit]")
        page.wait_for_url(lambda url: "/signup" not in url)
        join(page, server, "room-qq5")
        fill_and_deal(page)
        shot(page, "qq5-desktop-first-decision")
        play_to_the_end([page])
        shot(page, "qq5-desktop-settlement")
        # the player's own outcome heads the panel (whatever language his profile chose)
        assert page.locator(
            "#table-result .result-head.won, #table-result .result-head.lost"
        ).count()
        assert page.locator("#table-result a[href$='/verify/']").count()
        page.context.close()

    @pytest.mark.parametrize(("variant", "player"), [("fenzhou5", "eve"), ("classic3", "fay")])
    def test_a_hand_against_bots_to_the_settlement(self, browser, server, variant, player) -> None:
        page = open_page(browser, server, lang="en")
        login(page, server, player)
        join(page, server, f"room-{variant}")
        fill_and_deal(page)
        play_to_the_end([page])
        shot(page, f"{variant}-desktop-settlement")
        seats = 3 if variant == "classic3" else 5
        assert page.locator("#table-result .result-table tbody tr").count() == seats
        page.context.close()

    def test_new5_on_a_phone(self, browser, server) -> None:
        page = open_page(browser, server, width=390, height=844)
        login(page, server, "dan")
        join(page, server, "room-new5")
        fill_and_deal(page)
        shot(page, "new5-phone-start")
        play_to_the_end([page])
        shot(page, "new5-phone-settlement")
        assert page.locator("#table-result .result-table tbody tr").count() == 5
        page.context.close()

    def test_three_players_classic3(self, browser, server) -> None:
        pages = []
        for name in ("ann", "ben", "cat"):
            page = open_page(browser, server, lang="zh-hant" if name == "ben" else "zh-hans")
            login(page, server, name)
            join(page, server, "room-classic3")
            pages.append(page)
        tables = {p.url for p in pages}
        assert len(tables) == 1, tables
        pages[0].reload()
        pages[0].click("#table-controls form[action$='/deal/'] button")
        for page in pages:
            page.wait_for_selector("#table-hand .hc")
        # each player sees only his own 17 cards
        hands = [
            set(p.eval_on_selector_all("#table-hand .hc", "els => els.map(e => e.dataset.key)"))
            for p in pages
        ]
        assert all(len(h) == 17 for h in hands)
        # the same seat panels for all three, each screen placing its viewer's at the bottom
        places = [seat_places(p) for p in pages]
        assert sorted(place["me"] for place in places) == ["0", "1", "2"]
        for place in places:
            me = int(place["me"])
            assert place["bottom"] == place["me"] and place["marked"] == [place["me"]]
            # turn order runs counter-clockwise: the next seat sits on the right
            assert place["x"][str((me + 1) % 3)] > place["x"][str((me + 2) % 3)]
        shot(pages[0], "classic3-three-players-bidding")
        play_to_the_end(pages)
        for i, page in enumerate(pages):
            shot(page, f"classic3-three-players-settlement-{i}")
            page.context.close()

    def test_the_seat_panels_a_move_sends_leave_what_a_reload_shows(self, browser, server) -> None:
        """A move's push swaps in the seat panels it changed, each by id inside #table-seats:
        after a few plays every page shows the panels a fresh load of it shows."""
        pages = []
        for name in ("dan", "eve", "fay"):
            page = open_page(browser, server)
            login(page, server, name)
            join(page, server, "room-panels")
            pages.append(page)
        assert len({p.url for p in pages}) == 1, [p.url for p in pages]
        pages[0].reload()
        wait_or_show(pages[0], "#table-controls form[action$='/deal/'] button")
        pages[0].click("#table-controls form[action$='/deal/'] button")
        for page in pages:
            wait_or_show(page, "#table-hand .hc")
        plays = 0
        deadline = time.monotonic() + 120
        while plays < 4 and time.monotonic() < deadline:
            for page in pages:
                playing = page.locator("#play-form").count() > 0
                if act(page, by_clicking=False):
                    plays += playing
                else:
                    time.sleep(0.1)
        assert plays >= 4, "the hand did not reach four plays"
        panels = """() => [...document.querySelectorAll('#table-seats .seat')].map((p) => {
            const c = p.cloneNode(true);  // the countdown's ticking text is the page's own
            c.querySelectorAll('.clock-n').forEach((n) => { n.textContent = ''; });
            c.querySelectorAll('[data-deadline]').forEach((n) => n.classList.remove('low'));
            return c.outerHTML;
        })"""
        for page in pages:
            # a second tab of the same player: the first stays on line, nobody acts meanwhile
            fresh = page.context.new_page()
            fresh.goto(page.url)
            wait_or_show(fresh, "#table-hand .hc")
            shown = fresh.evaluate(panels)
            assert len(shown) == 3 and any("seat-last" in panel for panel in shown)
            # both tabs take the same pushes (a push on its way, a turn's timeout meanwhile)
            until = time.monotonic() + 30
            while page.evaluate(panels) != fresh.evaluate(panels) and time.monotonic() < until:
                time.sleep(0.2)
            assert page.evaluate(panels) == fresh.evaluate(panels)
            fresh.close()
        for page in pages:
            page.context.close()

    def test_joining_between_hands_makes_a_player_at_once(self, browser, server) -> None:
        # gil plays a hand with two bots and leaves; hal quick-joins into his seat while the
        # result is on the table: he is a player (Next hand, Leave), not a spectator
        gil = open_page(browser, server, lang="en")
        login(gil, server, "gil")
        join(gil, server, "room-between-hands")
        table_url = gil.url
        fill_and_deal(gil)
        play_to_the_end([gil])
        gil.click("#table-result form[action$='/leave/'] button")
        gil.wait_for_function(
            "() => !document.querySelector('#table-result form[action$=\"/leave/\"]')"
        )
        hal = open_page(browser, server, lang="en")
        login(hal, server, "hal")
        join(hal, server, "room-between-hands")
        assert hal.url == table_url
        hal.wait_for_selector("#table-controls form[action$='/deal/'] button")
        assert not hal.get_by_text("You are watching this table").count()
        assert hal.locator("#table-controls form[action$='/leave/'] button").count()
        # the result on the table names who played it, not who sits there now
        played = hal.locator("#table-result .result-table").inner_text()
        assert "gil" in played and "hal" not in played
        shot(hal, "classic3-joined-between-hands")
        # Next hand: the result panel's (it lies over the controls), else the controls'
        in_result = hal.locator("#table-result form[action$='/deal/'] button")
        deal = (
            in_result
            if in_result.count()
            else hal.locator("#table-controls form[action$='/deal/'] button")
        )
        deal.first.click()
        hal.wait_for_selector("#table-hand .hc")
        assert hal.locator("#table-hand .hc").count() in (17, 20)
        hal.context.close()
        gil.context.close()

    def test_the_first_state_after_connecting_leaves_the_regions_it_repeats_in_place(
        self, browser, server
    ) -> None:
        # the socket's first state repeats the controls the page loaded with: they stay the same
        # element, so a tap pressed on them before it came and released after is not lost
        kim = open_page(browser, server, lang="en")
        kim.add_init_script(
            """
            window.controlsStates = 0;
            document.addEventListener("DOMContentLoaded", () => {
                window.loadedControls = document.getElementById("table-controls");
            });
            document.addEventListener("htmx:wsAfterMessage", (ev) => {
                if (String(ev.detail.message).includes('id="table-controls"')) {
                    window.controlsStates += 1;
                }
            });
            """
        )
        login(kim, server, "kim")
        join(kim, server, "room-steady")
        kim.wait_for_function("() => window.controlsStates >= 1")
        assert kim.evaluate(
            "() => document.getElementById('table-controls') === window.loadedControls"
        )
        # a push that does change them still swaps them in
        kim.click(FILL_BUTTON)
        wait_or_show(kim, DEAL_BUTTON)
        assert kim.evaluate(
            "() => document.getElementById('table-controls') !== window.loadedControls"
        )
        kim.context.close()
