"""The operators' pages of the tables (issue #19): a room's rule and host options as a form,
tables, seats and hands in the admin (a stuck table seen, a seat freed), and admin entries
that each have a name of their own."""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse

from games import services
from games.models import Room, Seat
from games.table.options import OPTION_HELP
from tests.support.tables import (
    active_hand,
    make_player,
    make_room,
    play_to_end,
    seated_table,
)

pytestmark = pytest.mark.django_db

ROOM_FIELDS = {
    "name": "Fenzhou evening",
    "variant": "fenzhou5",
    "is_active": "on",
    "base_score": "1",
    "coefficient": "2",
    "house_take": "0",
    "rake_percent": "0",
    "max_multiplier": "",
    "min_balance": "",
    "bid_seconds": "15",
    "turn_seconds": "30",
    "step_min_seconds": "2",
    "bot_delay_ms": "600",
    "bot_level": "normal",
    "private_tables": "on",
    "private_coefficient_max": "",
}


class RoomFormTests:
    def test_each_option_of_each_variant_with_its_help(self, staff_client) -> None:
        page = staff_client.get(reverse("admin:games_room_add"), HTTP_ACCEPT_LANGUAGE="en")
        body = page.content.decode()
        assert page.status_code == 200
        assert 'name="options"' not in body and 'name="host_options"' not in body  # no raw JSON
        for name, help_text in OPTION_HELP.items():
            assert re.search(rf'name="option__\w+__{name}"', body), name
            assert re.search(rf'name="host__\w+__{name}"', body), name
            assert str(help_text) in html.unescape(body), name

    def test_the_form_saves_the_rooms_variant_options_only(self, staff_client) -> None:
        response = staff_client.post(
            reverse("admin:games_room_add"),
            {
                **ROOM_FIELDS,
                "option__fenzhou5__fenzhou_nuke": '"big_plus_small"',
                "option__fenzhou5__fenzhou_joker_kicker": "false",
                "option__fenzhou5__fenzhou_bare_plane_last": "",  # the default
                "host__fenzhou5__fenzhou_nuke": "on",
                # another variant's option: not this room's
                "option__qq5__qq5_double_scope": '"per_player"',
                "host__qq5__qq5_double_scope": "on",
            },
        )
        assert response.status_code == 302, response.content.decode()[:2000]
        room = Room.objects.get(name="Fenzhou evening")
        assert room.options == {"fenzhou_nuke": "big_plus_small", "fenzhou_joker_kicker": False}
        assert room.host_options == ["fenzhou_nuke"]
        # the change form shows what was saved
        body = staff_client.get(reverse("admin:games_room_change", args=[room.pk])).content
        chosen = re.search(rb'name="option__fenzhou5__fenzhou_nuke".*?</select>', body, re.S).group(
            0
        )
        assert b'value="&quot;big_plus_small&quot;" selected' in chosen

    def test_a_value_the_variant_does_not_know_is_refused(self, staff_client) -> None:
        response = staff_client.post(
            reverse("admin:games_room_add"),
            {**ROOM_FIELDS, "option__fenzhou5__fenzhou_nuke": '"seven_jokers"'},
        )
        assert response.status_code == 200  # the form again, with its error
        assert not Room.objects.filter(name="Fenzhou evening").exists()


@pytest.mark.usefixtures("append_only_triggers")
class TableAdminTests:
    def test_tables_and_hands_are_listed_and_a_hand_in_play_keeps_its_secrets(
        self, staff_client
    ) -> None:
        room = make_room("classic3")
        player = make_player("stuckplayer")
        table = seated_table(room, [player])
        hand = services.hand_start(table_id=table.pk)
        tables = staff_client.get(reverse("admin:games_table_changelist")).content.decode()
        assert "stuckplayer" in tables
        assert reverse("admin:games_hand_change", args=[hand.pk]) in tables
        page = staff_client.get(reverse("admin:games_table_change", args=[table.pk]))
        assert page.status_code == 200 and "stuckplayer" in page.content.decode()
        page = staff_client.get(reverse("admin:games_hand_change", args=[hand.pk])).content
        hand.refresh_from_db()
        assert hand.commitment.encode() in page
        assert hand.seed.encode() not in page
        assert b'"deal"' not in page and b"&quot;deal&quot;" not in page
        assert staff_client.get(reverse("admin:games_hand_changelist")).status_code == 200

    def test_freeing_seats_between_hands_and_during_one(self, staff_client) -> None:
        room = make_room("classic3")
        alice, bob = make_player("alice"), make_player("bob")
        table = seated_table(room, [alice, bob])  # and a bot
        bot = Seat.objects.get(table=table, is_bot=True)
        services.hand_start(table_id=table.pk)
        url = reverse("admin:games_seat_changelist")
        mine = Seat.objects.get(table=table, user=alice)
        response = staff_client.post(
            url,
            {"action": "free_seats", "_selected_action": [str(mine.pk), str(bot.pk)]},
            follow=True,
            HTTP_ACCEPT_LANGUAGE="en",
        )
        # mid-hand: alice leaves after it (auto-played until then); a bot stays till it ends
        assert active_hand(table) is not None
        assert Seat.objects.get(pk=mine.pk).sit_out_after_hand
        assert "wait until it is over" in response.content.decode()
        assert Seat.objects.get(pk=bot.pk).is_bot
        play_to_end(table)
        assert Seat.objects.get(pk=mine.pk).is_empty
        response = staff_client.post(
            url,
            {"action": "free_seats", "_selected_action": [str(bot.pk)]},
            follow=True,
            HTTP_ACCEPT_LANGUAGE="en",
        )
        assert "Freed 1 seat" in response.content.decode()
        assert Seat.objects.get(pk=bot.pk).is_empty


@pytest.mark.parametrize("language", ["zh-hans", "zh-hant", "en"])
def test_every_admin_entry_has_a_name_of_its_own(staff_client, language) -> None:
    body = staff_client.get(reverse("admin:index"), HTTP_ACCEPT_LANGUAGE=language)
    names = re.findall(
        r'<th scope="row" id="[\w-]+">\s*<a href="[^"]*">([^<]+)</a>', body.content.decode()
    )
    assert len(names) > 10
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
