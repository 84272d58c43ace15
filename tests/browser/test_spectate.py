"""Spectating a bot table in real Chromium against a real daphne: the lobby's Watch link, the
public view only, the spectator count on the players' screen, quick chat to the right
audiences, and live pushes to the end of the hand. Run with ``pytest -m browser -p no:asyncio``."""

from __future__ import annotations

import time

from tests.browser.pages import fill_and_deal, join, login, open_page, play_to_the_end, shot


class SpectateBrowserTests:
    def test_watch_a_bot_table_from_the_lobby_on_a_phone(self, browser, server) -> None:
        ann = open_page(browser, server, lang="en")
        login(ann, server, "ann")
        join(ann, server, "room-classic3")
        fill_and_deal(ann)
        table_url = ann.url

        ben = open_page(browser, server, width=390, height=844, lang="zh-hant")
        login(ben, server, "ben")
        ben.goto(server + "/")
        watch = ben.locator(f"#watch-tables a[href='{table_url.replace(server, '')}']")
        assert watch.count() == 1
        watch.click()
        ben.wait_for_url(table_url)
        ben.wait_for_selector("#table-seats .seat")
        shot(ben, "spectator-phone")
        # the public view: no cards in hand, no controls to act
        assert ben.locator("#table-hand .hc").count() == 0
        assert ben.locator("#play-form, #pass-form").count() == 0
        # the players see one spectator
        ann.wait_for_selector("#club-spectators[data-count='1']")
        # a spectator's emote reaches spectators only
        ben.click(".club-chat summary")
        ben.click(".club-emotes form:has(input[value='wink']) button")
        ben.wait_for_selector("#club-watch-chat .club-watch-line")
        # a player's phrase shows as a bubble to the spectator
        ann.click(".club-chat summary")
        ann.click(".club-phrases form:has(input[value='nice']) button")
        ben.wait_for_selector("#club-bubbles .club-bubble")
        time.sleep(0.5)
        assert ann.locator(".club-watch-line").count() == 0
        shot(ben, "spectator-phone-chat")
        # live to the end of the hand
        play_to_the_end([ann])
        ben.wait_for_selector("#table-result .result-panel", timeout=60_000)
        shot(ben, "spectator-phone-result")
        # the hand is on the leaderboard and on the player's public profile, with its replay
        ben.goto(server + "/leaderboard/?board=beans&days=7")
        ben.click("#board a[href='/players/ann/']")
        ben.wait_for_url("**/players/ann/")
        assert ben.locator("a[href^='/hands/']").count() >= 1
        shot(ben, "profile-phone")
        ann.goto(server + "/leaderboard/")
        assert ann.locator("#board a[href='/players/ann/']").count() == 1
        shot(ann, "leaderboard-desktop")
        ann.goto(server + "/settings/")
        ann.check("input[name=card_size][value=l]")
        ann.check("input[name=auto_pass]")
        ann.click("form.club-settings button[type=submit]")
        ann.goto(table_url)
        ann.wait_for_selector("#table-root.club-cards-l")
        assert ann.locator("#club-prefs[data-auto-pass='1']").count() == 1
        ben.context.close()
        ann.context.close()
