"""Private tables, seat management, sessions and the score sheet (issue #8)."""

from __future__ import annotations

import csv
import datetime
import io
from fractions import Fraction

import pytest
from django.db.models import Sum
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from accounts.models import BeanEntry
from games import services
from games.models import Hand, InviteMiss, Seat, Table, TableSession
from games.reads import private as reads_private
from games.reads.selectors import hand_state
from games.screen import session as session_screen
from games.screen.notices import render_notice
from games.services import private
from games.table import invites
from games.table.errors import MESSAGES, ActionRejected, ErrorCode
from games.table.stakes import room_min_balance, table_min_balance, table_stakes
from tests.support.tables import (
    active_hand,
    make_player,
    make_room,
    play_to_end,
)

pytestmark = pytest.mark.django_db


def rejected(code: ErrorCode, func, **kwargs):
    with pytest.raises(ActionRejected) as raised:
        func(**kwargs)
    assert raised.value.code is code, raised.value
    assert raised.value.message
    return raised.value


def _private(variant="qq5", **room_fields):
    room = make_room(variant, **room_fields)
    host = make_player()
    table = private.table_create_private(room=room, user=host)
    return room, host, Table.objects.get(pk=table.pk)


class TestInvites:
    def test_the_code_is_unambiguous_and_unique(self):
        codes = {invites.new_invite_code() for _ in range(200)}
        assert len(codes) == 200
        for code in codes:
            assert len(code) == invites.INVITE_LENGTH
            assert not set(code) & set("01OIL")

    def test_an_invite_code_admits_only_its_holders(self):
        _room, host, table = _private()
        assert Seat.objects.get(table=table, user=host).index == 0
        stranger, friend = make_player(), make_player()
        rejected(ErrorCode.INVITE_REQUIRED, services.table_join, table_id=table.pk, user=stranger)
        rejected(
            ErrorCode.INVITE_REQUIRED,
            services.table_join,
            table_id=table.pk,
            user=stranger,
            invite_code="ABCDEFG",
        )
        seat = services.table_join(
            table_id=table.pk, user=friend, invite_code=table.invite_code.lower()
        )
        assert seat.index == 1
        # hidden from the lobby list and from quick-join
        other = services.table_quick_join(room=table.room, user=stranger)
        assert other.pk != table.pk and not other.is_private

    def test_locked_table_and_spectators(self):
        _room, host, table = _private()
        friend, watcher = make_player(), make_player()
        private.table_set_locked(table_id=table.pk, user=host, locked=True)
        rejected(
            ErrorCode.TABLE_LOCKED,
            services.table_join,
            table_id=table.pk,
            user=friend,
            invite_code=table.invite_code,
        )
        rejected(
            ErrorCode.NOT_HOST,
            private.table_set_locked,
            table_id=table.pk,
            user=friend,
            locked=False,
        )
        table.refresh_from_db()
        assert reads_private.may_watch(table, host)
        assert not reads_private.may_watch(table, watcher)
        assert reads_private.may_watch(table, watcher, [table.invite_code])
        private.table_update_settings(table_id=table.pk, user=host, allow_spectators=False)
        table.refresh_from_db()
        assert not reads_private.may_watch(table, watcher, [table.invite_code])

    def test_pages_need_the_code(self, client):
        _room, _host, table = _private()
        stranger = make_player()
        client.force_login(stranger)
        assert client.get(reverse("table", args=[table.pk])).status_code == 404
        assert client.get(reverse("lobby")).content.decode().count(f"/table/{table.pk}/") == 0
        page = client.get(reverse("table_invite", args=[table.invite_code]))
        assert page.status_code == 200
        # the code is now in the session: the table page and the sit POST accept it
        assert client.get(reverse("table", args=[table.pk])).status_code == 200
        client.post(reverse("table_sit", args=[table.pk]))
        assert Seat.objects.filter(table=table, user=stranger).exists()

    def test_wrong_codes_are_throttled_per_session_and_per_address(self, client, settings):
        """Issue #31: /join/<code>/ took unlimited guesses. Past DDZ_INVITE_TRIES wrong codes
        in DDZ_INVITE_TRIES_SECONDS from a session or an address, every try from either is
        refused with a message, the right code's too; they count again once a window old."""
        settings.DDZ_INVITE_TRIES, settings.DDZ_INVITE_TRIES_SECONDS = 3, 60
        _room, _host, table = _private()
        right = reverse("table_invite", args=[table.invite_code])
        client.force_login(make_player())
        for n in range(3):
            wrong = reverse("table_invite", args=[f"WRONG{n}"])
            assert client.get(wrong, REMOTE_ADDR="10.0.0.1").status_code == 404
        refused = client.get(right, REMOTE_ADDR="10.0.0.2")  # the session's 4th try
        assert refused.status_code == 429
        with translation.override(settings.LANGUAGE_CODE):
            message = str(MESSAGES[ErrorCode.INVITE_TRIES]) % {"seconds": 60}
        assert message in refused.content.decode()
        another = Client()
        another.force_login(make_player())
        assert another.get(right, REMOTE_ADDR="10.0.0.1").status_code == 429  # the address's
        assert another.get(right, REMOTE_ADDR="10.0.0.3").status_code == 200
        # a code posted with a seat request is a try like a link's
        another.post(
            reverse("table_sit", args=[table.pk]), {"code": "WRONG"}, REMOTE_ADDR="10.0.0.4"
        )
        assert InviteMiss.objects.filter(address="10.0.0.4").count() == 1

        InviteMiss.objects.update(tried_at=timezone.now() - datetime.timedelta(seconds=61))
        assert client.get(right, REMOTE_ADDR="10.0.0.1").status_code == 200

    def test_bots_only_when_the_host_allows(self):
        _room, host, table = _private()
        private.table_update_settings(table_id=table.pk, user=host, allow_bots=False)
        rejected(ErrorCode.BOTS_NOT_ALLOWED, services.table_add_bot, table_id=table.pk, user=host)
        private.table_update_settings(table_id=table.pk, user=host, allow_bots=True)
        assert services.table_fill_with_bots(table_id=table.pk, user=host) == 4

    def test_operator_stakes_inside_the_room_limit(self):
        room = make_room("qq5", private_coefficient_max=5)
        member, operator = make_player(), make_player()
        operator.is_staff = True
        operator.save()
        rejected(
            ErrorCode.BAD_SETTING,
            private.table_create_private,
            room=room,
            user=member,
            coefficient=3,
        )
        rejected(
            ErrorCode.BAD_SETTING,
            private.table_create_private,
            room=room,
            user=operator,
            coefficient=6,
        )
        table = private.table_create_private(room=room, user=operator, coefficient=4)
        assert table_stakes(table).coefficient == 4
        assert table_min_balance(table) > room_min_balance(room=room)
        services.table_fill_with_bots(table_id=table.pk, user=operator)
        hand = services.hand_start(table_id=table.pk, user=operator)
        assert hand.stakes["coefficient"] == 4
        assert hand_state(hand).stakes.coefficient == 4


class TestSettings:
    def test_changes_apply_from_the_next_hand_never_mid_hand(self):
        _room, host, table = _private("qq5", host_options=["qq5_double_scope"], turn_seconds=30)
        services.table_fill_with_bots(table_id=table.pk, user=host)
        first = services.hand_start(table_id=table.pk, user=host)
        assert first.options["qq5_double_scope"] == "global"
        private.table_update_settings(
            table_id=table.pk,
            user=host,
            options={"qq5_double_scope": "per_player"},
            turn_seconds=12,
            bid_seconds=8,
        )
        first.refresh_from_db()
        # the hand in play keeps its snapshot: options, record, seconds
        assert first.options["qq5_double_scope"] == "global"
        assert hand_state(first).variant.options["qq5_double_scope"] == "global"
        assert first.turn_seconds == 30
        play_to_end(Table.objects.get(pk=table.pk))
        second = services.hand_start(table_id=table.pk, user=host)
        assert second.options["qq5_double_scope"] == "per_player"
        assert hand_state(second).variant.options["qq5_double_scope"] == "per_player"
        assert (second.turn_seconds, second.bid_seconds) == (12, 8)

    def test_only_permitted_options_and_sane_seconds(self):
        _room, host, table = _private("qq5")  # the room permits no option
        rejected(
            ErrorCode.BAD_SETTING,
            private.table_update_settings,
            table_id=table.pk,
            user=host,
            options={"qq5_double_scope": "per_player"},
        )
        rejected(
            ErrorCode.BAD_SETTING,
            private.table_update_settings,
            table_id=table.pk,
            user=host,
            turn_seconds=1,
        )
        guest = make_player()
        rejected(
            ErrorCode.NOT_HOST,
            private.table_update_settings,
            table_id=table.pk,
            user=guest,
            turn_seconds=20,
        )


class TestSeats:
    def _two(self):
        _room, host, table = _private()
        friend = make_player()
        services.table_join(table_id=table.pk, user=friend, invite_code=table.invite_code)
        return table, host, friend

    def test_a_seat_swap_needs_both_players(self):
        table, host, friend = self._two()
        # accepting without a request is refused
        rejected(
            ErrorCode.NO_SWAP_REQUEST,
            private.seat_accept_swap,
            table_id=table.pk,
            user=friend,
            seat_index=0,
        )
        private.seat_request_swap(table_id=table.pk, user=host, seat_index=1)
        assert Seat.objects.get(table=table, index=0).user == host  # nothing moved yet
        # a third party cannot accept for him
        rejected(
            ErrorCode.NO_SWAP_REQUEST,
            private.seat_accept_swap,
            table_id=table.pk,
            user=host,
            seat_index=1,
        )
        private.seat_accept_swap(table_id=table.pk, user=friend, seat_index=0)
        assert Seat.objects.get(table=table, index=0).user == friend
        assert Seat.objects.get(table=table, index=1).user == host
        assert not Seat.objects.filter(table=table, swap_with__isnull=False).exists()

    def test_no_swap_or_move_mid_hand(self):
        table, host, _friend = self._two()
        services.table_fill_with_bots(table_id=table.pk, user=host)
        services.hand_start(table_id=table.pk, user=host)
        rejected(
            ErrorCode.HAND_IN_PROGRESS,
            private.seat_request_swap,
            table_id=table.pk,
            user=host,
            seat_index=1,
        )

    def test_move_to_a_free_seat(self):
        table, _host, friend = self._two()
        private.seat_move(table_id=table.pk, user=friend, seat_index=4)
        assert Seat.objects.get(table=table, index=4).user == friend
        assert Seat.objects.get(table=table, index=1).is_empty

    def test_a_move_keeps_the_players_open_sockets(self):
        """His tab stays open (no reload): the new seat counts it, so the host cannot remove
        him as idle and he is not offline for the disconnect grace."""
        table, host, friend = self._two()
        Seat.objects.filter(table=table, user=friend).update(connections=2)
        private.seat_move(table_id=table.pk, user=friend, seat_index=4)
        moved = Seat.objects.get(table=table, index=4)
        assert (moved.connections, moved.disconnected_at) == (2, None)
        rejected(
            ErrorCode.SEAT_NOT_IDLE,
            private.table_remove_seat,
            table_id=table.pk,
            user=host,
            seat_index=4,
        )

    def test_removing_an_idle_seat_is_refused_mid_hand(self):
        table, host, friend = self._two()
        services.table_fill_with_bots(table_id=table.pk, user=host)
        services.hand_start(table_id=table.pk, user=host)
        rejected(
            ErrorCode.HAND_IN_PROGRESS,
            private.table_remove_seat,
            table_id=table.pk,
            user=host,
            seat_index=1,
        )
        play_to_end(Table.objects.get(pk=table.pk))
        # between hands: a connected player is not idle; once offline he may be removed
        Seat.objects.filter(table=table, user=friend).update(connections=1)
        rejected(
            ErrorCode.SEAT_NOT_IDLE,
            private.table_remove_seat,
            table_id=table.pk,
            user=host,
            seat_index=1,
        )
        Seat.objects.filter(table=table, user=friend).update(connections=0)
        rejected(
            ErrorCode.NOT_HOST,
            private.table_remove_seat,
            table_id=table.pk,
            user=friend,
            seat_index=0,
        )
        private.table_remove_seat(table_id=table.pk, user=host, seat_index=1)
        assert Seat.objects.get(table=table, index=1).is_empty

    def test_stand_up_after_this_hand(self):
        table, host, friend = self._two()
        services.table_fill_with_bots(table_id=table.pk, user=host)
        services.hand_start(table_id=table.pk, user=host)
        private.seat_stand_after_hand(table_id=table.pk, user=friend)
        seat = Seat.objects.get(table=table, user=friend)
        assert seat.sit_out_after_hand and not seat.autoplay  # he keeps playing this hand
        play_to_end(Table.objects.get(pk=table.pk))
        assert not Seat.objects.filter(table=table, user=friend).exists()

    def test_automatic_stand_up_below_the_minimum_balance(self):
        room = make_room("classic3")
        table = services.table_create(room=room)
        rich, poor = make_player(), make_player()
        services.table_join(table_id=table.pk, user=rich)
        services.table_join(table_id=table.pk, user=poor)
        services.table_fill_with_bots(table_id=table.pk)
        minimum = room_min_balance(room=room)
        from accounts.models import User

        User.objects.filter(pk=poor.pk).update(beans=minimum - 1)
        error = rejected(ErrorCode.STOOD_UP_BALANCE, services.hand_start, table_id=table.pk)
        assert poor.username in error.message and str(minimum) in error.message
        assert not Seat.objects.filter(table=table, user=poor).exists()
        assert Seat.objects.filter(table=table, user=rich).exists()


class TestSessions:
    def test_the_score_sheet_equals_the_ledger(self):
        _room, host, table = _private("qq5", house_take=2, rake_percent=5)
        friend = make_player()
        services.table_join(table_id=table.pk, user=friend, invite_code=table.invite_code)
        services.table_fill_with_bots(table_id=table.pk, user=host)
        hands = []
        for _ in range(3):
            services.hand_start(table_id=table.pk, user=host)
            hands.append(play_to_end(Table.objects.get(pk=table.pk)))
        sessions = {h.session_id for h in Hand.objects.filter(table=table)}
        assert len(sessions) == 1
        session = TableSession.objects.get(pk=sessions.pop())
        sheet = reads_private.session_sheet(session)
        refs = [str(h.pk) for h in Hand.objects.filter(session=session)]
        for user in (host, friend):
            column = sheet["keys"].index(f"u{user.pk}")
            ledger = (
                BeanEntry.objects.filter(hand_ref__in=refs, user=user).aggregate(t=Sum("delta"))[
                    "t"
                ]
                or 0
            )
            assert sheet["totals"][column]["beans"] == ledger
            assert sum(line["cells"][column]["beans"] for line in sheet["lines"]) == ledger
            units = sum(Fraction(line["cells"][column]["units"]) for line in sheet["lines"])
            assert Fraction(sheet["totals"][column]["units"]) == units
        rows = list(csv.reader(io.StringIO(reads_private.session_sheet_csv(session))))
        assert len(rows) == 1 + len(sheet["lines"]) + 1
        assert rows[-1][2] == str(sheet["totals"][0]["beans"])
        assert session in reads_private.user_sessions(friend)

    def test_a_new_group_starts_a_new_session(self):
        _room, host, table = _private("qq5")
        friend = make_player()
        services.table_join(table_id=table.pk, user=friend, invite_code=table.invite_code)
        services.table_fill_with_bots(table_id=table.pk, user=host)
        services.hand_start(table_id=table.pk, user=host)
        first = play_to_end(Table.objects.get(pk=table.pk))
        services.table_leave(table_id=table.pk, user=friend)
        services.table_fill_with_bots(table_id=table.pk, user=host)
        services.hand_start(table_id=table.pk, user=host)
        second = play_to_end(Table.objects.get(pk=table.pk))
        assert first.session_id != second.session_id

    def test_session_pages_and_csv(self, client):
        _room, host, table = _private("qq5")
        services.table_fill_with_bots(table_id=table.pk, user=host)
        services.hand_start(table_id=table.pk, user=host)
        hand = play_to_end(Table.objects.get(pk=table.pk))
        client.force_login(host)
        assert client.get(reverse("session_list")).status_code == 200
        assert client.get(reverse("session_detail", args=[hand.session_id])).status_code == 200
        response = client.get(reverse("session_csv", args=[hand.session_id]))
        assert response["Content-Type"].startswith("text/csv")
        assert host.username in response.content.decode()
        client.force_login(make_player())
        assert client.get(reverse("session_csv", args=[hand.session_id])).status_code == 404


class TestNotices:
    def test_a_notice_carries_every_language_and_no_cards(self):
        html = render_notice("joined", {"name": "ann"})
        assert 'data-lang="en"' in html and 'data-lang="zh-hans"' in html
        assert "ann sat down." in html
        assert 'id="table-notices"' in html and "beforeend" in html

    def test_no_notice_for_an_active_hand_is_needed_to_see_the_settings(self):
        _room, host, table = _private("qq5")
        services.table_fill_with_bots(table_id=table.pk, user=host)
        services.hand_start(table_id=table.pk, user=host)
        assert active_hand(table) is not None
        html = session_screen.render_session(table=table, user=None, hand_over=False)
        assert table.invite_code not in html  # the public rendering never shows the code
        mine = session_screen.render_session(table=table, user=host, hand_over=False)
        assert table.invite_code in mine


class TestSettingsPage:
    def test_the_host_saves_settings_and_others_get_404(self, client):
        _room, host, table = _private("qq5", host_options=["qq5_double_scope"])
        url = reverse("table_settings", args=[table.pk])
        client.force_login(make_player())
        assert client.get(url).status_code == 404
        client.force_login(host)
        page = client.get(url).content.decode()
        assert 'name="qq5_double_scope"' in page and 'name="turn_seconds"' in page
        response = client.post(
            url,
            {
                "qq5_double_scope": "per_player",
                "turn_seconds": "20",
                "bid_seconds": "9",
                "allow_bots": "1",
                "locked": "1",
            },
        )
        assert response.status_code == 302
        table.refresh_from_db()
        assert table.settings["options"] == {"qq5_double_scope": "per_player"}
        assert (table.settings["turn_seconds"], table.settings["bid_seconds"]) == (20, 9)
        assert table.locked and table.allow_bots and not table.allow_spectators
