"""The table screen a player expects (issue #19), in Chromium at 1280×800 and 390×844: the
header on a phone, every region in the reader's language, the result panel, and a new5 hand
of 31–38 cards on a phone. Run apart: ``pytest -m browser -p no:asyncio``."""

from __future__ import annotations

import pytest

from tests.games import test_views_browser as ui
from tests.games.test_views_browser import _join, _login, _page, _shot

pytestmark = pytest.mark.browser

# the daphne subprocess and Chromium of the table's browser tests
server = ui.server
browser = ui.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def _reachable(page, selector: str) -> bool:
    """The element is inside the viewport and is what a tap at its centre hits."""
    return page.eval_on_selector(
        selector,
        """el => {
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.height === 0) return false;
        if (r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom > innerHeight) return false;
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return !!hit && (hit === el || el.contains(hit));
    }""",
    )


def _no_sideways_scroll(page) -> bool:
    return page.evaluate("() => document.documentElement.scrollWidth <= innerWidth")


class HeaderTests:
    @pytest.mark.parametrize("width", [360, 390])
    def test_a_phone_reaches_every_link_from_the_table(self, browser, server, width) -> None:
        page = _page(browser, server, width=width, height=844, lang="en")
        _login(page, server, "ann")
        _join(page, server, "room-classic3")
        assert _no_sideways_scroll(page)
        assert _reachable(page, ".topbar .brand") and _reachable(page, ".menu-btn")
        assert not page.locator("#site-nav").is_visible()
        page.click(".menu-btn")
        assert page.get_attribute(".menu-btn", "aria-expanded") == "true"
        _shot(page, f"header-phone-{width}-menu")
        for name in ("Lobby", "Leaderboard", "Profile", "Settings", "Log out"):
            link = f"#site-nav :is(a, button):text-is('{name}')"
            assert _reachable(page, link), name
        page.keyboard.press("Escape")
        assert not page.locator("#site-nav").is_visible()
        page.click(".menu-btn")
        page.click("#site-nav a:text-is('Profile')")
        page.wait_for_url("**/profile/**")
        page.context.close()

    def test_a_desktop_shows_the_links_in_the_bar(self, browser, server) -> None:
        page = _page(browser, server, **DESKTOP, lang="en")
        _login(page, server, "ann")
        page.goto(server + "/")
        assert not page.locator(".menu-btn").is_visible()
        for name in ("Lobby", "Leaderboard", "Profile", "Settings", "Log out"):
            assert _reachable(page, f"#site-nav :is(a, button):text-is('{name}')"), name
        page.context.close()


TAPPABLE_PX = 27  # "a card at least about 28 px wide where it is not covered"

CONTROLS = "#table-root :is(button, a, input, select, .hc)"


def _cards_tappable(page) -> list[str]:
    """Cards whose uncovered strip is narrower than a thumb, or not what a tap on it hits."""
    return page.evaluate(
        """(min) => {
        const cards = [...document.querySelectorAll('#table-hand .hc')];
        const bad = [];
        cards.forEach((card, i) => {
            const r = card.getBoundingClientRect();
            const next = cards[i + 1] && cards[i + 1].getBoundingClientRect();
            const sameRow = next && Math.abs(next.top - r.top) < 2;
            const strip = sameRow ? next.left - r.left : r.width;
            if (strip < min) bad.push(card.dataset.key + ' strip ' + strip.toFixed(1));
            card.scrollIntoView({block: 'center'});
            const s = card.getBoundingClientRect();
            const hit = document.elementFromPoint(s.left + Math.min(strip, s.width) / 2, s.top + 8);
            if (!hit || !card.contains(hit)) bad.push(card.dataset.key + ' covered');
        });
        return bad;
    }""",
        TAPPABLE_PX,
    )


def _toasts_cover_controls(page) -> list[str]:
    return page.evaluate(
        """(sel) => {
        const toasts = [...document.querySelectorAll('.notice-toast')]
            .map((t) => t.getBoundingClientRect());
        const hits = [];
        document.querySelectorAll(sel).forEach((el) => {
            const r = el.getBoundingClientRect();
            if (!r.width || !r.height) return;
            for (const t of toasts) {
                if (t.left < r.right && r.left < t.right && t.top < r.bottom && r.top < t.bottom) {
                    hits.push(el.outerHTML.slice(0, 80));
                }
            }
        });
        return hits;
    }""",
        CONTROLS,
    )


class PhoneHandTests:
    def test_a_new5_turn_with_a_big_hand_keeps_play_on_screen(self, browser, server) -> None:
        page = _page(browser, server, **PHONE, lang="en")
        _login(page, server, "eve")
        _join(page, server, "room-new5")
        ui._fill_and_deal(page)
        # take the decisions before play until it is this seat's turn to play
        for _ in range(600):
            if page.locator("#play-form").count():
                break
            if not ui._act(page, by_clicking=False):
                page.wait_for_timeout(150)
        else:
            raise AssertionError("never this seat's turn to play")
        count = page.locator("#table-hand .hc").count()
        assert count >= 31, count
        page.evaluate("() => window.scrollTo(0, 0)")  # the top of the page: the bar must stick
        _shot(page, "new5-phone-big-hand-turn")
        assert _reachable(page, "#hint-btn")
        assert _toasts_cover_controls(page) == []
        assert _cards_tappable(page) == []
        assert _no_sideways_scroll(page)
        page.click("#hint-btn")
        page.wait_for_selector("#play-btn:not([disabled])")
        assert _reachable(page, "#play-btn")
        page.context.close()
