"""Two members meet at a private qq5 table by invite link, fill it with bots, play two hands
and download the night's score sheet (issue #8), in real Chromium against a real daphne.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from tests.browser.pages import login, open_page, play_to_the_end, shot


def _deal(page) -> None:
    """Press "Next hand" as a player can: the end-of-hand panel, while it is open, is a dialog
    over the page (over the controls' button too, depending on how tall the result is)."""
    page.wait_for_selector("#table-controls form[action$='/deal/'] button")
    in_panel = page.locator("#table-result .result-panel form[action$='/deal/'] button")
    if in_panel.is_visible():
        in_panel.click()
    else:
        page.click("#table-controls form[action$='/deal/'] button")


@pytest.mark.timeout(700)
def test_two_members_meet_by_invite_link_and_download_the_score_sheet(
    browser,
    server,
) -> None:
    ann = open_page(browser, server, lang="en")
    login(ann, server, "ann")
    ann.goto(server + "/")
    ann.locator(".room:has(h2:text-is('room-qq5')) form[action$='/private/'] button").click()
    ann.wait_for_url("**/table/**")
    link = ann.locator("#invite-link").get_attribute("href")
    assert link and link.startswith("/join/")
    table_path = ann.url.removeprefix(server)

    ben = open_page(browser, server, lang="zh-hans")
    login(ben, server, "ben")
    # not in the lobby, and the table page itself is hidden without the code
    ben.goto(server + "/")
    assert ben.locator(f"a[href='{table_path}']").count() == 0
    assert ben.goto(server + table_path).status == 404
    ben.goto(server + link)
    ben.click("#invite-sit")
    ben.wait_for_url("**" + table_path)
    ben.wait_for_selector("#table-seats")

    # ann is told, in her language, that ben sat down
    ann.wait_for_selector("#table-notices .notice-toast:has-text('ben sat down.')")
    shot(ann, "private-qq5-ben-joined")

    ann.locator("#table-controls form:has(input[name=fill]) button").click()
    for hand in (1, 2):
        _deal(ann if hand == 1 else ben)
        for page in (ann, ben):
            page.wait_for_selector("#table-hand .hc")
            page.wait_for_selector("#table-result .result-panel", state="detached")
        play_to_the_end([ann, ben])
        for page in (ann, ben):
            page.wait_for_selector(
                f"#table-session .score-sheet tbody tr:nth-child({hand})", timeout=60_000
            )
    shot(ann, "private-qq5-score-sheet")
    shot(ben, "private-qq5-score-sheet-zh")

    with ben.expect_download() as info:
        ben.click("#sheet-csv")
    path = info.value.path()
    rows = list(csv.reader(io.StringIO(Path(path).read_text(encoding="utf-8"))))
    assert rows[0][1].startswith("ann") and rows[0][3].startswith("ben")
    assert [r[0] for r in rows[1:-1]] == ["1", "2"]
    total_ann = sum(int(r[2]) for r in rows[1:-1])
    assert int(rows[-1][2]) == total_ann

    ann.goto(server + "/sessions/")
    assert ann.locator("table.ledger tbody tr").count() == 1
    ann.context.close()
    ben.context.close()
