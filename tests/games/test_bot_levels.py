"""Bot levels per room (issue #36, step 6): the operator sets a room's level in the admin, the
deadline runner hands it to every bot decision of the room's tables, and each bot's seat panel
shows it next to the bot's name, in the reader's language."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games import services
from games.engine import BotLevel
from games.models import Room, Table
from games.reads.snapshot import table_snapshot_read
from games.runner.deadlines import hand_apply_due_deadlines
from games.screen.regions import render_screen
from games.services import hand_deadlines
from games.table.stakes import table_bot_level
from tests.games.pages.test_admin import ROOM_FIELDS
from tests.support.tables import active_hand, make_player, make_room, seated_table

pytestmark = pytest.mark.django_db

# the level's words on a bot's panel, written here from the catalogues' intent
LEVEL_WORDS = {
    "zh-hans": {"easy": "简单", "normal": "普通", "strong": "强"},
    "zh-hant": {"easy": "簡單", "normal": "普通", "strong": "強"},
    "en": {"easy": "Easy", "normal": "Normal", "strong": "Strong"},
}


def _bot_table(level: str) -> Table:
    room = make_room("classic3", bot_level=level, bot_delay_ms=0)
    return seated_table(room, [make_player()])


def test_the_operator_sets_a_rooms_level_in_the_admin(staff_client) -> None:
    room = make_room("classic3")
    assert room.bot_level == BotLevel.NORMAL  # the default
    fields = {**ROOM_FIELDS, "name": room.name, "variant": "classic3", "bot_level": "easy"}
    response = staff_client.post(reverse("admin:games_room_change", args=[room.pk]), fields)
    assert response.status_code == 302, response.content.decode()[:2000]
    room.refresh_from_db()
    assert room.bot_level == BotLevel.EASY
    listed = staff_client.get(reverse("admin:games_room_changelist"), {"bot_level": "easy"})
    assert room.name in listed.content.decode()
    refused = staff_client.post(
        reverse("admin:games_room_change", args=[room.pk]), {**fields, "bot_level": "godlike"}
    )
    assert refused.status_code == 200  # the form again, with its error
    room.refresh_from_db()
    assert room.bot_level == BotLevel.EASY


@pytest.mark.parametrize("level", list(BotLevel))
def test_the_runner_hands_the_rooms_level_to_every_bot_decision(monkeypatch, level) -> None:
    table = _bot_table(level.value)
    user = table.seats.exclude(user=None).get().user
    services.hand_start(table_id=table.pk, user=user)
    decide = hand_deadlines.bot_action
    levels: list[BotLevel] = []

    def recording_bot(state, seat, **kwargs):
        levels.append(kwargs["level"])
        return decide(state, seat, **kwargs)

    monkeypatch.setattr(hand_deadlines, "bot_action", recording_bot)
    hand = active_hand(table)
    assert hand is not None
    replies = services.hand_decide_bots(hand_id=hand.pk)
    while replies is None:  # the human opens: let the bots' turn come
        hand_apply_due_deadlines(now=hand.deadline_at)
        hand.refresh_from_db()
        replies = services.hand_decide_bots(hand_id=hand.pk)
    assert levels and set(levels) == {level}


def test_the_level_read_costs_no_query_per_bot(django_assert_max_num_queries) -> None:
    """The level comes with the hand's read: deciding for two bots reads no more than the
    hand, its seats (and the replay's cache misses), whatever the level."""
    table = _bot_table("easy")
    user = table.seats.exclude(user=None).get().user
    services.hand_start(table_id=table.pk, user=user)
    hand = active_hand(table)
    assert hand is not None
    services.hand_decide_bots(hand_id=hand.pk)  # the replay cached
    with django_assert_max_num_queries(2):
        services.hand_decide_bots(hand_id=hand.pk)


def test_a_pinned_level_outlives_the_rooms_change() -> None:
    room = make_room("classic3", bot_level="easy")
    hand = services.table_deal_for(
        room=room, players=[make_player(), None, None], bot_level=BotLevel.STRONG
    )
    follows = services.table_deal_for(room=room, players=[make_player(), None, None])
    Room.objects.filter(pk=room.pk).update(bot_level=BotLevel.NORMAL)
    pinned = Table.objects.select_related("room").get(pk=hand.table_id)
    assert table_bot_level(pinned) == BotLevel.STRONG
    # a table dealt without a level took the room's of that moment, and keeps it
    assert table_bot_level(Table.objects.get(pk=follows.table_id)) == BotLevel.EASY


def _bot_panels(html: str) -> list[str]:
    panels = re.findall(r'<section class="seat[^"]*"[^>]*>.*?</section>', html, re.S)
    return [p for p in panels if "bot-tag" in p]


@pytest.mark.parametrize("language", list(LEVEL_WORDS))
@pytest.mark.parametrize("level", list(BotLevel))
def test_each_bots_panel_shows_the_level_in_the_readers_language(language, level) -> None:
    table = _bot_table(level.value)
    snapshot = table_snapshot_read(table_id=table.pk)
    assert snapshot is not None
    page = render_screen(snapshot=snapshot, seat_index=None, user=None, language=language)
    panels = _bot_panels(page)
    assert len(panels) == 2
    word = LEVEL_WORDS[language][level.value]
    for panel in panels:
        shown = re.search(r'<span class="tag bot-tag bot-level"[^>]*>([^<]*)</span>', panel)
        assert shown is not None and shown.group(1) == word, panel
    # a human's panel shows none
    assert page.count("bot-level") == 2


@pytest.mark.parametrize("language", list(LEVEL_WORDS))
def test_the_lobby_shows_each_rooms_level(client, language) -> None:
    make_room("classic3", name="Gentle room", bot_level="easy")
    make_room("classic3", name="Sharp room", bot_level="strong")
    page = client.get(reverse("lobby"), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    for name, level in (("Gentle room", "easy"), ("Sharp room", "strong")):
        card = re.search(rf"<h2>{name}</h2>.*?</dl>", page, re.S)
        assert card is not None, name
        assert f"<dd>{LEVEL_WORDS[language][level]}</dd>" in card.group(0), name
