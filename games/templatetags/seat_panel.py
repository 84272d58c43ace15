"""``{% seat_panel s panel_oob table_id in_hand hand_over csrf_token %}``: one seat's panel of the
table screen (the partial templates/games/table/seat.html), written by Python rather than by the
template's tags.

The panel is the same for every viewer: where it sits, and whether it is the viewer's (its "you"
tag shown, its card count hidden), is up to table.css. ``s``: a seat row
(games.screen.seats.seat_rows); ``panel_oob``: sent on its own, swapped in by id
(seat_panels.html); an empty seat offers a player its "Sit here" and "Add bot" forms (``table_id``)
while no hand is in play (``in_hand``, ``hand_over``). A house bot's tag is its level alone (its
name says it is a bot): two tags beside the card count overflowed a phone's five-seat panel.

As a template, a panel was the dearest partial a push rendered (issue #37; bench/README.md,
"Where a push's CPU goes"): some 150 µs for each seat it changed, 45 µs now through seat.html
(20 µs of it this tag), timed over 4,000 seat rows of random hands. Its words, translated and
escaped, are made into snippets once per process and language (and the labels of each seat
number and card count as they come), and a panel is joined from those and its escaped values.
The markup is the template's as the rendering memo squeezes it (render_cache.squeezed): one
line break between blocks. The messages are the template's own msgids, so no translation
changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, ngettext, pgettext

from games.screen.render_cache import pure_tag
from games.templatetags.cards import cards
from games.templatetags.markup import OOB, csrf_input, escape, in_language, table_url

register = template.Library()

_BOT_AVATAR = (
    '<svg viewBox="0 0 16 16" width="14" height="14" fill="currentColor">'
    '<rect x="3" y="5" width="10" height="8" rx="2"/>'
    '<rect x="7.25" y="1.5" width="1.5" height="3"/><circle cx="8" cy="1.5" r="1.2"/>'
    '<circle cx="6" cy="9" r="1.1" fill="#51606b"/><circle cx="10" cy="9" r="1.1" fill="#51606b"/>'
    "</svg>"
)
_CLOCK = '<p class="seat-clock" aria-hidden="true"><span class="dot"></span>'


@dataclass(frozen=True)
class _Snippets:
    """A language's words of the panel, translated and escaped, in the markup around them. The
    messages with a placeholder stay messages: a value is escaped and put in."""

    seat: str
    free: str
    sit_here: str
    add_bot: str
    you: str
    bot_level_title: str
    bot: str
    rating_title: str
    provisional_rating_title: str
    offline: str
    leaving: str
    face_up: str
    autoplay: str
    report_title: str
    cards_left: str
    shown_hand: str
    passed: str
    seconds: str
    thinking: str
    # seat number -> the seat's label, card count -> the count's line: filled as they come
    seat_labels: dict[int, str] = field(default_factory=dict)
    count_lines: dict[int, str] = field(default_factory=dict)

    def seat_label(self, number: int) -> str:
        label = self.seat_labels.get(number)
        if label is None:
            label = self.seat_labels[number] = self.seat % {"n": escape(number)}
        return label

    def count_line(self, count: int) -> str:
        line = self.count_lines.get(count)
        if line is None:
            message = escape(ngettext("%(n)s card", "%(n)s cards", count))
            line = self.count_lines[count] = (
                f'<p class="seat-count" aria-label="{message % {"n": count}}">'
                f'<span class="back" aria-hidden="true"></span><b>{escape(count)}</b></p>'
            )
        return line


_snippets: dict[str, _Snippets] = {}


def _translated_snippets() -> _Snippets:
    # each message in a variable of its own: xgettext does not see one inside an f-string
    you = escape(gettext("you"))
    bot_level = escape(gettext("Bot level"))
    bot = escape(gettext("Bot"))
    offline = escape(gettext("offline"))
    leaving = escape(gettext("leaving"))
    holds_face_up = escape(gettext("Holds the face-up card"))
    face_up = escape(gettext("Face-up"))
    autoplay = escape(gettext("Auto-play"))
    shown_to_everyone = escape(gettext("Shown to everyone"))
    shown_hand = escape(gettext("Shown hand"))
    passed = escape(gettext("Pass"))
    thinking = escape(gettext("thinking"))
    return _Snippets(
        seat=escape(gettext("Seat %(n)s")),
        free=escape(gettext("free")),
        sit_here=escape(gettext("Sit here")),
        add_bot=escape(gettext("Add bot")),
        you=f' <span class="tag you-tag">{you}</span></p>',
        bot_level_title=f'<span class="tag bot-tag bot-level" title="{bot_level}">',
        bot=f'<span class="tag bot-tag">{bot}</span>',
        rating_title=escape(gettext("Skill rating")),
        provisional_rating_title=escape(
            gettext("Skill rating, provisional (“?”): it settles after a few more rated hands")
        ),
        offline=f' <span class="tag off">{offline}</span>',
        leaving=f' <span class="tag">{leaving}</span>',
        face_up=f'<span class="tag" title="{holds_face_up}">{face_up}</span>',
        autoplay=f'<span class="tag auto">{autoplay}</span>',
        report_title=escape(gettext("Cards left (announced)")),
        cards_left=escape(gettext("%(n)s left!")),
        shown_hand=(
            f'<p class="seat-shown" title="{shown_to_everyone}"><span class="tag">{shown_hand}'
            '</span> <span class="mini-row">'
        ),
        passed=f'<p class="seat-last"><span class="pass-chip">{passed}</span></p>',
        seconds=escape(pgettext("seconds", "s")),
        thinking=f"{_CLOCK}{thinking}</p>",
    )


@register.simple_tag
@pure_tag
def seat_panel(
    s: dict[str, Any],
    panel_oob: Any,
    table_id: Any,
    in_hand: Any,
    hand_over: Any,
    csrf_token: Any,
) -> SafeString:
    """One seat's ``<section>``, the same for every viewer (the module's docstring says what
    each argument is)."""
    words = in_language(_snippets, _translated_snippets)
    index = escape(s["index"])
    seat_label = words.seat_label(s["number"])
    classes = ""
    if s["landlord_side"]:
        classes += " lord"
    if s["empty"]:
        classes += " empty"
    oob = OOB if panel_oob else ""
    opening = (
        f'<section class="seat{classes}" data-seat="{index}" id="table-seat-{index}"{oob} '
        f'aria-label="{seat_label}">'
    )
    if s["empty"]:
        lines = [opening, f'<p class="seat-name muted">{seat_label} · {words.free}</p>']
        if not in_hand or hand_over:
            lines.extend(_seat_forms(words, index, table_id, csrf_token))
    else:
        lines = [opening, *_occupant(words, s), _play_part(words, s, oob="")]
    lines.append("</section>")
    return mark_safe("\n".join(lines))  # every value in it is escaped


@register.simple_tag
@pure_tag
def changed_seat_panels(
    changed_seats: list[dict[str, Any]],
    table_id: Any,
    in_hand: Any,
    hand_over: Any,
    csrf_token: Any,
) -> SafeString:
    """A move's changed seat panels, each swapped in by id (seat_panels.html): a panel whole,
    or its play part alone where the move changed nothing else of it (``play_only``, from
    games.screen.regions.changed_panels). One tag where a template included per panel cost more
    than the panels' own markup."""
    words = in_language(_snippets, _translated_snippets)
    panels = (
        _play_part(words, s, oob=OOB)
        if s["play_only"]
        else seat_panel(s, 1, table_id, in_hand, hand_over, csrf_token)
        for s in changed_seats
    )
    return mark_safe("".join(f"\n{panel}\n" for panel in panels))  # each panel is escaped


def _seat_forms(words: _Snippets, index: str, table_id: Any, csrf_token: Any) -> list[str]:
    """Both forms, the same for every viewer: table.css shows a spectator the first, a player
    the second."""
    token = csrf_input(csrf_token)
    seat_input = f'<input type="hidden" name="seat" value="{index}">'
    sit = table_url("table_sit", table_id)
    add_bot = table_url("table_add_bot", table_id)
    return [
        f'<form class="seat-sit" method="post" action="{sit}" hx-post="{sit}">{token}'
        f'{seat_input}<button type="submit" class="btn sm">{words.sit_here}</button></form>',
        f'<form class="seat-add-bot" method="post" action="{add_bot}" hx-post="{add_bot}" '
        f'hx-swap="none">{token}{seat_input}'
        f'<button type="submit" class="btn sm ghost">{words.add_bot}</button></form>',
    ]


def _occupant(words: _Snippets, s: dict[str, Any]) -> list[str]:
    """The lines of a taken seat's panel but its play part (the empty ones left out, as the
    memo squeezes them)."""
    info = s["info"]
    name = str(info["name"])
    if info["is_bot"]:
        avatar = f'<span class="avatar bot" aria-hidden="true">{_BOT_AVATAR}</span>'
    else:
        avatar = f'<span class="avatar" aria-hidden="true">{escape(name[:1].upper())}</span>'
    lines = [
        f'<p class="seat-name">{avatar}<span class="nm">{escape(name)}</span>{words.you}',
        f'<p class="seat-meta">{_meta(words, info)}</p>',
        '<p class="seat-badges">',
    ]
    if s["role_badges"]:
        role = ' class="tag role farmer">' if s["role"] == "farmer" else ' class="tag role">'
        lines.append("".join([f"<span{role}{escape(badge)}</span>" for badge in s["role_badges"]]))
    if s["face_up_holder"]:
        lines.append(words.face_up)
    if s["autoplay"]:
        lines.append(words.autoplay)
    report = s["report"]
    if report:
        left = words.cards_left % {"n": escape(report)}
        lines.append(
            f'<span class="tag report" data-report="{escape(report)}" '
            f'title="{words.report_title}">{left}</span>'
        )
    if s["decisions"]:
        lines.append(
            "".join([f'<span class="tag note">{escape(d)}</span>' for d in s["decisions"]])
        )
    lines.append("</p>")
    if s["shown"]:
        lines.append(f"{words.shown_hand}{cards(s['shown'], 'xs')}</span></p>")
    return lines


def _play_part(words: _Snippets, s: dict[str, Any], *, oob: str) -> str:
    """What a move changes of a taken seat's panel (``PLAY_KEYS``): whether it is to act, with
    its clock, its cards left and its last play in the trick. A ``<div>`` of its own, laid out
    as the panel's own lines (table.css), which a move's push sends alone when nothing else of
    the panel changed."""
    acting = " acting" if s["waiting"] else ""
    lines = [f'<div class="seat-play{acting}" id="table-seat-{escape(s["index"])}-play"{oob}>']
    if s["count"] is not None:
        lines.append(words.count_line(s["count"]))
    last = s["last"]
    if last and not s["is_top"]:
        if last["passed"]:
            lines.append(words.passed)
        else:
            lines.append(
                f'<p class="seat-last"><span class="mini-row">{cards(last["cards"], "xs")}'
                "</span></p>"
            )
    if s["waiting"]:
        lines.append(_clock(words, s["deadline"]))
    lines.append("</div>")
    return "\n".join(lines)


def _meta(words: _Snippets, info: dict[str, Any]) -> str:
    """The occupant's level, title or bot tag, his rating and whether he is offline or
    leaving."""
    if info["bot_level"]:
        meta = f"{words.bot_level_title}{escape(info['bot_level'])}</span>"
    elif info["is_bot"]:
        meta = words.bot
    elif info["title"]:
        meta = f'<span class="title">{escape(info["title"])}</span>'
    else:
        meta = ""
    rating = info["rating"]
    if rating:
        if rating.provisional:
            meta += f' <span class="rating provisional" title="{words.provisional_rating_title}">'
        else:
            meta += f' <span class="rating" title="{words.rating_title}">'
        meta += f"{escape(rating.shown)}</span>"
    if not info["connected"]:
        meta += words.offline
    if info["leaving"]:
        meta += words.leaving
    return meta


def _clock(words: _Snippets, deadline: str) -> str:
    """A seat to act's clock: its seconds left to ``deadline`` (counted down by the page), or
    that it is thinking when it has none."""
    if not deadline:
        return words.thinking
    return (
        f'{_CLOCK}<span data-deadline="{escape(deadline)}"><span class="clock-n">--</span>'
        f"{words.seconds}</span></p>"
    )
