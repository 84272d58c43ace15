"""A table push speaks each reader's language, whoever's action caused it."""

from __future__ import annotations

import pytest
from django.utils import translation

from club.models import PlayerSettings
from club.services.player_settings import player_language_settle
from games import services
from games.push import frames as table_frames
from tests.support.tables import make_player, make_room, push_frames, seated_table

pytestmark = pytest.mark.django_db


def _frames_by_user(table_id: int) -> dict[int | None, str]:
    """What each seated user's socket and a spectator's send of one push."""
    frames = push_frames(table_id)
    (public,) = [f for f in frames if isinstance(f, table_frames.PublicFrame)]
    out: dict[int | None, str] = {
        None: public.html_by_language["zh-hans"] + public.watcher_by_language["zh-hans"]
    }
    for frame in frames:
        if isinstance(frame, table_frames.SeatFrame):
            shared = public.html_by_language[public.seated_languages[frame.user_id]]
            out[frame.user_id] = frame.html + shared
    return out


def test_each_seat_is_pushed_in_its_players_language():
    room = make_room("qq5")
    english, chinese, *others = [make_player() for _ in range(5)]
    PlayerSettings.objects.create(user=english, language="en")
    PlayerSettings.objects.create(user=chinese, language="zh-hant")
    table = seated_table(room, [english, chinese, *others])
    services.seat_connect(table_id=table.pk, user=make_player(), channel_name="watcher")
    services.hand_start(table_id=table.pk)
    with translation.override("zh-hans"):  # the language of whoever triggered the push
        frames = _frames_by_user(table.pk)
    assert "Multiplier" in frames[english.pk]
    assert "倍數" in frames[chinese.pk] and "Multiplier" not in frames[chinese.pk]
    assert "倍数" in frames[None]  # spectators: the club's default language


def test_a_socket_language_is_the_stored_one_else_the_browsers_which_is_then_stored():
    player = make_player()
    assert player_language_settle(user=player, cookie=None, accept_language="fr, en;q=0.8") == "en"
    assert PlayerSettings.objects.get(user=player).language == "en"
    # once stored, a browser asking for another language does not change what pushes use
    assert player_language_settle(user=player, cookie="zh-hant", accept_language="") == "en"
    stranger = make_player()
    assert player_language_settle(user=stranger, cookie=None, accept_language="fr") == "zh-hans"


def test_spectators_get_the_public_frame_in_the_languages_they_read():
    room = make_room("qq5")
    table = seated_table(room, [make_player() for _ in range(5)])
    services.hand_start(table_id=table.pk)
    (public,) = [f for f in push_frames(table.pk) if isinstance(f, table_frames.PublicFrame)]
    # nobody watches: the players' shared regions alone, in their language
    assert set(public.html_by_language) == {"zh-hans"} and not public.watcher_by_language
    for number, language in enumerate(["en", "zh-hant", "", "en"]):
        watcher = make_player()
        PlayerSettings.objects.create(user=watcher, language=language)
        services.seat_connect(table_id=table.pk, user=watcher, channel_name=f"w{number}")
    (public,) = [f for f in push_frames(table.pk) if isinstance(f, table_frames.PublicFrame)]
    by_language = public.html_by_language
    assert set(by_language) == {"zh-hans", "zh-hant", "en"}  # "": the club's default
    assert set(public.watcher_by_language) == set(by_language)
    assert "倍数" in by_language["zh-hans"]
    assert "倍數" in by_language["zh-hant"]
    assert "Multiplier" in by_language["en"]
