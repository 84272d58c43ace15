"""A private table's finished hands stay private (issue #18): its hand page, replay steps,
record download and verify page answer its players and the staff, and a 404 (the same as no
such hand) to a signed-in outsider and to the anonymous; the players' profiles link them only
for those who may open them. A public table's finished hands stay public."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games import services
from games.models import Table
from games.services import private
from tests.support.tables import (
    make_player,
    make_room,
    play_to_end,
)

pytestmark = pytest.mark.django_db

# every URL that reads a hand, by name and query string
HAND_URLS = [
    ("hand_detail", ""),
    ("hand_detail", "?step=0"),
    ("hand_record", ""),
    ("hand_verify", ""),
]


def _finished_hand(*, private_table: bool):
    room = make_room("classic3", private_tables=True)
    host = make_player()
    if private_table:
        table = private.table_create_private(room=room, user=host)
        services.table_fill_with_bots(table_id=table.pk, user=host)
    else:
        table = services.table_create(room=room)
        services.table_join(table_id=table.pk, user=host)
        services.table_fill_with_bots(table_id=table.pk)
    services.hand_start(table_id=table.pk, user=host)
    hand = play_to_end(Table.objects.get(pk=table.pk))
    assert hand.status == hand.Status.FINISHED
    return hand, host


def _get(client, user, name, query, hand):
    client.logout()
    if user is not None:
        client.force_login(user)
    return client.get(reverse(name, args=[hand.pk]) + query)


@pytest.mark.parametrize(("name", "query"), HAND_URLS)
def test_a_private_tables_hand_answers_its_players_and_staff_only(client, name, query):
    hand, host = _finished_hand(private_table=True)
    outsider = make_player()
    staff = make_player()
    staff.is_staff = True
    staff.save(update_fields=["is_staff"])
    for who, user in (("player", host), ("staff", staff)):
        response = _get(client, user, name, query, hand)
        assert response.status_code == 200, who
        if name == "hand_record":
            assert response.json()["seed"] == hand.seed, who
        if name == "hand_verify":
            assert hand.seed in response.content.decode(), who
    for who, user in (("outsider", outsider), ("anonymous", None)):
        response = _get(client, user, name, query, hand)
        assert response.status_code == 404, who
        assert hand.seed not in response.content.decode(), who


@pytest.mark.parametrize(("name", "query"), HAND_URLS)
def test_a_public_tables_finished_hand_stays_public(client, name, query):
    hand, _host = _finished_hand(private_table=False)
    for user in (make_player(), None):
        response = _get(client, user, name, query, hand)
        assert response.status_code == 200
        if name != "hand_detail":
            assert hand.seed in response.content.decode()


def test_a_profile_links_private_hands_only_for_those_who_may_open_them(client):
    hand, host = _finished_hand(private_table=True)
    public_hand, public_player = _finished_hand(private_table=False)
    link = reverse("hand_detail", args=[hand.pk])
    profile = reverse("player_profile", args=[host.username])
    staff = make_player()
    staff.is_staff = True
    staff.save(update_fields=["is_staff"])
    for user in (host, staff):
        client.force_login(user)
        assert link in client.get(profile).content.decode()
    for user in (make_player(), None):
        client.logout()
        if user is not None:
            client.force_login(user)
        assert link not in client.get(profile).content.decode()
        page = client.get(reverse("player_profile", args=[public_player.username]))
        assert reverse("hand_detail", args=[public_hand.pk]) in page.content.decode()
