"""Rooms: validation against the variant, the computed minimum balance, the lobby."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from games.engine.beans import RoomStakes
from games.models import Room
from games.services import room_create
from games.table.stakes import room_computed_min_balance, room_min_balance

pytestmark = pytest.mark.django_db


class TestRoomValidation:
    def test_unknown_option_is_refused(self):
        with pytest.raises(ValidationError) as raised:
            room_create(name="bad", variant="classic3", options={"no_such_option": 1})
        assert "options" in raised.value.message_dict

    def test_bad_option_value_is_refused(self):
        with pytest.raises(ValidationError):
            room_create(
                name="bad", variant="classic3", options={"classic3_kicker_policy": "whatever"}
            )

    def test_known_option_is_accepted(self):
        room = room_create(
            name="strict", variant="classic3", options={"classic3_kicker_policy": "strict"}
        )
        assert room.pk is not None

    def test_rake_above_100_is_refused(self):
        with pytest.raises(ValidationError):
            room_create(name="greedy", variant="qq5", rake_percent=101)

    def test_options_must_be_an_object(self):
        with pytest.raises(ValidationError):
            room_create(name="list", variant="qq5", options=["x"])


class TestMinBalance:
    def test_classic3_is_96_times_the_coefficient(self):
        room = room_create(name="c", variant="classic3", coefficient=10)
        assert room_min_balance(room=room) == 960 == room.effective_min_balance

    def test_uncapped_variant_uses_multiplier_16_plus_house_take(self):
        room = room_create(name="q", variant="qq5", coefficient=50, house_take=10)
        assert room_computed_min_balance(room) == 4 * 16 * 50 + 10

    def test_max_multiplier_bounds_the_loss(self):
        room = room_create(name="q8", variant="qq5", coefficient=2, max_multiplier=8)
        assert room.effective_min_balance == 4 * 8 * 2

    def test_override_wins(self):
        room = room_create(name="o", variant="fenzhou5", min_balance=123)
        assert room.effective_min_balance == 123

    def test_stakes(self):
        room = room_create(name="s", variant="qq5", coefficient=5, house_take=2, rake_percent=3)
        assert room.stakes == RoomStakes(
            base_score=1, coefficient=5, house_take=2, rake_percent=3, max_multiplier=None
        )


LOBBY_TEXT = {
    "zh-hans": ["大厅", "经典斗地主", "入场门槛"],
    "zh-hant": ["大廳", "經典鬥地主", "入場門檻"],
    "en": ["Lobby", "Classic three-player Dou Dizhu", "Minimum balance"],
}


class TestLobby:
    @pytest.mark.parametrize("language", LOBBY_TEXT)
    def test_lists_active_rooms_in_each_language(self, client, language):
        room_create(name="Ten", variant="classic3", coefficient=10)
        room_create(name="Closed", variant="qq5", is_active=False)
        response = client.get(reverse("lobby"), HTTP_ACCEPT_LANGUAGE=language)
        html = response.content.decode()
        assert response.status_code == 200
        for text in LOBBY_TEXT[language]:
            assert text in html, (language, text)
        assert "Ten" in html and "960" in html
        assert "Closed" not in html

    def test_load_demo_creates_one_room_per_variant_idempotently(self, client):
        from django.core.management import call_command

        from games.engine.variants import VARIANTS

        call_command("load_demo")
        call_command("load_demo")
        assert sorted(Room.objects.values_list("variant", flat=True)) == sorted(VARIANTS)
        html = client.get(reverse("lobby")).content.decode()
        for room in Room.objects.all():
            assert room.name in html
