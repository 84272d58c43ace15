"""Free-text chat refuses control characters (issue #18): a NUL byte, which PostgreSQL
refuses in text, raised a database error with a generic message; now every control character
and lone surrogate gets a clear refusal and nothing is written."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from django.utils import translation

from club.models import ChatMessage
from club.services.chat import ChatRefused, chat_send
from club.services.player_settings import player_settings_update
from tests.support.tables import (
    Socket,
    drain,
    make_player,
    make_room,
    seated_table,
)

REFUSAL = "A chat message cannot hold control characters such as line breaks or tabs."
UNPRINTABLE = [
    "a\x00b",
    "\x00",
    "hi\nthere",
    "tab\there",
    "bell\x07",
    "del\x7f",
    "esc\x1b[2J",
    "x\ud800",
]


@pytest.fixture
def free_text(settings):
    settings.DDZ_CHAT_FREE_TEXT = True
    settings.DDZ_CHAT_MAX_CHARS = 40


@pytest.mark.django_db
@pytest.mark.usefixtures("free_text")
@pytest.mark.parametrize("text", UNPRINTABLE)
def test_control_characters_are_refused_clearly_and_nothing_is_written(text):
    player = make_player()
    table = seated_table(make_room("classic3"), [player])
    with translation.override("en"), pytest.raises(ChatRefused) as refused:
        chat_send(table_id=table.pk, user=player, text=text)
    assert refused.value.message == REFUSAL
    assert not ChatMessage.objects.filter(table_id=table.pk).exists()


@pytest.mark.django_db
@pytest.mark.usefixtures("free_text")
def test_printable_text_with_inner_spaces_and_chinese_still_goes_through():
    player = make_player()
    table = seated_table(make_room("classic3"), [player])
    message = chat_send(table_id=table.pk, user=player, text="  打得好 well played  ")
    assert ChatMessage.objects.get(pk=message.pk).text == "打得好 well played"


@pytest.mark.asyncio
@pytest.mark.usefixtures("live_db", "fresh_layer", "free_text")
async def test_a_nul_byte_over_the_socket_gets_the_refusal_and_the_table_hears_nothing():
    db = database_sync_to_async

    def setup():
        players = [make_player(), make_player()]
        player_settings_update(user=players[0], language="en")
        return seated_table(make_room("classic3"), players).pk, players

    table_id, players = await db(setup)()
    sender = await Socket(players[0], table_id, "sender").open()
    other = await Socket(players[1], table_id, "other").open()
    await drain([sender, other])
    await sender.send({"intent": "chat", "text": "gg\u0000"})
    got = (await sender.expect(1))[0]
    assert 'id="table-error"' in got and REFUSAL in got
    assert await other.quiet()
    assert not await db(ChatMessage.objects.filter(table_id=table_id).exists)()
    await sender.close()
    await other.close()
