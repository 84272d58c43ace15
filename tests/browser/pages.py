"""What the browser tests do on a page as a player would: sign in, join a room, deal, act on
his turn (by clicking cards or the hint), play a hand to its end, and photograph the screen.
Screenshots go to ``$BROWSER_ARTIFACTS`` (default ``<tmp>/ddz-browser-artifacts``)."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout

PASSWORD = "pass-word-123"
ARTIFACTS = Path(
    os.environ.get("BROWSER_ARTIFACTS", Path(tempfile.gettempdir()) / "ddz-browser-artifacts")
)


def open_page(browser, base: str, *, width: int = 1280, height: int = 800, lang: str = "zh-hans"):
    context = browser.new_context(viewport={"width": width, "height": height}, locale=lang)
    context.add_cookies([{"name": "django_language", "value": lang, "url": base}])
    context.set_default_timeout(60_000)
    return context.new_page()


def login(page, base: str, username: str) -> None:
    # the language the page was opened in (open_page's cookie), before a page of a player with
    # another stored language resets it
    wanted = next(c["value"] for c in page.context.cookies() if c["name"] == "django_language")
    page.goto(base + "/accounts/login/")
    page.fill("input[name=login]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("form [type=submit]")
    page.wait_for_url(lambda url: "/accounts/login" not in url)
    # A player's stored language wins over the browser's cookie (club/middleware.py), and his
    # first table socket stores the cookie's: a test that seats him again in another language
    # picks it with the header's switcher, as he would.
    if page.locator("html").get_attribute("lang") != wanted:
        with page.expect_navigation():
            page.select_option("#language", wanted)


def join(page, base: str, room: str) -> None:
    page.goto(base + "/")
    page.locator(
        f"#room-{room} button[type=submit], .room:has(h2:text-is('{room}')) button"
    ).first.click()
    page.wait_for_url("**/table/**")
    page.wait_for_selector("#table-seats")


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


# What makes the page wider than the screen (nothing when it is not), named so that a failure
# says what to mend: the outermost elements past its right edge.
WIDER_THAN_THE_SCREEN = """() => {
    if (document.documentElement.scrollWidth <= innerWidth) return [];
    const past = [...document.querySelectorAll('body *')].filter(
        (el) => el.getBoundingClientRect().right > innerWidth + 0.5);
    const named = past.filter((el) => !past.includes(el.parentElement))
        .map((el) => `${el.className}: ${el.textContent.trim().slice(0, 40)}`);
    return [`the page is ${document.documentElement.scrollWidth}px wide`, ...named];
}"""


# the table's stage is fitted to the window below what is above it (static/games/table.js
# measures that on the window's resize event, which may come after the resize itself)
STAGE_FITTED = """() => {
    const root = document.querySelector('#table-root');
    return !root || root.style.getPropertyValue('--stage-top')
        === Math.round(root.getBoundingClientRect().top + scrollY) + 'px';
}"""


def resize(page, width: int, height: int) -> None:
    """The window at ``width`` x ``height``, and the page laid out for it."""
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_function(STAGE_FITTED)


def wider_than_the_screen(page) -> list[str]:
    return page.evaluate(WIDER_THAN_THE_SCREEN)


def click_cards(page, codes: list[str]) -> None:
    """Select cards by clicking their visible left edge (cards overlap)."""
    taken: set[str] = set()
    for code in codes:
        cards = page.locator(f"#table-hand .hc[data-card='{code}']")
        for i in range(cards.count()):
            card = cards.nth(i)
            key = card.get_attribute("data-key") or ""
            if key in taken:
                continue
            taken.add(key)
            card.click(position={"x": 5, "y": 14})
            break


# This turn's controls, with the page's last error cleared, in one round trip: None when it is
# not the page's turn (or, ``play`` false, when the turn is a play or a pass).
MY_TURN = """([play]) => {
    const controls = document.querySelector("#table-controls[data-my-turn='1']");
    if (!controls || (!play && controls.querySelector('#play-form, #pass-form'))) return null;
    const error = document.querySelector('#table-error');
    if (error) error.innerHTML = '';
    return controls;
}"""
# what the decision depends on, read from the controls at once
TURN = """(el) => ({
    cantBeat: !!el.dataset.cantBeat,
    play: !!el.querySelector('#play-form'),
    hints: JSON.parse(el.dataset.hints || '[]'),
    canPlay: !!el.dataset.canPlay,
})"""


def act(page, *, by_clicking: bool, play: bool = True) -> bool:
    """Take one decision if it is this page's turn; True when something was sent. With
    ``play=False`` only the decisions before play are taken, never a play or a pass. A turn
    may end while the page acts (its timer, a push): then nothing is sent and False returned."""
    controls = page.evaluate_handle(MY_TURN, [play]).as_element()
    if controls is None:
        return False
    try:
        _decide(page, controls, by_clicking=by_clicking)
    except (PlaywrightError, TurnOver):
        if controls.evaluate("el => el.isConnected"):
            raise  # still this turn's controls: the page really failed
        return False
    # wait until the server answered: the controls region replaced, or an error shown
    page.wait_for_function(
        "el => !el.isConnected || document.querySelector('#table-error .error-msg')",
        arg=controls,
        timeout=60_000,
    )
    return True


class TurnOver(Exception):
    """The controls a decision was being taken in were replaced: the turn ended meanwhile."""


def _click(controls, *selectors: str) -> None:
    """Click the first of ``selectors`` found inside ``controls``, in the order given."""
    for selector in selectors:
        if (button := controls.query_selector(selector)) is not None:
            button.click()
            return
    raise TurnOver(selectors[0])


def _decide(page, controls, *, by_clicking: bool) -> None:
    """Click this turn's decision inside ``controls`` (an element that detaches when the
    turn's region is replaced, which fails the clicks at once instead of waiting)."""
    turn = controls.evaluate(TURN)
    if turn["cantBeat"]:  # 要不起: Pass is all there is
        _click(controls, "#pass-form button")
        return
    if turn["play"]:
        if turn["hints"] and turn["canPlay"]:
            if by_clicking:
                click_cards(page, turn["hints"][0].split())
            else:
                _click(controls, "#hint-btn")
            page.wait_for_function(
                "el => !el.isConnected || el.querySelector('#play-btn:not([disabled])')",
                arg=controls,
            )
            _click(controls, "#play-btn")
        else:
            _click(controls, "#pass-form button")
        return
    _click(controls, ".choice-row form button.primary", ".choice-row form button")


def play_to_the_end(pages, *, stall: float = 60.0) -> None:
    """Act on every page whose turn it is until all show the result. Fails only when nothing
    could be done for ``stall`` seconds: a whole hand's length depends on the machine's load."""
    clicks = 0
    last_progress = time.monotonic()
    while time.monotonic() - last_progress < stall:
        if all(p.locator("#table-result .result-panel").count() for p in pages):
            return
        acted = False
        for page in pages:
            if page.locator("#table-result .result-panel").count():
                continue
            acted = act(page, by_clicking=clicks % 2 == 0) or acted
            clicks += acted
        if acted:
            last_progress = time.monotonic()
        else:
            time.sleep(0.15)
    raise AssertionError(f"no page could act for {stall:.0f} s before the result")


FILL_BUTTON = "#table-controls form:has(input[name=fill]) button"
DEAL_BUTTON = "#table-controls form[action$='/deal/'] button"


def fill_and_deal(page) -> None:
    wait_or_show(page, f"{FILL_BUTTON}, {DEAL_BUTTON}")
    if page.locator(FILL_BUTTON).count():
        page.click(FILL_BUTTON)
    wait_or_show(page, DEAL_BUTTON)
    page.click(DEAL_BUTTON)
    wait_or_show(page, "#table-hand .hc")


def wait_or_show(page, selector: str) -> None:
    """Wait for ``selector``; a timeout fails with what the page showed meanwhile."""
    try:
        page.wait_for_selector(selector)
    except PlaywrightTimeout as timeout:
        raise AssertionError(f"no {selector}\n{screen_state(page)}") from timeout


def screen_state(page) -> str:
    """What a failed wait saw: the page's frame header, status, hand, controls and error."""
    parts = [page.url]
    regions = ("#table-frame", "#table-status", "#table-hand", "#table-controls", "#table-error")
    for region in regions:
        node = page.query_selector(region)
        parts.append(f"{region}: {node.evaluate('el => el.outerHTML') if node else None}")
    return "\n".join(parts)


def seat_places(page) -> dict:
    """The viewer's seat, the seat of the bottom panel, the panels marked as the viewer's, and
    each panel's horizontal place."""
    return page.evaluate(
        """() => {
        const panels = [...document.querySelectorAll('#table-seats .seat')];
        const box = (p) => p.getBoundingClientRect();
        const bottom = panels.reduce((a, b) => (box(a).top >= box(b).top ? a : b));
        const shown = (p) => getComputedStyle(p.querySelector('.you-tag')).display !== 'none';
        return {
            me: document.querySelector('#table-hand').dataset.me,
            bottom: bottom.dataset.seat,
            marked: panels.filter(shown).map((p) => p.dataset.seat),
            x: Object.fromEntries(panels.map((p) => [p.dataset.seat, box(p).left])),
        };
    }"""
    )


# WCAG 2's relative luminance and contrast ratio of two sRGB colours ([r, g, b], 0-255), the
# JavaScript the pages' contrast probes share (spliced into their functions)
CONTRAST_RATIO = """    const lum = ([r, g, b]) => {
        const f = (v) => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const ratio = (a, b) => {
        const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
        return (x + 0.05) / (y + 0.05);
    };
"""
