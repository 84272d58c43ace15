"""The table's markup written by Python: card faces (games/templatetags/cards.py), the controls
and the status regions (controls_html.py, status_html.py), the markup the table's CSS and script
read, every text escaped."""

from __future__ import annotations

from django.template import engines
from django.template.loader import render_to_string
from django.utils import translation

from games.screen.labels import card_face
from games.templatetags.cards import card_row, hand_button_row


def _render(source: str, **context) -> str:
    return engines["django"].from_string("{% load cards %}" + source).render(context)


def test_a_face_carries_its_code_colour_size_and_label():
    with translation.override("en"):
        html = _render('{% card c "xs" %}', c=card_face("Th"))
    assert html.startswith('<span data-c="Th" class="pc pc-xs red" title="10 of hearts"')
    assert 'role="img"' in html
    assert '<span class="pc-r">10</span><span class="pc-s">♥</span>' in html
    assert html.endswith('<span class="pc-c" aria-hidden="true">♥</span></span>')


def test_jokers_show_a_star_and_big_is_marked():
    with translation.override("en"):
        small = _render("{% card c %}", c=card_face("SJ"))
        big = _render("{% card c %}", c=card_face("BJ"))
    assert 'class="pc joker"' in small and 'class="pc red joker big"' in big
    assert small.count("★") == big.count("★") == 1


def test_the_label_follows_the_language_and_is_escaped():
    with translation.override("zh-hans"):
        chinese = _render("{% card c %}", c=card_face("9s"))
    with translation.override("en"):
        english = _render("{% card c %}", c=card_face("9s"))
    assert chinese != english and "9 of spades" in english
    hostile = {
        "code": '"x',
        "red": False,
        "joker": False,
        "big": False,
        "rank": "<b>",
        "suit": "&",
        "label": '"><script>',
    }
    html = _render("{% card c %}", c=hostile)
    assert "<script>" not in html and "<b>" not in html
    assert 'data-c="&quot;x"' in html and "&lt;b&gt;" in html and "&amp;" in html


def test_hand_buttons_focus_the_first_card_and_tell_equal_cards_apart():
    with translation.override("en"):
        cards = [{**card_face(code), "key": f"{code}-{i}"} for i, code in enumerate(["3c", "3c"])]
        hand = hand_button_row(cards)
    assert hand.count("<button") == 2
    assert 'data-key="3c-0"' in hand and 'data-key="3c-1"' in hand
    assert hand.index('tabindex="0"') < hand.index('tabindex="-1"')


def test_a_row_of_faces_is_each_face_in_turn():
    with translation.override("en"):
        faces = [card_face(code) for code in ("3c", "Th", "BJ")]
        row = _render('{% cards faces "sm" %}', faces=faces)
        one_by_one = _render('{% for c in faces %}{% card c "sm" %}{% endfor %}', faces=faces)
    assert row == one_by_one and row.count('class="pc pc-sm') == 3
    assert _render("{% cards faces %}", faces=[]) == ""


def test_the_counter_rows_mark_the_ranks_with_none_left():
    counter = [{"rank": "3", "left": 2}, {"rank": "<J>", "left": 0}]
    html = _render("{% counter_rows counter %}", counter=counter)
    assert html.startswith('<tr><th scope="col">3</th><th scope="col">&lt;J&gt;</th></tr>')
    assert html.endswith('<tr><td>2</td><td class="none">0</td></tr>')


def test_a_hand_button_made_once_is_the_same_in_another_hand():
    with translation.override("en"):
        first = [{**card_face("5d"), "key": "5d-0"}, {**card_face("9s"), "key": "9s-1"}]
        alone = [{**card_face("9s"), "key": "9s-1"}]
        both = hand_button_row(first)
        # the same card at the same place in another hand, now first: it takes the focus
        again = hand_button_row(alone)
    assert 'data-key="9s-1" aria-pressed="false" aria-label="9 of spades" tabindex="-1"' in both
    assert 'data-key="9s-1" aria-pressed="false" aria-label="9 of spades" tabindex="0"' in again


def test_a_card_row_is_labelled_and_escapes_its_class():
    with translation.override("en"):
        row = card_row('own"bottom', "Bottom cards", [card_face("3c"), card_face("BJ")])
    assert row.startswith('<div class="own&quot;bottom">\n<span class="muted">Bottom cards</span>')
    assert row.count('class="pc pc-xs') == 2 and row.endswith("</span></span>\n</div>")


HOSTILE = '"><zz>&'
ESCAPED = "&quot;&gt;&lt;zz&gt;&amp;"


def test_the_controls_escape_every_value():
    choices = [
        {"act": HOSTILE, "value": HOSTILE, "label": HOSTILE, "style": HOSTILE, "card": None},
        {"act": "call", "value": "3c", "label": HOSTILE, "style": "card", "card": card_face("3c")},
    ]
    ctx = {
        "in_hand": True,
        "my_turn": True,
        "move_version": HOSTILE,
        "hints_json": HOSTILE,
        "choices": choices,
        "status": {"phase": "call", "phase_label": HOSTILE},
        "seated": True,
        "table_id": 7,
        "csrf_token": HOSTILE,
    }
    with translation.override("en"):
        html = render_to_string("games/table/controls.html", ctx)
    assert "<zz>" not in html
    assert f'data-version="{ESCAPED}" data-hints="{ESCAPED}"' in html
    assert f'aria-label="{ESCAPED}"' in html  # the choice group, named by the phase
    assert (
        f'name="act" value="{ESCAPED}"><input type="hidden" name="value" value="{ESCAPED}">' in html
    )
    assert f'<button type="submit" class="btn {ESCAPED}">{ESCAPED}</button>' in html
    assert f'class="pick" aria-label="{ESCAPED}" title="{ESCAPED}"><span data-c="3c"' in html
    assert f'name="csrfmiddlewaretoken" value="{ESCAPED}">' in html
    assert 'action="/table/7/leave/" hx-post="/table/7/leave/"' in html


def test_the_status_escapes_every_value():
    face = card_face("9s")
    status = {
        "now": HOSTILE,
        "phase_label": HOSTILE,
        "multiplier": HOSTILE,
        "multiplier_label": HOSTILE,
        "multiplies": True,
        "base_score": HOSTILE,
        "coefficient": HOSTILE,
        "bid": HOSTILE,
        "deadline": HOSTILE,
        "seconds": HOSTILE,
        "face_up": {"card": face, "name": HOSTILE},
        "marked": card_face("Th"),
        "partner_mode_label": HOSTILE,
        "grab_count": HOSTILE,
        "bottom": [face],
    }
    ctx = {"in_hand": True, "version": HOSTILE, "table_version": HOSTILE, "status": status}
    with translation.override("en"):
        html = render_to_string("games/table/status.html", {**ctx, "hand_number": HOSTILE})
    assert "<zz>" not in html
    for escaped in (
        f'data-table-version="{ESCAPED}" data-version="{ESCAPED}" data-now="{ESCAPED}"',
        f"Hand {ESCAPED} ·</span> {ESCAPED}</span>",
        f"<b>×{ESCAPED}</b>",
        f'<b>{ESCAPED}×{ESCAPED}</b> <span class="muted">·</span> bid {ESCAPED}</span>',
        f'data-deadline="{ESCAPED}" data-seconds="{ESCAPED}"',
        f'<span class="muted">{ESCAPED}</span></span>',  # the face-up card's holder
        f'<span class="st-item badge">{ESCAPED}</span>',
        f"Grabs</span> <b>{ESCAPED}</b>",
    ):
        assert escaped in html
