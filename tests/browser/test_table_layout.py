"""The whole hand in view at a fresh turn (issue #34 item 1): at every screen size of the
issue, for each big hand of the variants, every card's corner index is uncovered (a tap there
hits that card) and no card is under the controls or off an edge; Play/Pass/Hint, the trick,
the seats, the bottom cards and a qq5 landlord's view of his partner's hand are in view, with
no scrolling. The hands are dealt through the services (all-human managed tables, decisions
taken for the players until the wanted seat's turn to play), then one page per hand is looked
at in every size. Run apart: ``pytest -m browser -p no:asyncio``."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.browser.conftest import Served
from tests.browser.pages import PASSWORD, login, open_page, shot

SIZES = [
    (360, 740),
    (390, 844),
    (412, 915),
    (768, 1024),
    (1280, 800),
    (1366, 768),
    (1440, 900),
    (1920, 1080),
]

# scenario: (variant, the hand size wanted, whose turn: the landlord's lead or the next seat's)
HANDS = {
    "new5-landlord": ("new5", 38, "landlord"),
    "fenzhou5-landlord": ("fenzhou5", 24, "landlord"),
    "new5-farmer": ("new5", 31, "next"),
    "classic3-landlord": ("classic3", 20, "landlord"),
    "qq5-landlord": ("qq5", 24, "landlord"),
}

SETUP = f"""
import json
from accounts.services import beans_grant
from django.contrib.auth import get_user_model
from games import services
from games.engine.hand import autoplay_action, legal_actions, waiting_seats
from games.reads.selectors import hand_state
User = get_user_model()
HANDS = {HANDS!r}
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
        users.append(user)
    for attempt in range(40):
        seed = f"layout-{{name}}-{{attempt}}"
        hand = services.table_deal_for(room=room, players=users, seed=seed)
        state = hand_state(hand)
        while not state.finished and state.phase != "play":
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
        if len(state.hands[state.turn]) == size:
            out[name] = [hand.table_id, users[state.turn].username]
            break
    else:
        raise SystemExit("no deal for " + name)
print("HANDS", json.dumps(out))
"""


@pytest.fixture(scope="module")
def hands(databases) -> Iterator[tuple[str, dict[str, list]]]:
    """The server's base URL, and per scenario the table and the user whose turn it is."""
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
        for (const part of card.querySelectorAll('.pc-r, .pc-s')) {
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
        if (!inView(el.getBoundingClientRect())) bad.push((el.id || el.className) + ' out of view');
    }
    if (scrollY !== 0 || document.documentElement.scrollWidth > W) bad.push('scrolled');
    return {bad, cards: cards.length};
}"""

# the probe sees a card whose index something covers
COVER_AN_INDEX = """() => {
    const r = document.querySelector('#table-hand .hc .pc-r').getBoundingClientRect();
    const lid = document.createElement('div');
    lid.style.cssText = `position: fixed; z-index: 99; left: ${r.left}px; top: ${r.top}px; `
        + `width: ${r.width}px; height: ${r.height}px; background: #000`;
    document.body.append(lid);
}"""


@pytest.mark.parametrize("name", list(HANDS))
def test_the_whole_hand_is_in_view_at_every_size(browser, hands, name) -> None:
    base, tables = hands
    table, user = tables[name]
    page = open_page(browser, base, width=SIZES[0][0], height=SIZES[0][1], lang="zh-hans")
    login(page, base, user)
    page.goto(f"{base}/table/{table}/")
    page.wait_for_selector("#table-controls[data-my-turn='1'] #play-form")
    failures = {}
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("() => window.scrollTo(0, 0)")
        seen = page.evaluate(MISSING)
        assert seen["cards"] == HANDS[name][1], seen
        if seen["bad"]:
            failures[f"{width}x{height}"] = [*seen["bad"][:6], f"({len(seen['bad'])})"]
        shot(page, f"layout-{name}-{width}x{height}")
    assert failures == {}
    page.evaluate(COVER_AN_INDEX)
    assert any("index covered" in bad for bad in page.evaluate(MISSING)["bad"])
    page.context.close()
