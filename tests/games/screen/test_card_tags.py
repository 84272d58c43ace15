"""The table's markup written by Python: card faces (games/templatetags/cards.py), the seat
panels (seat_panel.py), the controls and the status regions (controls_html.py, status_html.py),
the markup the table's CSS and script read, every text escaped (translations too)."""

from __future__ import annotations

from dataclasses import dataclass

from django.template import engines
from django.template.loader import render_to_string
from django.utils import translation

from games.screen.labels import card_face, card_faces
from games.screen.seats import SeatInfo, seat_rows
from games.templatetags.cards import card_row, hand_button_row


def _render(source: str, **context) -> str:
    return engines["django"].from_string("{% load cards %}" + source).render(context)


def test_a_face_carries_its_code_colour_size_and_label():
    with translation.override("en"):
        html = _render('{% card c "xs" %}', c=card_face("Th"))
    assert html.startswith('<span data-c="Th" class="pc pc-xs red" aria-label="10 of hearts"')
    assert 'role="img"' in html
    assert html.endswith("<pc-i><pc-r>10</pc-r><pc-s>♥</pc-s></pc-i></span>")  # no centre pip
    with translation.override("en"):
        large = _render("{% card c %}", c=card_face("Th"))
    assert large.endswith("<pc-i><pc-r>10</pc-r><pc-s>♥</pc-s></pc-i><pc-c>♥</pc-c></span>")


def test_jokers_show_a_star_and_big_is_marked():
    with translation.override("en"):
        small = _render("{% card c %}", c=card_face("SJ"))
        big = _render("{% card c %}", c=card_face("BJ"))
    assert 'class="pc joker"' in small and 'class="pc red joker big"' in big
    assert small.count("★") == big.count("★") == 1
    with translation.override("en"):
        tiny = _render('{% card c "xs" %}', c=card_face("BJ"))
    assert tiny.endswith('role="img"><pc-c>★</pc-c></span>')  # a small joker shows its star


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
    assert '<span class="mini-row" style="--n: 2">' in row


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


def test_a_translation_is_written_as_text():
    # en's own translations with an apostrophe: a translator's quote, ampersand or angle bracket
    # is text, escaped like any value, in each region written by Python
    with translation.override("en"):
        controls = render_to_string(
            "games/table/controls.html",
            {"in_hand": True, "my_turn": True, "cant_beat": True, "can_pass": True},
        )
        call = render_to_string(
            "games/table/controls.html",
            {
                "in_hand": True,
                "my_turn": True,
                "choices": [{"act": "call", "value": "3c", "label": "3", "style": "secondary"}],
                "status": {"phase": "call", "phase_label": "Call"},
            },
        )
        hand = render_to_string(
            "games/table/hand.html", {"partner_hand": [card_face("3c")], "status": {}}
        )
    assert '<p class="ctl-prompt" id="cant-beat" role="status">Can&#x27;t beat</p>' in controls
    assert "its other copy&#x27;s holder becomes your partner</p>" in call
    assert '<span class="muted">Your partner&#x27;s hand</span>' in hand
    assert "'" not in controls + call + hand


@dataclass(frozen=True)
class Rating:
    shown: int
    provisional: bool


def _panel(info: SeatInfo, language: str, *, in_play: dict | None = None, **context) -> str:
    """Seat ``info.index``'s panel (templates/games/table/seat.html) at a three-seat table, with
    ``in_play``: what a hand in play shows on it."""
    with translation.override(language):
        row = seat_rows([info], 3, lambda seat: in_play or {})[info.index]
        return render_to_string("games/table/seat.html", {"s": row, **context})


def test_a_players_panel_shows_his_tags_in_the_readers_language_and_escapes_his_name():
    ann = SeatInfo(
        index=1,
        name="<b>ann",
        title="长工",
        connected=False,
        leaving=True,
        rating=Rating(shown=1520, provisional=True),
    )
    play = {"count": 17, "waiting": True, "deadline": "2026-12-05T19:00:00+00:00"}
    html = _panel(ann, "zh-hans", in_play=play)
    assert '<section class="seat" data-seat="1" id="table-seat-1" aria-label="2 号座">' in html
    assert '<div class="seat-play acting" id="table-seat-1-play">' in html
    assert (
        '<span class="avatar" aria-hidden="true">&lt;</span><span class="nm">&lt;b&gt;ann' in html
    )
    assert '<span class="title">长工</span> <span class="rating provisional"' in html
    assert 'title="等级分（暂定，“?”）：再打几局计分的牌局后就会稳定">1520</span>' in html
    assert ' <span class="tag off">离线</span> <span class="tag">将离座</span></p>' in html
    assert '<p class="seat-count" aria-label="17 张">' in html and "<b>17</b>" in html
    assert (
        '<span data-deadline="2026-12-05T19:00:00+00:00"><span class="clock-n">--</span>秒' in html
    )
    assert "hx-swap-oob" not in html and "<b>ann" not in html


def test_a_house_bots_panel_shows_its_level_alone():
    bot = SeatInfo(index=2, name="bot-3", is_bot=True, bot_level="强")
    play = {"count": 1, "report": 1, "waiting": True, "role": "farmer", "role_badges": ["农民"]}
    html = _panel(bot, "zh-hans", in_play=play, panel_oob=1)
    assert (
        'hx-swap-oob="true"' in html and '<span class="avatar bot" aria-hidden="true"><svg' in html
    )
    assert (
        '<p class="seat-meta"><span class="tag bot-tag bot-level" title="机器人水平">强</span></p>'
        in html
    )
    assert '<span class="tag role farmer">农民</span>' in html
    assert (
        '<span class="tag report" data-report="1" title="报牌：剩余张数">剩 1 张！</span>' in html
    )
    assert 'aria-label="1 张"' in html and "思考中" in html and "data-deadline" not in html
    with translation.override("en"):
        assert 'aria-label="1 card"' in _panel(bot, "en", in_play=play)


def test_an_empty_seat_offers_to_sit_or_add_a_bot_between_hands_only():
    free = SeatInfo(index=0)
    between = _panel(free, "en", table_id=7, in_hand=False, csrf_token='t"k')
    assert '<p class="seat-name muted">Seat 1 · free</p>' in between
    token = '<input type="hidden" name="csrfmiddlewaretoken" value="t&quot;k">'
    assert (
        f'<form class="seat-sit" method="post" action="/table/7/sit/" hx-post="/table/7/sit/">'
        f'{token}<input type="hidden" name="seat" value="0">' in between
    )
    assert 'action="/table/7/bot/"' in between and between.count(token) == 2
    assert "csrfmiddlewaretoken" not in _panel(free, "en", table_id=7, csrf_token="NOTPROVIDED")
    playing = _panel(free, "en", table_id=7, in_hand=True, hand_over=False, csrf_token="x")
    assert "<form" not in playing and 'class="seat empty"' in playing
    assert "<form" in _panel(free, "en", table_id=7, in_hand=True, hand_over=True)


def test_a_seats_last_play_shows_unless_it_is_the_top_and_a_shown_hand_shows():
    lily = SeatInfo(index=0, name="Lily")
    with translation.override("en"):
        faces = card_faces("3c 3d")
    last = {"last": {"passed": False, "cards": faces}, "shown": faces}
    html = _panel(lily, "en", in_play=last)
    assert html.count('class="pc pc-xs') == 4  # its last play and its shown hand
    assert '<p class="seat-shown" title="Shown to everyone"><span class="tag">Shown hand' in html
    on_top = _panel(lily, "en", in_play={**last, "is_top": True})
    assert "seat-last" not in on_top
    passed = _panel(lily, "en", in_play={"last": {"passed": True, "cards": []}})
    assert '<p class="seat-last"><span class="pass-chip">Pass</span></p>' in passed


def test_a_moves_push_sends_a_panels_play_part_alone_where_nothing_else_changed():
    lily = SeatInfo(index=0, name="Lily")
    play = {"count": 5, "waiting": True, "deadline": "2026-12-05T19:00:00+00:00"}
    with translation.override("en"):
        row = seat_rows([lily], 3, lambda seat: play)[0]
        alone, whole = (
            render_to_string(
                "games/table/seat_panels.html", {"changed_seats": [{**row, "play_only": only}]}
            ).strip()
            for only in (True, False)
        )
    assert alone.startswith('<div class="seat-play acting" id="table-seat-0-play" hx-swap-oob')
    assert "Lily" not in alone and 'aria-label="5 cards"' in alone and "data-deadline" in alone
    assert whole.startswith('<section class="seat" data-seat="0" id="table-seat-0" hx-swap-oob')
    assert alone.replace(' hx-swap-oob="true"', "") in whole  # the same part as in the panel
