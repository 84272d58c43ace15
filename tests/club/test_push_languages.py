"""What one push of a table renders in (club/selectors/tables.py, ``push_languages``): each
seated player's stored language, else the club's default; the languages of the users with a
socket's lease at the table who hold no seat there; nothing of another table's."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.utils import timezone

from club.models import PlayerSettings
from club.selectors.tables import push_languages
from games.models import SocketLease
from tests.support.tables import make_player, make_room, seated_table

pytestmark = pytest.mark.django_db

DEFAULT = settings.LANGUAGE_CODE


def _speaks(user, language: str) -> None:
    PlayerSettings.objects.update_or_create(user=user, defaults={"language": language})


def _watches(table, user) -> None:
    SocketLease.objects.create(
        table=table,
        user=user,
        process="this process",
        channel_name=f"tab.{table.pk}.{user.pk}.{SocketLease.objects.count()}",
        renewed_at=timezone.now(),
    )


def test_the_players_languages_and_the_watchers():
    room = make_room("classic3")
    ann, ben, cat = (make_player() for _ in range(3))
    table = seated_table(room, [ann, ben, cat])
    other = seated_table(make_room("classic3"), [make_player() for _ in range(3)])
    eve, fay, gil = (make_player() for _ in range(3))
    _speaks(ann, "en")
    _speaks(ben, "xx")  # no longer shipped: the club's default
    _speaks(eve, "zh-hant")
    _speaks(gil, "en")
    _watches(table, ann)  # a player's own socket makes him no spectator
    _watches(table, eve)
    _watches(table, eve)  # two tabs
    _watches(table, fay)  # nothing stored
    _watches(other, gil)  # another table's

    players, spectators = push_languages(
        table_id=table.pk, seated_user_ids=[ann.pk, ben.pk, cat.pk]
    )

    assert players == {ann.pk: "en", ben.pk: DEFAULT, cat.pk: DEFAULT}
    assert spectators == {"zh-hant", DEFAULT}


def test_nobody_watching_renders_no_public_language():
    players_at = [make_player() for _ in range(3)]
    table = seated_table(make_room("classic3"), players_at)
    _speaks(players_at[0], "zh-hant")

    players, spectators = push_languages(
        table_id=table.pk, seated_user_ids=[p.pk for p in players_at]
    )

    assert players == {players_at[0].pk: "zh-hant", **{p.pk: DEFAULT for p in players_at[1:]}}
    assert spectators == set()
