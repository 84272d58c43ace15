"""The table screen in real Chromium against a real daphne (websockets, deadlines, bots).

Run apart from the rest (STACK.md): ``pytest -m browser -p no:asyncio``. The server runs as a
subprocess on a throw-away SQLite file; screenshots of the key screens are kept in
``$BROWSER_ARTIFACTS`` (default ``<tmp>/ddz-browser-artifacts``).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PASSWORD = "pass-word-123"
ARTIFACTS = Path(
    os.environ.get("BROWSER_ARTIFACTS", Path(tempfile.gettempdir()) / "ddz-browser-artifacts")
)

SETUP = f"""
from accounts.services import beans_grant
from django.contrib.auth import get_user_model
from games.services import room_create
# bots reply from the server's deadline runner, quicker than the default for whole new5 hands
for variant in ("qq5", "new5", "classic3", "fenzhou5"):
    room_create(name="room-" + variant, variant=variant, coefficient=1, bot_delay_ms=100)
# rooms of one test each: no table left over from an earlier test takes its players apart
for name in ("room-between-hands", "room-panels"):
    room_create(name=name, variant="classic3", coefficient=1, bot_delay_ms=100)
# the events' browser tests (tests/competitions/test_events_browser.py) and their operator
for variant in ("classic3", "qq5"):
    room_create(name="room-events-" + variant, variant=variant, rake_percent=10, bot_delay_ms=100)
User = get_user_model()
User.objects.create_user(username="boss", password={PASSWORD!r}, is_staff=True, is_superuser=True)
for name in ("ann", "ben", "cat", "dan", "eve", "fay", "gil", "hal"):
    user = User.objects.create_user(username=name, password={PASSWORD!r})
    beans_grant(user=user, amount=100000)
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium is not installed")
    tmp = Path(tempfile.mkdtemp(prefix="ddz-browser-"))
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp / 'db.sqlite3'}",
        "DEBUG": "1",
        "REDIS_URL": "",
        # no bots fill a waiting table by themselves: on a loaded machine a player's table
        # filled before his friend's quick-join came, which then opened another table
        "DDZ_BOT_FILL_SECONDS": "0",
        "DJANGO_SETTINGS_MODULE": "ddz_site.settings",
    }
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    subprocess.run([python, "manage.py", "shell", "-c", SETUP], cwd=ROOT, env=env, check=True)
    port = _free_port()
    log = open(tmp / "daphne.log", "w")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [python, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "ddz_site.asgi:application"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
        except OSError:
            time.sleep(0.2)
    try:
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(scope="module")
def chromium(server):
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


@pytest.fixture
def browser(chromium):
    """The module's Chromium; the test's pages are closed after it. A page left open keeps its
    sockets and its user's socket leases, and its table keeps being played and pushed to."""
    yield chromium
    for context in chromium.contexts:
        context.close()


def _page(browser, base: str, *, width: int = 1280, height: int = 800, lang: str = "zh-hans"):
    context = browser.new_context(viewport={"width": width, "height": height}, locale=lang)
    context.add_cookies([{"name": "django_language", "value": lang, "url": base}])
    context.set_default_timeout(60_000)
    return context.new_page()


def _login(page, base: str, username: str) -> None:
    page.goto(base + "/accounts/login/")
    page.fill("input[name=login]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("form [type=submit]")
    page.wait_for_url(lambda url: "/accounts/login" not in url)


def _join(page, base: str, room: str) -> None:
    page.goto(base + "/")
    page.locator(
        f"#room-{room} button[type=submit], .room:has(h2:text-is('{room}')) button"
    ).first.click()
    page.wait_for_url("**/table/**")
    page.wait_for_selector("#table-seats")


def _shot(page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def _click_cards(page, codes: list[str]) -> None:
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


def _act(page, *, by_clicking: bool, play: bool = True) -> bool:
    """Take one decision if it is this page's turn; True when something was sent. With
    ``play=False`` only the decisions before play are taken, never a play or a pass."""
    if not page.locator("#table-controls[data-my-turn='1']").count():
        return False
    if not play and page.locator("#play-form").count():
        return False
    page.evaluate(
        "() => { const e = document.querySelector('#table-error'); if (e) e.innerHTML = ''; }"
    )
    controls = page.query_selector("#table-controls")
    if page.locator("#play-form").count():
        hints = json.loads(page.locator("#table-hand").get_attribute("data-hints") or "[]")
        if hints and page.locator("#table-hand .hand.selectable").count():
            if by_clicking:
                _click_cards(page, hints[0].split())
            else:
                page.click("#hint-btn")
            page.wait_for_selector("#play-btn:not([disabled])")
            page.click("#play-btn")
        else:
            page.click("#pass-form button")
    else:
        choices = page.locator("#table-controls .choice-row form button")
        primary = page.locator("#table-controls .choice-row form button.primary")
        (primary if primary.count() else choices).first.click()
    # wait until the server answered: the controls region replaced, or an error shown
    page.wait_for_function(
        "el => !el.isConnected || document.querySelector('#table-error .error-msg')",
        arg=controls,
        timeout=60_000,
    )
    return True


def _play_to_the_end(pages, *, stall: float = 60.0) -> None:
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
            acted = _act(page, by_clicking=clicks % 2 == 0) or acted
            clicks += acted
        if acted:
            last_progress = time.monotonic()
        else:
            time.sleep(0.15)
    raise AssertionError(f"no page could act for {stall:.0f} s before the result")


def _fill_and_deal(page) -> None:
    fill = page.locator("#table-controls form:has(input[name=fill]) button")
    if fill.count():
        fill.click()
    _wait_or_show(page, "#table-controls form[action$='/deal/'] button")
    page.click("#table-controls form[action$='/deal/'] button")
    _wait_or_show(page, "#table-hand .hc")


def _wait_or_show(page, selector: str) -> None:
    """Wait for ``selector``; a timeout fails with what the page showed meanwhile."""
    try:
        page.wait_for_selector(selector)
    except PlaywrightTimeout as timeout:
        raise AssertionError(f"no {selector}\n{_screen_state(page)}") from timeout


def _screen_state(page) -> str:
    """What a failed wait saw: the page's frame header, status, hand, controls and error."""
    parts = [page.url]
    regions = ("#table-frame", "#table-status", "#table-hand", "#table-controls", "#table-error")
    for region in regions:
        node = page.query_selector(region)
        parts.append(f"{region}: {node.evaluate('el => el.outerHTML') if node else None}")
    return "\n".join(parts)


def _seat_places(page) -> dict:
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


class TableBrowserTests:
    def test_signup_qq5_with_bots_to_the_settlement(self, browser, server) -> None:
        page = _page(browser, server, lang="en")
        page.goto(server + "/accounts/signup/")
        page.fill("input[name=username]", "newcomer")
        page.fill("input[name=password1]", "a-Long-pass-2026")
        page.fill("input[name=password2]", "a-Long-pass-2026")
        page.click("form [type=submit]")
        page.wait_for_url(lambda url: "/signup" not in url)
        _join(page, server, "room-qq5")
        _fill_and_deal(page)
        _shot(page, "qq5-desktop-first-decision")
        _play_to_the_end([page])
        _shot(page, "qq5-desktop-settlement")
        # the player's own outcome heads the panel (whatever language his profile chose)
        assert page.locator(
            "#table-result .result-head.won, #table-result .result-head.lost"
        ).count()
        assert page.locator("#table-result a[href$='/verify/']").count()
        page.context.close()

    @pytest.mark.parametrize(("variant", "player"), [("fenzhou5", "eve"), ("classic3", "fay")])
    def test_a_hand_against_bots_to_the_settlement(self, browser, server, variant, player) -> None:
        page = _page(browser, server, lang="en")
        _login(page, server, player)
        _join(page, server, f"room-{variant}")
        _fill_and_deal(page)
        _play_to_the_end([page])
        _shot(page, f"{variant}-desktop-settlement")
        seats = 3 if variant == "classic3" else 5
        assert page.locator("#table-result .result-table tbody tr").count() == seats
        page.context.close()

    def test_new5_on_a_phone(self, browser, server) -> None:
        page = _page(browser, server, width=390, height=844)
        _login(page, server, "dan")
        _join(page, server, "room-new5")
        _fill_and_deal(page)
        _shot(page, "new5-phone-start")
        _play_to_the_end([page])
        _shot(page, "new5-phone-settlement")
        assert page.locator("#table-result .result-table tbody tr").count() == 5
        page.context.close()

    def test_three_players_classic3(self, browser, server) -> None:
        pages = []
        for name in ("ann", "ben", "cat"):
            page = _page(browser, server, lang="zh-hant" if name == "ben" else "zh-hans")
            _login(page, server, name)
            _join(page, server, "room-classic3")
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
        places = [_seat_places(p) for p in pages]
        assert sorted(place["me"] for place in places) == ["0", "1", "2"]
        for place in places:
            me = int(place["me"])
            assert place["bottom"] == place["me"] and place["marked"] == [place["me"]]
            # turn order runs counter-clockwise: the next seat sits on the right
            assert place["x"][str((me + 1) % 3)] > place["x"][str((me + 2) % 3)]
        _shot(pages[0], "classic3-three-players-bidding")
        _play_to_the_end(pages)
        for i, page in enumerate(pages):
            _shot(page, f"classic3-three-players-settlement-{i}")
            page.context.close()

    def test_the_seat_panels_a_move_sends_leave_what_a_reload_shows(self, browser, server) -> None:
        """A move's push swaps in the seat panels it changed, each by id inside #table-seats:
        after a few plays every page shows the panels a fresh load of it shows."""
        pages = []
        for name in ("dan", "eve", "fay"):
            page = _page(browser, server)
            _login(page, server, name)
            _join(page, server, "room-panels")
            pages.append(page)
        assert len({p.url for p in pages}) == 1, [p.url for p in pages]
        pages[0].reload()
        _wait_or_show(pages[0], "#table-controls form[action$='/deal/'] button")
        pages[0].click("#table-controls form[action$='/deal/'] button")
        for page in pages:
            _wait_or_show(page, "#table-hand .hc")
        plays = 0
        deadline = time.monotonic() + 120
        while plays < 4 and time.monotonic() < deadline:
            for page in pages:
                playing = page.locator("#play-form").count() > 0
                if _act(page, by_clicking=False):
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
            _wait_or_show(fresh, "#table-hand .hc")
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
        gil = _page(browser, server, lang="en")
        _login(gil, server, "gil")
        _join(gil, server, "room-between-hands")
        table_url = gil.url
        _fill_and_deal(gil)
        _play_to_the_end([gil])
        gil.click("#table-result form[action$='/leave/'] button")
        gil.wait_for_function(
            "() => !document.querySelector('#table-result form[action$=\"/leave/\"]')"
        )
        hal = _page(browser, server, lang="en")
        _login(hal, server, "hal")
        _join(hal, server, "room-between-hands")
        assert hal.url == table_url
        hal.wait_for_selector("#table-controls form[action$='/deal/'] button")
        assert not hal.get_by_text("You are watching this table").count()
        assert hal.locator("#table-controls form[action$='/leave/'] button").count()
        # the result on the table names who played it, not who sits there now
        played = hal.locator("#table-result .result-table").inner_text()
        assert "gil" in played and "hal" not in played
        _shot(hal, "classic3-joined-between-hands")
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
