"""Every region of the table screen speaks its reader's language, on load and on every push,
whoever's action caused the push (issue #19: the seat buttons, the private-table panel and
the score sheet came in Simplified Chinese on English and Traditional pages).

A rendering passes when its visible text (text nodes and the attributes a reader meets:
aria-label, title, placeholder, alt) holds nothing of another language: on an English page
no Chinese character; on a Simplified page no character only the Traditional catalog uses,
and the other way round; on a Chinese page no English phrase of the catalog that has a
translation. Notices are left out: by design each carries every language
(games/screen/notices.py)."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation

from club.broadcast import chat_bulletin, spectators_bulletin
from club.models import ChatMessage, PlayerSettings
from games import services
from games.models import Seat, Table
from games.push import deliver, send
from games.push import frames as table_frames
from games.services import private
from tests.support.languages import foreign
from tests.support.tables import (
    make_player,
    make_room,
    play_to_end,
)

LANGUAGES = ("zh-hans", "zh-hant", "en")


@pytest.fixture
def club_table(live_db):
    """A private qq5 table between hands: one hand played (the score sheet has a line), a
    player gone (a free seat to move to), a swap asked, a spectator. Committed: each write's
    push goes out when it commits, as on a server."""
    room = make_room("qq5", name="Evening room")
    host, amy, ben = (make_player(name) for name in ("host", "amy", "ben"))
    table = private.table_create_private(room=room, user=host)
    for user in (amy, ben):
        services.table_join(table_id=table.pk, user=user, invite_code=table.invite_code)
    services.table_fill_with_bots(table_id=table.pk, user=host)
    services.hand_start(table_id=table.pk, user=host)
    play_to_end(Table.objects.get(pk=table.pk))
    services.table_leave(table_id=table.pk, user=ben)
    private.seat_request_swap(
        table_id=table.pk, user=amy, seat_index=Seat.objects.get(table=table, user=host).index
    )
    watcher = make_player("watcher")
    services.seat_connect(table_id=table.pk, user=watcher, channel_name="w")  # his socket
    return Table.objects.get(pk=table.pk), host, amy, watcher


def _speak(language: str, *users) -> None:
    for user in users:
        PlayerSettings.objects.update_or_create(user=user, defaults={"language": language})


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_page_speaks_its_readers_language(client, club_table, language) -> None:
    table, host, amy, _watcher = club_table
    for user in (host, amy):
        client.force_login(user)
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
        page = client.get(reverse("table", args=[table.pk])).content.decode()
        assert 'id="table-session"' in page and "score-sheet" in page
        assert foreign(page, language) == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_push_speaks_its_readers_language(monkeypatch, club_table, language) -> None:
    table, host, amy, watcher = club_table
    _speak(language, host, amy, watcher)
    sent: list[list] = []
    monkeypatch.setattr(send, "send_frames", sent.append)
    # caused by a player who reads another language
    other = next(code for code in LANGUAGES if code != language)
    with translation.override(other):
        private.table_set_locked(table_id=table.pk, user=host, locked=True)
    with translation.override(other):
        chat = ChatMessage.objects.create(table=table, user=amy, seat=0, key="again")
        deliver.announce(chat_bulletin(chat))
        deliver.announce(spectators_bulletin(table.pk))
    (frames, chat_frames, count_frames) = sent
    pages = []
    for frame in [*frames, *chat_frames, *count_frames]:
        if isinstance(frame, table_frames.SeatFrame):
            pages.append(frame.html)
        else:  # the spectators' page: the table's frame carries their own regions apart
            pages.append(frame.text_for(user_id=watcher.pk, language=language))
    assert len(pages) == 5  # host, amy, the spectators, the chat, the spectator count
    assert sum('id="table-session"' in page for page in pages) == 3
    for page in pages:
        assert foreign(page, language) == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_region_of_every_phase_speaks_its_readers_language(language) -> None:
    """Each variant's phases, from each seat and a spectator's place."""
    from games.engine.views import public_view, view_for
    from games.screen.context import screen_context
    from games.screen.regions import render_regions
    from games.screen.seats import SeatInfo
    from tests.support.scenarios import scenarios

    for name, state in scenarios().items():
        seats = [SeatInfo(index=i, name=f"player{i}") for i in range(state.seats)]
        for seat in [*range(state.seats), None]:
            view = view_for(state, seat) if seat is not None else public_view(state)
            with translation.override(language):
                page = render_regions(screen_context(view=view, seats=seats, state=state))
            assert foreign(page, language) == [], (name, seat)
