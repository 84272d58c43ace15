"""The table screen rendered straight from engine states: every region for every audience,
and no card or role in the HTML that the audience's view does not allow."""

from __future__ import annotations

import datetime
import html
import json
import re
from collections import Counter
from typing import Any

import pytest
from django.utils import translation

from games.engine.cards import format_cards
from games.engine.hand import waiting_seats
from games.engine.state import HandState
from games.engine.views import public_view, view_for
from games.screen import context, regions, seen
from tests.support.scenarios import scenarios, seat_infos

CARD_ATTR = re.compile(r'data-c(?:ard)?="([^"]+)"')
VALUE_ATTR = re.compile(r'name="(?:value|cards)" value="([^"]*)"')
HINTS_ATTR = re.compile(r'data-hints="([^"]*)"')

SCENARIOS = scenarios()
NOW = datetime.datetime(2026, 11, 29, 12, 0, tzinfo=datetime.UTC)


def _tokens(text: str | None) -> list[str]:
    return text.split() if text else []


def allowed_cards(view: dict[str, Any]) -> set[str]:
    """Every card identity the view itself names (docs/rules.md §2.6: views.py lists these keys)."""
    out: set[str] = set()
    if view.get("finished"):
        return {"*"}  # the whole record is public once the hand is over
    for key in ("hand", "partner_hand", "shown_hand", "bottom", "marked_card"):
        out.update(_tokens(view.get(key)))
    if view.get("face_up"):
        out.add(view["face_up"]["card"])
    for grab in view.get("grabs") or []:
        out.update(_tokens(grab["card"]))
    for play in view.get("plays") or []:
        out.update(_tokens(play["cards"]))
    for entry in view.get("trick") or []:
        out.update(_tokens(entry["cards"]))
    if view.get("top"):
        out.update(_tokens(view["top"]["cards"]))
    for choice in view.get("choices") or []:
        value = choice.get("value")
        if isinstance(value, str):
            out.update(_tokens(value))
    return out


def rendered_cards(page: str) -> list[str]:
    found = CARD_ATTR.findall(page)
    for value in VALUE_ATTR.findall(page):
        found.extend(value.split())
    for raw in HINTS_ATTR.findall(page):
        for play in json.loads(html.unescape(raw)):
            found.extend(play.split())
    return [f for f in found if re.fullmatch(r"[2-9TJQKA][shcd]|SJ|BJ", f)]


def render(state: HandState, seat: int | None) -> tuple[dict[str, Any], str]:
    ctx = _context(state, seat)
    return ctx["view"], regions.render_regions(ctx)


def _context(state: HandState, seat: int | None) -> dict[str, Any]:
    view = view_for(state, seat) if seat is not None else public_view(state)
    ctx = context.screen_context(
        view=view,
        seats=seat_infos(state.seats),
        state=state,
        table_id=1,
        hand_id=1,
        hand_number=1,
        version=len(state.history),
        commitment="ab" * 32,
        seed="cd" * 32,
        now=NOW,  # as in a push: one clock reading for every audience
    )
    ctx.update({"seated": seat is not None})
    return ctx


def audiences(state: HandState) -> list[int | None]:
    return [*range(state.seats), None]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
class RenderingLeakTests:
    def test_every_card_shown_is_allowed_by_the_view(self, name: str) -> None:
        state = SCENARIOS[name]
        for seat in audiences(state):
            view, page = render(state, seat)
            shown = set(rendered_cards(page))
            allowed = allowed_cards(view)
            extra = set() if allowed == {"*"} else shown - allowed
            assert not extra, f"{name} seat {seat}: {sorted(extra)} not in its view"

    def test_own_hand_is_shown_exactly(self, name: str) -> None:
        state = SCENARIOS[name]
        for seat in range(state.seats):
            _view, page = render(state, seat)
            hand = re.findall(r'class="pc hc[^"]*" data-card="([^"]+)"', page)
            assert Counter(hand) == Counter(format_cards(state.hands[seat]).split())

    def test_no_other_seat_hand_leaks(self, name: str) -> None:
        """Cards only another seat holds (and nobody's view names) never appear."""
        state = SCENARIOS[name]
        if state.finished:
            return
        for seat in audiences(state):
            view, page = render(state, seat)
            shown = Counter(rendered_cards(page))
            mine = Counter(_tokens(view.get("hand"))) + Counter(_tokens(view.get("partner_hand")))
            for other in range(state.seats):
                if other == seat:
                    continue
                secret = Counter(format_cards(state.hands[other]).split()) - mine
                for code in secret:
                    if code not in allowed_cards(view):
                        assert code not in shown, f"{name}: seat {other}'s {code} shown to {seat}"

    def test_regions_have_stable_ids_and_swap_out_of_band(self, name: str) -> None:
        state = SCENARIOS[name]
        _view, page = render(state, 0)
        for region in ("status", "seats", "trick", "hand", "controls", "result"):
            assert re.search(rf'<div id="table-{region}"[^>]*hx-swap-oob="true"', page), region


class HiddenRoleTests:
    def test_qq5_hidden_landlord_is_secret_until_revealed(self) -> None:
        state = SCENARIOS["qq5-play-hidden"]
        partner = state.partner
        if partner is None or state.revealed:
            pytest.skip("this deal has no hidden partner at that point")
        with translation.override("en"):
            _v, public = render(state, None)
            assert "Hidden landlord" not in public
            for seat in range(state.seats):
                _v, page = render(state, seat)
                assert ("Hidden landlord" in page) == (seat == partner), seat

    def test_fenzhou5_henchman_is_secret(self) -> None:
        state = SCENARIOS["fenzhou5-play"]
        if state.revealed or state.partner is None:
            pytest.skip("revealed already")
        with translation.override("en"):
            _v, public = render(state, None)
            assert "Henchman" not in public
            _v, own = render(state, state.partner)
            assert "Henchman" in own


class ControlsTests:
    def _controls(self, state: HandState, seat: int) -> str:
        with translation.override("en"):
            _v, page = render(state, seat)
        return page[page.index('id="table-controls"') : page.index('id="table-result"')]

    def test_classic3_bid_buttons(self) -> None:
        state = SCENARIOS["classic3-bid"]
        controls = self._controls(state, waiting_seats(state)[0])
        assert "No bid" in controls and "3 points" in controls and "1 point<" in controls
        assert controls.count("ws-send") == 4 + 1  # four bids and the 托管 toggle
        # the page sends the status region's version with each move; the forms stay the same
        # from one version to the next
        assert 'name="version"' not in controls
        with translation.override("en"):
            _v, page = render(state, waiting_seats(state)[0])
        assert re.search(r'id="table-clock"[^>]*data-version="0"', page)

    def test_qq5_reveal_and_double(self) -> None:
        state = SCENARIOS["qq5-reveal"]
        controls = self._controls(state, waiting_seats(state)[0])
        assert "Reveal identity" in controls and "Give up" in controls
        state = SCENARIOS["qq5-double"]
        controls = self._controls(state, waiting_seats(state)[0])
        assert "Don&#x27;t double" in controls or "Don't double" in controls

    def test_classic3_follow_double(self) -> None:
        state = SCENARIOS["classic3-double"]
        seat = waiting_seats(state)[0]
        from games.engine.hand import apply
        from games.engine.state import Action

        after = apply(state, Action(seat, "double", True))
        if after.phase != "double":
            pytest.skip("only one farmer may double here")
        controls = self._controls(after, waiting_seats(after)[0])
        assert "Follow the double" in controls

    def test_new5_grab_and_partner(self) -> None:
        state = SCENARIOS["new5-grab"]
        controls = self._controls(state, waiting_seats(state)[0])
        assert "No grab" in controls
        if "new5-partner" in SCENARIOS:
            state = SCENARIOS["new5-partner"]
            controls = self._controls(state, state.turn)
            assert "Open solo" in controls

    def test_fenzhou5_card_picker(self) -> None:
        state = SCENARIOS["fenzhou5-call"]
        controls = self._controls(state, state.turn)
        assert "card-picker" in controls and 'name="act" value="call"' in controls
        values = re.findall(r'name="value" value="([^"]+)"', controls)
        assert len(values) == len(set(values)) > 0

    def test_play_controls_with_hints(self) -> None:
        state = SCENARIOS["classic3-play"]
        seat = waiting_seats(state)[0]
        _v, page = render(state, seat)
        assert 'id="play-form"' in page and 'id="hint-btn"' in page
        raw = HINTS_ATTR.search(page)
        assert raw and json.loads(html.unescape(raw.group(1)))

    def test_spectator_has_no_controls(self) -> None:
        state = SCENARIOS["classic3-play"]
        _v, page = render(state, None)
        assert "ws-send" not in page

    def test_result_panel(self) -> None:
        state = SCENARIOS["classic3-finished"]
        with translation.override("en"):
            _v, page = render(state, 0)
        assert "result-panel" in page and "House" in page
        left = [c for hand in state.hands for c in format_cards(hand).split()]
        assert left and all(f'data-c="{c}"' in page for c in left)  # everyone's last cards
        assert "cd" * 32 in page  # the seed once the hand is over


@pytest.mark.parametrize("lang", ["zh-hans", "zh-hant", "en"])
def test_regions_render_in_every_language(lang: str) -> None:
    with translation.override(lang):
        for name in ("qq5-play", "new5-grab", "classic3-bid", "fenzhou5-call"):
            state = SCENARIOS[name]
            _v, page = render(state, waiting_seats(state)[0])
            assert 'id="table-controls"' in page


def test_render_error_is_an_oob_partial() -> None:
    out = regions.render_error(message="<b>nope</b>")
    assert 'id="table-error"' in out and 'hx-swap-oob="true"' in out
    assert "&lt;b&gt;nope" in out


def _region(page: str, name: str) -> str:
    start = page.index(f'<div id="table-{name}"')
    end = page.find('<div id="table-', start + 1)
    return page[start : end if end >= 0 else None]


@pytest.mark.parametrize("name", ["classic3-bid", "classic3-play", "qq5-finished", "new5-finished"])
def test_audiences_that_know_the_same_get_the_same_seat_panels(name: str) -> None:
    """Public roles (or a finished hand): one rendering of the seats serves every viewer;
    the page places them, and marks his own, from his hand region."""
    state = SCENARIOS[name]
    regions = {_region(render(state, seat)[1], "seats") for seat in audiences(state)}
    assert len(regions) == 1
    panels = re.findall(r'<section class="seat[^"]*" data-seat="(\d)"', regions.pop())
    assert panels == [str(seat) for seat in range(state.seats)]


def test_the_hand_region_names_its_viewer() -> None:
    state = SCENARIOS["qq5-play"]
    for seat in audiences(state):
        hand = _region(render(state, seat)[1], "hand")
        pov = re.search(r'data-pov="(\d)"', hand)
        me = re.search(r'data-me="(\d)"', hand)
        assert pov is not None and pov.group(1) == str(seat or 0)
        assert (me.group(1) if me else None) == (None if seat is None else str(seat))


def test_a_hidden_partner_hand_sends_one_seats_rendering_to_all_who_do_not_know_him() -> None:
    state = SCENARIOS["qq5-play-hidden"]
    partner = state.partner
    if partner is None or state.revealed:
        pytest.skip("this deal has no hidden partner at that point")
    with translation.override("en"):
        pages = {seat: render(state, seat)[1] for seat in audiences(state)}
    unaware = {_region(page, "seats") for seat, page in pages.items() if seat != partner}
    assert len(unaware) == 1
    assert _region(pages[partner], "seats") not in unaware
    # each seat reads its own role in its hand region
    for seat in range(state.seats):
        hand = _region(pages[seat], "hand")
        own = "Open landlord" if seat == state.landlord else "Farmer"
        assert (own if seat != partner else "Hidden landlord") in hand, seat


@pytest.mark.parametrize("name", ["qq5-play", "new5-play", "classic3-play", "fenzhou5-play"])
def test_every_viewer_gets_the_same_status_and_a_private_bottom_stays_in_its_hand(
    name: str,
) -> None:
    state = SCENARIOS[name]
    pages = {seat: render(state, seat)[1] for seat in audiences(state)}
    assert len({_region(page, "status") for page in pages.values()}) == 1
    landlord = view_for(state, state.landlord)
    private = landlord.get("bottom") if "bottom" not in public_view(state) else None
    landlord_hand = _region(pages[state.landlord], "hand")
    for code in _tokens(private):
        assert f'data-c="{code}"' in landlord_hand


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_a_push_renders_what_the_page_renders(name: str) -> None:
    """A push's regions (memo, language named in the context, numbers unlocalised) are the
    page's own renderings of them, for every audience."""
    state = SCENARIOS[name]
    for seat in audiences(state):
        for lang in ("zh-hans", "en"):
            with translation.override(lang):
                _view, page = render(state, seat)
                ctx = _context(state, seat)
                assert regions.render_regions_shared([ctx]) == [page], (seat, lang)


@pytest.mark.parametrize(
    ("cards", "word"), [("BJ BJ", "对大王"), ("SJ SJ", "对小王"), ("SJ SJ BJ BJ", "核弹")]
)
def test_fenzhou5_names_its_joker_bombs_in_its_own_words(cards: str, word: str) -> None:
    """docs/rules.md §6 keeps 王炸 for the four-joker 核弹: a pair of one joker is 对大王 /
    对小王."""
    from games.engine.cards import parse_cards, ranks_of
    from games.engine.combos import classify

    state = SCENARIOS["fenzhou5-play"]
    (reading,) = classify(state.variant, ranks_of(parse_cards(cards)))
    view = public_view(state)
    view.update(
        top={"seat": 1, "cards": cards, "kind": reading.kind},
        trick=[{"seat": 1, "cards": cards}],
        plays=[{"seat": 1, "cards": cards, "kind": reading.kind}],
    )
    with translation.override("zh-hans"):
        ctx = context.screen_context(view=view, seats=seat_infos(5), now=NOW)
        page = regions.render_regions(ctx)
    assert f"· {word}</p>" in _region(page, "trick")
    assert "王炸" not in page


def test_a_state_s_views_are_built_once_while_it_lives(monkeypatch) -> None:
    """A push reads each view of its state a few times and the next push reads them again as
    its state before: each is built once per state, and forgotten with the state."""
    import dataclasses
    import gc
    import weakref

    built: list[int | None] = []
    monkeypatch.setattr(seen, "view_for", lambda s, seat: built.append(seat) or {"s": seat})
    monkeypatch.setattr(seen, "public_view", lambda s: built.append(None) or {"s": None})
    state = dataclasses.replace(SCENARIOS["qq5-play"])  # a state of this test's own
    for _ in range(3):
        assert [seen.seen_by(state, seat)["s"] for seat in (0, 1, None)] == [0, 1, None]
    assert built == [0, 1, None]
    other = dataclasses.replace(state)
    assert seen.seen_by(other, 0) == {"s": 0} and built == [0, 1, None, 0]
    gone = weakref.ref(state)
    del state
    gc.collect()
    assert gone() is None  # the views do not keep their state alive
