"""The table's layout and look at a fresh turn (issue #34 items 1, 6, 7, 8).

The whole hand in view: at every screen size of the issue, and on phones on their side and in
short windows, for each big hand of the variants, every card's corner index is uncovered (a tap
there hits that card) and no card is under the controls or off an edge; Play/Pass/Hint, the
trick, the seats, the bottom cards and a qq5 landlord's view of his partner's hand are in view
and above the controls, with no scrolling; so is the hand of a fenzhou5 landlord calling a card.
Then the hand's order (by rank or by count, kept), every text's contrast in the light and the
dark theme, the effect of a bomb (none moving under reduced motion, no sound before a
gesture), and every effect's word on a phone (the page never wider than the screen).

The hands are dealt through the services (all-human managed tables, decisions taken for the
players until the wanted seat's turn to play), and each page is looked at in every size. Run
apart: ``pytest -m browser -p no:asyncio``."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.browser.conftest import Served
from tests.browser.pages import (
    CONTRAST_RATIO,
    PASSWORD,
    click_cards,
    login,
    open_page,
    resize,
    shot,
    wider_than_the_screen,
)

SIZES = [
    # phones upright; the short ones are also what a browser's bars leave of a taller phone
    # (375x553: Safari's on a 375x667 iPhone)
    (375, 553),
    (360, 560),
    (360, 640),
    (375, 667),
    (360, 740),
    (390, 844),
    (412, 915),
    (768, 1024),
    (1280, 800),
    (1366, 768),
    (1440, 900),
    (1920, 1080),
    # phones on their side, and short windows: the stage laid out for the height
    (640, 360),
    (667, 375),
    (740, 360),
    (844, 390),
    (1024, 600),
    (1280, 720),
]

# scenario: (variant, the hand size wanted, whose turn: the landlord's lead or the next seat's)
HANDS = {
    "new5-landlord": ("new5", 38, "landlord"),
    "fenzhou5-landlord": ("fenzhou5", 24, "landlord"),
    "new5-farmer": ("new5", 31, "next"),
    "classic3-landlord": ("classic3", 20, "landlord"),
    "qq5-landlord": ("qq5", 24, "landlord"),
}
# a turn of choices, not plays: a fenzhou5 landlord calling a card (one per card he holds but
# 2s and jokers: 22 here)
CHOICES = {"fenzhou5-call": ("fenzhou5", 24, "call")}

SETUP = f"""
import json
from accounts.services import beans_grant
from club.services.player_settings import player_guide_seen
from django.contrib.auth import get_user_model
from games import services
from games.engine.hand import autoplay_action, legal_actions, waiting_seats
from games.reads.selectors import hand_state
User = get_user_model()
HANDS = {{**{HANDS!r}, **{CHOICES!r}}}
out = {{}}
for name, (variant, size, whose) in HANDS.items():
    room = services.room_create(
        name="layout-" + name, variant=variant, turn_seconds=3600, bid_seconds=3600,
        step_min_seconds=0,
    )
    seats = 3 if variant == "classic3" else 5
    users = []
    for i in range(seats):
        user = User.objects.create_user(username=f"{{name}}-{{i}}", password={PASSWORD!r})
        beans_grant(user=user, amount=100000)
        player_guide_seen(user=user)  # the first-hand guide's box would lie over the table
        users.append(user)
    for attempt in range(40):
        seed = f"layout-{{name}}-{{attempt}}"
        hand = services.table_deal_for(room=room, players=users, seed=seed)
        state = hand_state(hand)
        while not state.finished and state.phase not in ("play", whose):
            seat = waiting_seats(state)[0]
            choices = legal_actions(state, seat)
            # the most: reveal the partner, bid 3, grab, call a friend
            preferred = [a for a in choices if a.value is True or a.value == 3]
            action = (preferred or choices)[0].to_json()
            action.pop("seat")
            hand = services.hand_submit_action(
                hand_id=hand.pk, user=users[seat], action=action, expected_version=hand.version
            )
            state = hand_state(hand)
        if state.finished:
            continue  # a new5 auto-win: deal again
        if whose == "next":
            lead = autoplay_action(state, state.turn).to_json()
            lead.pop("seat")
            hand = services.hand_submit_action(
                hand_id=hand.pk, user=users[state.turn], action=lead,
                expected_version=hand.version,
            )
            state = hand_state(hand)
        seat = waiting_seats(state)[0]
        if len(state.hands[seat]) == size:
            out[name] = [hand.table_id, users[seat].username]
            break
    else:
        raise SystemExit("no deal for " + name)
print("HANDS", json.dumps(out))
"""


@pytest.fixture(scope="module")
def hands(databases) -> Iterator[tuple[str, dict[str, list]]]:
    """The server's base URL, and per scenario the table and the user whose turn it is. A
    page closed is no 托管 here: each turn waits for the next test's page."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DDZ_DISCONNECT_GRACE_SECONDS", "3600")
        served = Served(databases, SETUP)
    try:
        yield served.base, json.loads(served.printed.split("HANDS")[-1])
    finally:
        served.stop()


# What the player would miss at this size, without scrolling: a card whose index a tap does not
# reach, a card under the controls or off an edge, a control, the trick, a seat or a row of
# cards out of sight.
MISSING = """() => {
    const W = innerWidth, H = innerHeight, bad = [];
    const inView = (r) => r.width > 0 && r.height > 0 && r.left >= -0.5 && r.top >= -0.5
        && r.right <= W + 0.5 && r.bottom <= H + 0.5;
    const hits = (el, x, y) => {
        const h = document.elementFromPoint(x, y);
        return !!h && el.contains(h);
    };
    const centre = (el, box) => {
        const r = el.getBoundingClientRect();
        return hits(box || el, r.left + r.width / 2, r.top + r.height / 2);
    };
    const controls = document.querySelector('#table-controls').getBoundingClientRect();
    const cards = [...document.querySelectorAll('#table-hand .hc')];
    cards.forEach((card) => {
        const r = card.getBoundingClientRect(), key = card.dataset.key;
        if (!inView(r)) { bad.push(key + ' off screen'); return; }
        if (r.bottom > controls.top + 0.5 && r.top < controls.bottom) {
            bad.push(key + ' under the controls');
        }
        for (const part of card.querySelectorAll('pc-r, pc-s')) {
            if (!centre(part, card)) bad.push(key + ' index covered');
        }
    });
    for (const sel of ['#play-btn', '#pass-form button', '#hint-btn']) {
        // a disabled button lets a tap through to its form
        const el = document.querySelector(sel);
        if (!el || !inView(el.getBoundingClientRect()) || !centre(el, el.closest('form') || el)) {
            bad.push(sel);
        }
    }
    const parts = '#table-trick, #table-seats .seat, #table-status .mini-row, '
        + '.own-bottom, .partner-hand';
    for (const el of document.querySelectorAll(parts)) {
        if (!el.getClientRects().length) continue;  // not shown at this size
        const r = el.getBoundingClientRect(), name = el.id || el.className;
        if (!inView(r)) bad.push(name + ' out of view');
        else if (r.bottom > controls.top + 0.5) bad.push(name + ' under the controls');
    }
    if (scrollY !== 0 || document.documentElement.scrollWidth > W) bad.push('scrolled');
    return {bad, cards: cards.length};
}"""

# the probe sees a card whose index something covers
COVER_AN_INDEX = """() => {
    const r = document.querySelector('#table-hand .hc pc-r').getBoundingClientRect();
    const lid = document.createElement('div');
    lid.style.cssText = `position: fixed; z-index: 99; left: ${r.left}px; top: ${r.top}px; `
        + `width: ${r.width}px; height: ${r.height}px; background: #000`;
    document.body.append(lid);
}"""


@pytest.mark.parametrize("lang", ["zh-hans", "en"])  # English's words are the wider
@pytest.mark.parametrize("name", list(HANDS))
def test_the_whole_hand_is_in_view_at_every_size(browser, hands, name, lang) -> None:
    page = _open(browser, hands, name, width=SIZES[0][0], height=SIZES[0][1], lang=lang)
    failures = {}
    for width, height in SIZES:
        resize(page, width, height)
        page.evaluate("() => window.scrollTo(0, 0)")
        seen = page.evaluate(MISSING)
        assert seen["cards"] == HANDS[name][1], seen
        if seen["bad"]:
            failures[f"{width}x{height}"] = [*seen["bad"][:6], f"({len(seen['bad'])})"]
        shot(page, f"layout-{name}-{lang}-{width}x{height}")
    assert failures == {}
    page.evaluate(COVER_AN_INDEX)
    assert any("index covered" in bad for bad in page.evaluate(MISSING)["bad"])
    page.context.close()


@pytest.mark.parametrize("name", list(HANDS))
def test_a_320_px_phone_shows_the_table_no_wider_than_the_screen(browser, hands, name) -> None:
    """Below the sizes of the issue: the whole hand may not be above the controls there, but
    nothing makes the page scroll sideways (the table's bar, in English, its longest)."""
    page = _open(browser, hands, name, width=320, height=640, lang="en")
    shot(page, f"layout-{name}-320x640")
    assert wider_than_the_screen(page) == []
    assert page.evaluate(
        "() => document.querySelector('.table-tools').getBoundingClientRect().right <= innerWidth"
    )
    page.context.close()


@pytest.mark.parametrize("width,height", [(667, 375), (740, 360)])
def test_a_card_to_call_on_a_phone_on_its_side_scrolls_in_its_row(
    browser, hands, width, height
) -> None:
    """Twenty-two cards to call are wider than a phone on its side: their row scrolls sideways,
    the page does not, and the hand stays above the controls."""
    page = _open(browser, hands, "fenzhou5-call", width=width, height=height, ready=".pick")
    shot(page, f"layout-fenzhou5-call-{width}x{height}")
    assert wider_than_the_screen(page) == []
    assert _missing_on_a_turn_of_choices(page) == []
    assert page.locator("#table-controls .card-picker .pick").count() > 10
    # found, scrolled to and measured in one step: a push (another test's page leaving the
    # table) may replace the controls between two steps
    assert page.evaluate(
        """() => {
            const pick = [...document.querySelectorAll('.card-picker .pick')].pop();
            pick.scrollIntoView({behavior: 'instant', block: 'nearest', inline: 'nearest'});
            const r = pick.getBoundingClientRect();
            return r.left >= 0 && r.right <= innerWidth && scrollX === 0;
        }"""
    )
    page.context.close()


def test_a_card_to_call_on_an_upright_phone_leaves_the_hand_in_view(browser, hands) -> None:
    """The cards to call take two rows under their prompt, not four beside it: the hand is
    above them on every upright phone."""
    page = _open(browser, hands, "fenzhou5-call", width=375, height=667, ready=".pick")
    failures = {}
    for width, height in [size for size in SIZES if size[0] < 640 and size[1] > size[0]]:
        resize(page, width, height)
        bad = _missing_on_a_turn_of_choices(page)
        if bad:
            failures[f"{width}x{height}"] = [*bad[:4], f"({len(bad)})"]
        shot(page, f"layout-fenzhou5-call-{width}x{height}")
    assert failures == {}
    page.context.close()


def _missing_on_a_turn_of_choices(page) -> list[str]:
    """What MISSING finds but the play buttons, which a turn of choices does not have."""
    return [bad for bad in page.evaluate(MISSING)["bad"] if not bad.startswith("#")]


def _open(
    browser,
    hands,
    name: str,
    *,
    width: int = 1280,
    height: int = 800,
    init: str = "",
    lang: str = "zh-hans",
    ready: str = "#play-form",
):
    base, tables = hands
    table, user = tables[name]
    page = open_page(browser, base, width=width, height=height, lang=lang)
    if init:
        page.add_init_script(init)
    login(page, base, user)
    page.goto(f"{base}/table/{table}/")
    page.wait_for_selector(f"#table-controls[data-my-turn='1'] {ready}")
    return page


RANKS = "3456789TJQKA2"


def _ranks(page) -> list[str]:
    codes = page.eval_on_selector_all("#table-hand .hc", "cs => cs.map((c) => c.dataset.card)")
    return [c if c in ("SJ", "BJ") else c[:-1] for c in codes]


def _order(rank: str) -> int:
    return RANKS.index(rank) if rank in RANKS else len(RANKS) + (rank == "BJ")


def test_the_hand_sorts_by_rank_or_by_count_and_keeps_the_choice(browser, hands) -> None:
    page = _open(browser, hands, "classic3-landlord")
    by_rank = _ranks(page)
    assert by_rank == sorted(by_rank, key=_order)
    page.click("#table-view summary")
    page.check("input[name=ddz-sort][value=count]")
    page.wait_for_selector("#table-hand .hand[data-sort=count]")

    def grouped() -> None:
        ranks = _ranks(page)
        assert sorted(ranks, key=_order) == sorted(by_rank, key=_order)  # the same cards
        counts = [ranks.count(r) if r not in ("SJ", "BJ") else None for r in ranks]
        jokers_apart = [c for c in counts if c is not None]
        assert jokers_apart == sorted(jokers_apart, reverse=True), ranks
        assert ranks != by_rank and max(jokers_apart) >= 2

    grouped()
    page.reload()  # kept in this browser
    page.wait_for_selector("#table-hand .hand[data-sort=count]")
    grouped()
    page.click("#table-view summary")
    assert page.is_checked("input[name=ddz-sort][value=count]")
    page.check("input[name=ddz-sort][value=rank]")
    page.wait_for_selector("#table-hand .hand[data-sort=rank]")
    assert _ranks(page) == by_rank
    page.context.close()


# Every text of the table (and the site's bar) against what is painted under it: its own and
# its ancestors' backgrounds down to the first opaque one, each colour stop of a gradient taken
# apart; WCAG 2 AA, 3:1 for large text. Disabled controls and hidden text are exempt.
TEXT_CONTRAST = (
    """() => {
    const colours = (s) => (s.match(/rgba?\\([^)]*\\)/g) || []).map((c) => {
        const v = c.match(/[\\d.]+/g).map(Number);
        return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1];
    });
    const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3]))
        .concat([1]);
"""
    + CONTRAST_RATIO
    + """    const grounds = (el) => {
        const layers = [];
        for (let e = el; e; e = e.parentElement) {
            const st = getComputedStyle(e);
            const found = colours(st.backgroundImage).concat(colours(st.backgroundColor))
                .filter((c) => c[3] > 0);
            if (!found.length) continue;
            layers.push(found);
            if (found.every((c) => c[3] >= 1)) break;
        }
        let under = [[255, 255, 255, 1]];
        for (const layer of layers.reverse()) {
            under = under.flatMap((u) => layer.map((c) => over(c, u)));
        }
        return under;
    };
    const bad = [], seen = [];
    const texts = document.querySelectorAll('.topbar *, #table-root *');
    for (const el of texts) {
        const own = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.data).join('')
            .trim();
        if (!own || !el.getClientRects().length) continue;
        if (el.closest('.visually-hidden, [hidden], :disabled, .disabled, [aria-hidden=true]')) {
            continue;
        }
        const st = getComputedStyle(el);
        if (st.visibility !== 'visible') continue;
        let alpha = 1;
        for (let e = el; e; e = e.parentElement) alpha *= Number(getComputedStyle(e).opacity);
        const ink = colours(st.color)[0];
        ink[3] *= alpha;
        const size = parseFloat(st.fontSize), bold = Number(st.fontWeight) >= 700;
        const min = size >= 24 || (size >= 18.66 && bold) ? 3 : 4.5;
        seen.push(own);
        for (const ground of grounds(el)) {
            const r = ratio(over(ink, ground), ground);
            if (r < min) bad.push(`${own.slice(0, 20)} ${r.toFixed(2)} < ${min}`);
        }
    }
    return {bad: [...new Set(bad)], seen};
}"""
)

# a seat's 报牌 tag, as table.css paints it (no seat here is down to two cards)
REPORT_TAG = """() => {
    const idle = '#table-seats .seat:not(:has(.seat-play.acting))';
    const badges = document.querySelector(idle + ' .seat-badges');
    if (!badges.querySelector('.report')) {
        badges.insertAdjacentHTML('beforeend', '<span class="tag report">剩 2 张!</span>');
    }
}"""


def test_every_text_passes_aa_in_the_light_and_the_dark_theme(browser, hands) -> None:
    page = _open(browser, hands, "fenzhou5-landlord")
    page.click("#table-view summary")  # the view settings' texts too
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)  # the system's choice, followed
        page.wait_for_function("s => document.documentElement.dataset.theme === s", arg=scheme)
        for width, height in ((1280, 800), (390, 844)):
            resize(page, width, height)
            page.evaluate(REPORT_TAG)  # again: a push may have replaced the seat's panel
            found = page.evaluate(TEXT_CONTRAST)
            shot(page, f"look-{scheme}-{width}x{height}")
            assert found["bad"] == [], (scheme, width)
            assert "剩 2 张!" in found["seen"] and "新一轮" in found["seen"]
    # the player's choice overrides the system's, and is kept
    page.check("input[name=ddz-theme][value=light]")
    assert page.get_attribute("html", "data-theme") == "light"
    page.reload()
    assert page.get_attribute("html", "data-theme") == "light"
    page.emulate_media(color_scheme="light")
    page.click("#table-view summary")
    page.check("input[name=ddz-theme][value=dark]")
    assert page.get_attribute("html", "data-theme") == "dark"
    # the probe finds a faded text
    page.evaluate(
        """() => document.querySelector('.table-title').insertAdjacentHTML(
            'beforeend', '<span style="color: #555">faded</span>')"""
    )
    assert page.evaluate(TEXT_CONTRAST)["bad"]
    page.context.close()


def _play_a_bomb(page) -> None:
    ranks = _ranks(page)
    bomb = next(r for r in dict.fromkeys(ranks) if r not in ("SJ", "BJ") and ranks.count(r) >= 4)
    codes = page.eval_on_selector_all("#table-hand .hc", "cs => cs.map((c) => c.dataset.card)")
    click_cards(page, [c for c in codes if c[:-1] == bomb][:4])
    page.click("#play-btn")


ANIMATIONS = "() => document.getAnimations().map((a) => a.effect.target.className)"
# Headless Chromium lets audio start without a gesture and never warns: count the contexts made
AUDIO_CONTEXTS = """
window.audioContexts = 0;
const Made = window.AudioContext;
window.AudioContext = function (...args) { window.audioContexts += 1; return new Made(...args); };
"""


def test_a_bomb_shows_its_effect_still_under_reduced_motion_and_sounds_after_a_gesture(
    browser, hands
) -> None:
    warnings: list[str] = []
    page = _open(browser, hands, "new5-landlord", init=AUDIO_CONTEXTS)
    page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
    page.wait_for_function("() => window.ddzClubSounds")  # its turn's sound was asked for
    assert page.evaluate("() => window.audioContexts") == 0
    _play_a_bomb(page)
    page.wait_for_selector("#table-effect.fx-bomb")
    shot(page, "effect-bomb")
    assert any("fx-bomb" in name for name in page.evaluate(ANIMATIONS))
    assert page.evaluate("() => window.audioContexts") == 1  # after the clicks: sound on
    page.context.close()
    # the next seat beats it with a bomb of its own, with the system asking for less motion
    page = _open(browser, hands, "new5-farmer")
    page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
    page.emulate_media(reduced_motion="reduce")
    _play_a_bomb(page)
    page.wait_for_selector("#table-effect.fx-bomb")
    assert page.evaluate(ANIMATIONS) == []
    page.context.close()
    assert not [w for w in warnings if "AudioContext" in w], warnings


# Each effect with its longest words, run frame by frame (paused, then stepped through): the
# page never grows sideways (a plane flies in from the left and out to the right), and at rest
# the whole word is on screen.
EFFECT_FRAMES = """([kind, label]) => {
    const box = document.getElementById('table-effect');
    box.textContent = label;
    box.className = 'table-effect fx-' + kind;
    const [run] = box.getAnimations();
    run.pause();
    const total = run.effect.getComputedTiming().duration;
    const bad = [];
    for (let step = 0; step <= 10; step++) {
        run.currentTime = total * step / 10;
        const wide = document.documentElement.scrollWidth;
        if (wide > innerWidth) bad.push(`${kind} at ${step}/10: the page is ${wide}px wide`);
    }
    box.style.animation = 'none';  // its box at rest, neither grown nor flown
    const r = box.getBoundingClientRect();
    box.style.animation = '';
    if (r.left < 0 || r.right > innerWidth) bad.push(`${kind}: its word at ${r.left}..${r.right}`);
    box.className = 'table-effect';
    box.textContent = '';
    return bad;
}"""
EFFECT_WORDS = {
    "en": [
        ("plane", "Plane with singles"),
        ("chain", "Multi-chain bomb"),
        ("bomb", "Joker bomb"),
        ("rocket", "Rocket"),
        ("spring", "Anti-spring"),
    ],
    "zh-hans": [("plane", "飞机带单张"), ("chain", "多连炸"), ("spring", "反春")],
}


@pytest.mark.parametrize("lang", list(EFFECT_WORDS))
def test_an_effect_never_widens_a_phone_page_and_shows_its_whole_word(browser, hands, lang) -> None:
    page = _open(browser, hands, "qq5-landlord", width=360, height=740, lang=lang)
    bad = []
    for width in (360, 390, 1280):
        resize(page, width, 844)
        for kind, label in EFFECT_WORDS[lang]:
            bad += [f"{width}px {found}" for found in page.evaluate(EFFECT_FRAMES, [kind, label])]
    assert bad == []
    page.context.close()
