"""The rules a tap away and the operators' forms in real Chromium (issue #34 items 2 and 10): the
rules page opens from a room on the lobby and from the table header; the first-hand guide opens
by itself at the first dealt hand, once per account, and again from the table's "?" button; the
admin's event form shows only the chosen format's fields and refuses a start that has passed in
the club's time zone's words; the room form shows only the chosen variant's rule options. The
rules pages are photographed on a phone and a desktop in two languages (scripts/screenshots.py
rules)."""

from __future__ import annotations

import datetime

from django.conf import settings
from django.utils import timezone

from tests.browser.pages import fill_and_deal, join, login, open_page, shot


def test_rules_from_the_lobby_and_the_table_and_the_guide_once(browser, server):
    page = open_page(browser, server, width=390, height=844, lang="en")
    login(page, server, "ivy")
    page.goto(server + "/")
    page.locator(".room:has(h2:text-is('room-fenzhou5')) .rules-link").click()
    page.wait_for_url("**/rules/fenzhou5/?room=*")
    assert page.locator("#combinations .combo").count() == 14
    assert page.locator("#options tr.changed").count() == 0  # the room plays the defaults
    # the first hand: the guide opens by itself once the cards are dealt; the server is told
    join(page, server, "room-classic3")
    assert page.locator("#table-guide").is_hidden()
    with page.expect_response(lambda r: "guide-seen" in r.url and r.status == 204):
        fill_and_deal(page)
        page.wait_for_selector("#table-guide:not([hidden])")
    page.wait_for_selector("#table-unrated")  # bots are seated: the hand is not rated
    steps = page.locator("#table-guide .guide-steps li").count()
    for _step in range(steps):
        page.click("#table-guide [data-guide='next']")
    page.wait_for_selector("#table-guide", state="hidden")
    page.reload()
    page.wait_for_selector("#table-seats")
    assert page.locator("#table-guide").get_attribute("data-auto") == ""
    assert page.locator("#table-guide").is_hidden()
    page.click(".table-bar [data-guide-open]")
    page.wait_for_selector("#table-guide:not([hidden])")
    assert page.locator("#table-guide .guide-steps li:not([hidden])").count() == 1
    page.keyboard.press("Escape")
    page.wait_for_selector("#table-guide", state="hidden")
    page.click(".table-bar .rules-link")
    page.wait_for_url("**/rules/classic3/?room=*")
    assert page.locator("#combinations .combo[data-kind='rocket'] .pc").count() == 2
    for width, height, name in ((390, 844, "phone"), (1280, 800, "desktop")):
        for lang in ("zh-hans", "en"):
            photo = open_page(browser, server, width=width, height=height, lang=lang)
            for part in ("deck", "combinations"):
                photo.goto(f"{server}/rules/qq5/#{part}")
                shot(photo, f"rules-qq5-{name}-{lang}-{part}")
            photo.context.close()


def test_the_admin_forms_show_the_chosen_format_and_variant_only(browser, server):
    page = open_page(browser, server, lang="en")
    login(page, server, "boss")
    page.goto(server + "/admin/competitions/event/add/")
    assert page.locator("#id_minutes").is_visible() and page.locator("#id_rounds").is_hidden()
    page.select_option("#id_format", "duplicate")
    assert page.locator("#id_rounds").is_visible() and page.locator("#id_minutes").is_hidden()
    page.fill("#id_name", "Too late")
    page.select_option("#id_room", label="room-qq5")
    past = timezone.localtime(timezone.now() - datetime.timedelta(hours=8))
    page.fill("#id_starts_at_0", past.strftime("%Y-%m-%d"))
    page.fill("#id_starts_at_1", past.strftime("%H:%M:%S"))
    page.click("input[name=_save]")
    error = page.locator("#id_starts_at_error")
    error.wait_for()
    assert f"in the club's time zone, {settings.TIME_ZONE}." in error.inner_text()
    assert page.locator("#id_rounds").is_visible()  # the chosen format stays chosen
    page.goto(server + "/admin/games/room/add/")
    page.select_option("#id_variant", "classic3")
    options = "fieldset.when-variant-{}"
    assert page.locator(options.format("classic3")).is_visible()
    assert page.locator(options.format("qq5")).is_hidden()
    page.select_option("#id_variant", "fenzhou5")
    assert page.locator(options.format("fenzhou5")).is_visible()
    assert page.locator(options.format("classic3")).is_hidden()
    assert page.locator("[name='option__fenzhou5__fenzhou_nuke']").is_visible()
