"""The pages a player opens from the header fit a small phone: at 320 and 360 px wide, in
English and in Chinese, none is wider than the screen (a leaderboard's long season option, a
profile's bean movements, a rules page's longest example). Run apart: ``pytest -m browser
-p no:asyncio``."""

from __future__ import annotations

import pytest

from tests.browser.pages import login, open_page, shot, wider_than_the_screen

PAGES = [
    "/",
    "/rules/",
    "/rules/qq5/",
    "/rules/new5/",
    "/rules/classic3/",
    "/rules/fenzhou5/",
    "/sessions/",
    "/hands/",
    "/leaderboard/",
    "/players/ann/",
    "/settings/",
    "/events/",
    "/profile/",
]


@pytest.mark.parametrize("lang", ["en", "zh-hans"])
def test_no_page_is_wider_than_a_small_phone(browser, server, lang) -> None:
    page = open_page(browser, server, width=320, height=740, lang=lang)
    login(page, server, "ann")
    wide = {}
    for width in (320, 360):
        page.set_viewport_size({"width": width, "height": 740})
        for path in PAGES:
            page.goto(server + path)
            found = wider_than_the_screen(page)
            if found:
                wide[f"{width}px {path}"] = found[:3]
            if width == 320 and path in ("/leaderboard/", "/profile/"):
                shot(page, f"narrow-{lang}{path.replace('/', '-')}")
    assert wide == {}
    page.context.close()
