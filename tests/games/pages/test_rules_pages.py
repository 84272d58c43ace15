"""The rules a tap away (issue #34 item 2): a page per variant in the three languages, every
combination of the variant drawn with an example the engine reads as that kind, a room's rule
options, links from the lobby and the table; the first-hand guide shown once per account; the
table's word on provisional ratings and on hands a bot makes unrated."""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse

from club.models import PlayerSettings
from games import services
from games.engine.cards import parse_cards, ranks_of
from games.engine.combos import classify
from games.engine.variants import VARIANTS, find_variant
from games.screen.labels import KIND_LABELS
from games.table.options import option_label
from tests.support.languages import foreign
from tests.support.tables import make_player, make_room

pytestmark = pytest.mark.django_db

LANGUAGES = ("zh-hans", "zh-hant", "en")
KIND = re.compile(r'<li class="combo" data-kind="(\w+)">(.*?)</li>', re.S)
CARD = re.compile(r'<span data-c="(\w+)"')


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_rules_page_speaks_its_language(client, language) -> None:
    pages = [reverse("rules_index"), *(reverse("rules", args=[key]) for key in VARIANTS)]
    for url in pages:
        page = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
        assert page.status_code == 200, url
        assert foreign(page.content.decode(), language) == [], url


@pytest.mark.parametrize("key", list(VARIANTS))
def test_each_kind_of_the_variant_is_drawn_with_a_play_of_that_kind(client, key) -> None:
    body = client.get(reverse("rules", args=[key]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    variant = find_variant(key)
    drawn = {kind: CARD.findall(block) for kind, block in KIND.findall(body)}
    assert set(drawn) == set(variant.kinds)
    for kind, codes in drawn.items():
        assert str(KIND_LABELS[kind]) in html.unescape(body), kind
        ranks = ranks_of(parse_cards(" ".join(codes)))
        # a final play: fenzhou5's bare triple and plane are legal only as one
        readings = {combo.kind for combo in classify(variant, ranks, final=True)}
        assert kind in readings, (kind, codes, readings)


def test_the_deck_and_roles_follow_the_variant(client) -> None:
    body = html.unescape(
        client.get(reverse("rules", args=["new5"]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    )
    assert "5 players, 3 × 54 = 162 cards." in body
    assert "Each player gets 31 cards; the landlord plays with 38." in body
    assert "Deputy landlord" in body and "call a friend" in body


def test_a_rooms_rule_options_are_shown_with_the_ones_it_changed(client) -> None:
    room = make_room("fenzhou5", options={"fenzhou_nuke": "big_plus_small"})
    url = reverse("rules", args=["fenzhou5"])
    body = client.get(f"{url}?room={room.pk}", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    rows = dict(re.findall(r'<tr data-option="(\w+)"( class="changed")?', body))
    assert set(rows) == set(VARIANTS["fenzhou5"].option_choices)
    assert rows == {name: (' class="changed"' if name == "fenzhou_nuke" else "") for name in rows}
    assert "big and small jokers" in body and room.name in body
    # without a room: the defaults only, no room column
    plain = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "This room" not in plain and option_label("fenzhou_nuke") in plain
    # a room of another variant leads to its own variant's page
    other = client.get(reverse("rules", args=["qq5"]) + f"?room={room.pk}")
    assert other.status_code == 302 and other["Location"] == f"{url}?room={room.pk}"


def test_an_unknown_variant_is_not_found(client) -> None:
    assert client.get("/rules/chess/").status_code == 404


def test_the_lobby_and_the_table_link_to_their_rooms_rules(client) -> None:
    room = make_room("qq5")
    table = services.table_create(room=room)
    link = f'href="{reverse("rules", args=["qq5"])}?room={room.pk}"'
    assert link in client.get(reverse("lobby")).content.decode()
    assert link in client.get(reverse("table", args=[table.pk])).content.decode()


def _guide_opens_by_itself(client, table_id: int) -> bool:
    body = client.get(reverse("table", args=[table_id])).content.decode()
    found = re.search(r'<div id="table-guide"[^>]*data-auto="(1?)"', body)
    assert found and "data-guide-open" in body
    return found.group(1) == "1"


def test_the_guide_opens_by_itself_once_per_account(client) -> None:
    player = make_player()
    table = services.table_create(room=make_room("classic3"))
    client.force_login(player)
    assert _guide_opens_by_itself(client, table.pk)
    assert client.get(reverse("player_guide_seen")).status_code == 405
    assert client.post(reverse("player_guide_seen")).status_code == 204
    assert PlayerSettings.objects.get(user=player).guide_seen
    assert not _guide_opens_by_itself(client, table.pk)
    client.force_login(make_player())  # another account still gets it
    assert _guide_opens_by_itself(client, table.pk)


def test_a_table_with_a_bot_says_its_hand_is_not_rated(client) -> None:
    room = make_room("classic3")
    table = services.table_create(room=room)
    humans = [make_player() for _ in range(3)]
    for user in humans[:2]:
        services.table_join(table_id=table.pk, user=user)
    url = reverse("table", args=[table.pk])
    client.force_login(humans[0])
    assert 'id="table-unrated"' not in client.get(url).content.decode()
    services.table_fill_with_bots(table_id=table.pk)
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "This hand is not rated: a bot is seated." in page


def test_the_provisional_rating_is_explained(client) -> None:
    room = make_room("classic3")
    table = services.table_create(room=room)
    players = [make_player() for _ in range(3)]
    for user in players:
        services.table_join(table_id=table.pk, user=user)
    client.force_login(players[0])
    url = reverse("table", args=[table.pk])
    page = html.unescape(client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode())
    assert 'class="rating provisional" title="Skill rating, provisional (“?”)' in page


def test_the_emotes_are_named_in_the_readers_language(client) -> None:
    table = services.table_create(room=make_room("classic3"))
    client.force_login(make_player())
    url = reverse("table", args=[table.pk])
    for language, smile in (("zh-hans", "微笑"), ("zh-hant", "微笑"), ("en", "Smile")):
        body = client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
        assert f'class="btn sm ghost emote" aria-label="{smile}"' in body, language
        assert 'aria-label="smile"' not in body
