"""The table screen a player expects (issue #19), in Chromium at 1280×800 and 390×844: the
header on a phone, every region in the reader's language, the result panel, and a new5 hand
of 31–38 cards on a phone. Run apart: ``pytest -m browser -p no:asyncio``."""

from __future__ import annotations

import time

import pytest

from tests.browser.pages import (
    CONTRAST_RATIO,
    act,
    fill_and_deal,
    join,
    login,
    open_page,
    play_to_the_end,
    shot,
    wider_than_the_screen,
)
from tests.support.languages import foreign

DESKTOP = {"width": 1280, "height": 800}
# how long a hand may take on a loaded two-core machine: bots and deadlines at their pace
PATIENCE = 240
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


class HeaderTests:
    @pytest.mark.parametrize("width", [360, 390])
    def test_a_phone_reaches_every_link_from_the_table(self, browser, server, width) -> None:
        page = open_page(browser, server, width=width, height=844, lang="en")
        login(page, server, "ann")
        join(page, server, "room-classic3")
        assert wider_than_the_screen(page) == []
        assert _reachable(page, ".topbar .brand") and _reachable(page, ".menu-btn")
        assert not page.locator("#site-nav").is_visible()
        page.click(".menu-btn")
        assert page.get_attribute(".menu-btn", "aria-expanded") == "true"
        shot(page, f"header-phone-{width}-menu")
        for name in ("Lobby", "Leaderboard", "Profile", "Settings", "Log out"):
            link = f"#site-nav :is(a, button):text-is('{name}')"
            assert _reachable(page, link), name
        page.keyboard.press("Escape")
        assert not page.locator("#site-nav").is_visible()
        # stand up: the later tests of this room would otherwise wait for an absent player
        page.click("#table-controls form[action$='/leave/'] button")
        page.wait_for_selector("#table-controls form[action$='/sit/']")
        page.click(".menu-btn")
        page.click("#site-nav a:text-is('Profile')")
        page.wait_for_url("**/profile/**")
        page.context.close()

    def test_a_desktop_shows_the_links_in_the_bar(self, browser, server) -> None:
        page = open_page(browser, server, **DESKTOP, lang="en")
        login(page, server, "ann")
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


class BigHandTests:
    @pytest.mark.parametrize(("size", "player"), [("phone", "eve"), ("desktop", "fay")])
    def test_a_new5_turn_with_a_big_hand_keeps_play_on_screen(
        self, browser, server, size, player
    ) -> None:
        page = open_page(browser, server, **(PHONE if size == "phone" else DESKTOP), lang="en")
        login(page, server, player)
        join(page, server, "room-new5")
        fill_and_deal(page)
        # take the decisions before play until it is this seat's turn to play
        deadline = time.time() + PATIENCE
        while not page.locator("#play-form").count():
            assert time.time() < deadline, "never this seat's turn to play"
            if not act(page, by_clicking=False, play=False):
                page.wait_for_timeout(150)
        count = page.locator("#table-hand .hc").count()
        assert count >= 31, count
        page.evaluate("() => window.scrollTo(0, 0)")  # the top of the page: the bar must stick
        shot(page, f"new5-{size}-big-hand-turn")
        assert _reachable(page, "#hint-btn")
        assert _toasts_cover_controls(page) == []
        assert _cards_tappable(page) == []
        assert wider_than_the_screen(page) == []
        page.click("#hint-btn")
        page.wait_for_selector("#play-btn:not([disabled])")
        assert _reachable(page, "#play-btn")
        page.context.close()


NAMELESS = """() => {
    const sel = 'a[href], button, input:not([type=hidden]), select, textarea, summary, '
        + '[role=button], [tabindex]:not([tabindex="-1"])';
    const text = (el) => (el.innerText || el.textContent || '').trim();
    const name = (el) => {
        const by = el.getAttribute('aria-labelledby');
        const named = (id) => text(document.getElementById(id) || el);
        if (by) return by.split(/\\s+/).map(named).join(' ');
        const labels = el.labels && [...el.labels].map(text).join(' ');
        const label = el.getAttribute('aria-label') || labels;
        if (label) return label;
        if (el.matches('input[type=submit], input[type=button]')) return el.value;
        const img = el.querySelector('img[alt], svg[aria-label]');
        return text(el) || (img && (img.alt || img.getAttribute('aria-label'))) || el.title || '';
    };
    return [...document.querySelectorAll(sel)]
        .filter((el) => el.getClientRects().length && !el.closest('[aria-hidden=true]'))
        .filter((el) => !name(el).trim())
        .map((el) => el.outerHTML.slice(0, 120));
}"""

# WCAG 2 AA for normal text; a card's corner index is small
CONTRAST_AA = 4.5
LOW_CONTRAST = (
    """(min) => {
    const colours = (s) => s.match(/rgba?\\([^)]*\\)/g) || [];
    const rgb = (s) => colours(s).map((c) => c.match(/[\\d.]+/g).map(Number));
"""
    + CONTRAST_RATIO
    + """    const bad = [];
    document.querySelectorAll('.pc').forEach((card) => {
        const style = getComputedStyle(card);
        const grounds = rgb(style.backgroundImage).concat(rgb(style.backgroundColor))
            .filter((c) => c.length < 4 || c[3] > 0);
        card.querySelectorAll('pc-r, pc-s, pc-c').forEach((part) => {
            if (!part.getClientRects().length) return;
            const ink = rgb(getComputedStyle(part).color)[0];
            for (const ground of grounds) {
                const r = ratio(ink, ground);
                const which = card.dataset.c || card.dataset.card;
                if (r < min) bad.push(`${which} ${part.localName} ${r.toFixed(2)}`);
            }
        });
    });
    return bad;
}"""
)


class AccessibilityTests:
    @pytest.mark.parametrize("size", ["desktop", "phone"])
    def test_every_control_is_named_and_card_text_passes_aa(self, browser, server, size) -> None:
        page = open_page(browser, server, **(DESKTOP if size == "desktop" else PHONE), lang="en")
        login(page, server, "fay" if size == "desktop" else "cat")
        join(page, server, "room-classic3")
        checked = 0

        def check(moment: str) -> None:
            nonlocal checked
            assert page.evaluate(NAMELESS) == [], moment
            assert page.evaluate(LOW_CONTRAST, CONTRAST_AA) == [], moment
            checked += 1

        check("between hands")
        fill_and_deal(page)
        check("dealt")
        seen = set()
        deadline = time.time() + PATIENCE
        while not page.locator("#table-result .result-panel").count():
            assert time.time() < deadline, "the hand did not end"
            moment = "play" if page.locator("#play-form").count() else "decision"
            if page.locator("#table-controls[data-my-turn='1']").count() and moment not in seen:
                seen.add(moment)
                check(moment)
            if not act(page, by_clicking=False):
                page.wait_for_timeout(150)
        check("result")
        page.reload()  # and from scratch, as loaded (every region rendered by the page)
        check("result, loaded")
        # the probes find what they look for: a nameless button, a card's faded ink
        page.evaluate(
            """() => {
            document.body.append(document.createElement('button'));
            const faded = document.createElement('span');
            faded.className = 'pc';
            faded.innerHTML = '<pc-r style="color: #bbb">4</pc-r>';
            document.body.append(faded);
        }"""
        )
        assert len(page.evaluate(NAMELESS)) == 1
        assert page.evaluate(LOW_CONTRAST, CONTRAST_AA)
        page.reload()
        page.click("#site-nav a:text-is('Lobby')" if size == "desktop" else ".menu-btn")
        check("menu or lobby")
        assert checked >= 5
        page.context.close()


class LanguageTests:
    def test_two_readers_keep_their_languages_through_the_pushes(self, browser, server) -> None:
        english = open_page(browser, server, **DESKTOP, lang="en")
        login(english, server, "ben")
        join(english, server, "room-fenzhou5")
        traditional = open_page(browser, server, **PHONE, lang="zh-hant")
        login(traditional, server, "dan")
        join(traditional, server, "room-fenzhou5")
        assert english.url == traditional.url
        # dan's arrival was pushed to ben's page: its notice, seats and seat buttons
        english.wait_for_selector("#table-seats .seat:has-text('dan')")
        fill_and_deal(english)
        traditional.wait_for_selector("#table-hand .hc")
        for _ in range(6):  # a few decisions, each a push to both pages
            for page in (english, traditional):
                act(page, by_clicking=False)
        for page, language in ((english, "en"), (traditional, "zh-hant")):
            assert foreign(page.content(), language) == [], language
            assert page.locator("#table-session").count()
        shot(english, "languages-desktop-en")
        shot(traditional, "languages-phone-zh-hant")
        for page in (english, traditional):
            page.context.close()


class ResultTests:
    def test_the_result_teaches_and_next_hand_is_in_reach(self, browser, server) -> None:
        pages = []
        for name, size in (("ann", DESKTOP), ("ben", PHONE)):
            page = open_page(browser, server, **size, lang="en")
            login(page, server, name)
            join(page, server, "room-qq5")
            pages.append(page)
        assert pages[0].url == pages[1].url
        fill_and_deal(pages[0])
        pages[1].wait_for_selector("#table-hand .hc")
        play_to_the_end(pages)
        for page, size in zip(pages, ("desktop", "phone"), strict=True):
            panel = page.locator("#table-result .result-panel")
            assert panel.locator("tbody tr").count() == 5
            # the cards each loser kept, who went out first, every seat's stake
            assert panel.locator(".left-cards .pc").count() > 0
            assert panel.locator(".tag.out-first").count() == 1
            assert "First out:" in panel.inner_text()
            assert panel.locator(".stake-steps").count() == 5
            assert _reachable(page, ".result-actions button.primary")
            shot(page, f"result-{size}")
        pages[1].click(".result-actions button.primary")  # the phone deals the next hand
        for page in pages:
            page.wait_for_selector("#table-hand .hc")
            page.context.close()
