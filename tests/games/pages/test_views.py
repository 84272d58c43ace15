"""The HTTP side of the table: lobby, table page per audience, the seat/bot/leave/deal POSTs,
and the hand history (replay, record download, verify)."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from games import services as game_services
from games.engine.cards import format_cards
from games.models import Hand, Seat, Table
from games.reads import selectors
from tests.support.tables import bots_reply, push_frames, screen_html

pytestmark = pytest.mark.django_db

CARD_ATTR = re.compile(r'data-c(?:ard)?="([^"]+)"')


@pytest.fixture
def room():
    return game_services.room_create(name="Test room", variant="classic3", coefficient=1)


@pytest.fixture
def player(make_user, client):
    user = make_user(beans=100_000, username="alice")
    client.force_login(user)
    return user


def _seated_table(client, room) -> Table:
    response = client.post(reverse("room_quick_join", args=[room.pk]))
    assert response.status_code == 302
    table_id = int(response["Location"].rstrip("/").split("/")[-1])
    return Table.objects.get(pk=table_id)


def _dealt(client, room) -> tuple[Table, Hand]:
    table = _seated_table(client, room)
    client.post(reverse("table_add_bot", args=[table.pk]), {"fill": "1"})
    response = client.post(reverse("table_next_hand", args=[table.pk]))
    assert response.status_code == 302
    hand = selectors.table_current_hand(table=table)
    assert hand is not None
    return table, hand


def _finish(hand: Hand, user) -> Hand:
    """Hand the player's seat to 托管 (the bots reply) until the table's hand is over (a classic3
    deal that everybody passed is not dealt again for 托管 and bots alone: the player deals
    again)."""
    table = hand.table
    for _ in range(30):
        hand = selectors.table_current_hand(table=table)
        if hand.status == Hand.Status.FINISHED and not (hand.result or {}).get("redeal"):
            return hand
        if hand.status == Hand.Status.ACTIVE:
            game_services.seat_set_autoplay(hand_id=hand.pk, user=user, enabled=True)
            bots_reply(table)
        else:
            game_services.hand_start(table_id=table.pk, user=user)
    raise AssertionError("the hand did not finish")


def _played_and_left(client, room, player, other) -> tuple[Table, int, object]:
    """A hand played to its end, then the player gone from his seat and ``other`` signed in:
    (the table, the player's seat, other)."""
    table, hand = _dealt(client, room)
    seat = Seat.objects.get(table=table, user=player).index
    _finish(hand, player)
    client.post(reverse("table_leave", args=[table.pk]))
    client.force_login(other)
    return table, seat, other


class LobbyTests:
    def test_lobby_lists_rooms_and_quick_join(self, client, room, player) -> None:
        page = client.get(reverse("lobby")).content.decode()
        assert reverse("room_quick_join", args=[room.pk]) in page

    def test_quick_join_seats_the_player(self, client, room, player) -> None:
        table = _seated_table(client, room)
        assert Seat.objects.filter(table=table, user=player).exists()
        page = client.get(reverse("lobby")).content.decode()
        assert reverse("table", args=[table.pk]) in page

    def test_quick_join_below_minimum_balance_is_refused_clearly(
        self, client, room, make_user
    ) -> None:
        poor = make_user(beans=0, username="poor")
        client.force_login(poor)
        response = client.post(reverse("room_quick_join", args=[room.pk]), follow=True)
        page = response.content.decode()
        assert not Seat.objects.filter(user=poor).exists()
        assert "messages" in page  # the refusal is shown as a message on the lobby

    def test_quick_join_needs_login(self, client, room) -> None:
        response = client.post(reverse("room_quick_join", args=[room.pk]))
        assert response.status_code == 302 and "login" in response["Location"]


class TablePageTests:
    @pytest.mark.parametrize("lang", ["zh-hans", "zh-hant", "en"])
    def test_waiting_table_renders_in_every_language(self, client, room, player, lang) -> None:
        table = _seated_table(client, room)
        client.cookies["django_language"] = lang
        response = client.get(reverse("table", args=[table.pk]), HTTP_ACCEPT_LANGUAGE=lang)
        assert response.status_code == 200
        page = response.content.decode()
        assert f'ws-connect="/ws/table/{table.pk}/"' in page
        assert 'id="table-seats"' in page and 'id="table-controls"' in page

    def test_the_controls_forms_carry_the_page_s_csrf_token(self, client, room, player) -> None:
        # the page's token (a lazy value of the request) goes into every form the controls
        # post, as {% csrf_token %} wrote it
        table = _seated_table(client, room)
        page = client.get(reverse("table", args=[table.pk])).content.decode()
        start = page.index('<div id="table-controls"')
        controls = page[start : page.index('<div id="table-', start + 1)]
        forms = re.findall(r'<form class="inline" method="post".*?</form>', controls)
        assert len(forms) == 2  # fill with bots, leave
        token = re.compile(r'<input type="hidden" name="csrfmiddlewaretoken" value="\w{64}">')
        assert all(token.search(form) for form in forms)

    @pytest.mark.parametrize("lang", ["zh-hans", "zh-hant", "en"])
    def test_hand_page_shows_own_cards_only(self, client, room, player, lang) -> None:
        table, hand = _dealt(client, room)
        response = client.get(reverse("table", args=[table.pk]), HTTP_ACCEPT_LANGUAGE=lang)
        assert response.status_code == 200
        page = response.content.decode()
        state = selectors.hand_state(hand)
        seat = Seat.objects.get(table=table, user=player).index
        mine = set(format_cards(state.hands[seat]).split())
        shown = set(CARD_ATTR.findall(page))
        assert mine <= shown
        others = set()
        for other in range(state.seats):
            if other != seat:
                others |= set(format_cards(state.hands[other]).split())
        public = set()
        view = state
        if view.bottom_public:
            public |= set(format_cards(state.deal.bottom).split())
        if state.deal.face_up is not None:
            public |= set(format_cards((state.deal.face_up,)).split())
        for play in state.plays:
            public |= set(format_cards(play.cards).split())
        assert not (shown & (others - mine - public))

    def test_spectator_sees_no_hand(self, client, room, player, make_user) -> None:
        table, _hand = _dealt(client, room)
        watcher = make_user(beans=10, username="watcher")
        client.force_login(watcher)
        page = client.get(reverse("table", args=[table.pk])).content.decode()
        assert 'class="pc hc' not in page
        # no form that acts (quick chat, club app, is the spectators' only ws-send)
        assert 'name="intent" value="act"' not in page
        assert 'name="intent" value="autoplay"' not in page

    def test_anonymous_spectator(self, client, room, player) -> None:
        table, _hand = _dealt(client, room)
        client.logout()
        response = client.get(reverse("table", args=[table.pk]))
        assert response.status_code == 200
        page = response.content.decode()
        assert "ws-connect" not in page  # the socket refuses anonymous users: no reconnect loop
        assert reverse("account_login") in page

    def test_newcomer_sees_the_last_hand_as_a_spectator(self, client, room, player, make_user):
        table, seat, newcomer = _played_and_left(
            client, room, player, make_user(beans=100_000, username="newcomer")
        )
        client.post(reverse("table_sit", args=[table.pk]), {"seat": seat})
        assert Seat.objects.get(table=table, index=seat).user == newcomer

        html = screen_html(table, seat_index=seat, user=newcomer)
        assert 'class="pc hc' not in html  # not the previous occupant's cards

    @pytest.mark.parametrize("successor", [False, True])
    def test_an_old_result_names_who_played_it(self, client, room, player, make_user, successor):
        """A player who left after the hand keeps his name in its result, whether his seat
        stays empty or someone else has taken it."""
        table, seat, watcher = _played_and_left(
            client, room, player, make_user(beans=100_000, username="zed")
        )
        if successor:
            client.post(reverse("table_sit", args=[table.pk]), {"seat": seat})
            assert Seat.objects.get(table=table, index=seat).user == watcher
        else:
            assert Seat.objects.get(table=table, index=seat).user is None
        body = client.get(reverse("table", args=[table.pk]), HTTP_ACCEPT_LANGUAGE="en")
        result = re.search(r'id="table-result".*?</table>', body.content.decode(), re.S)
        assert result is not None
        names = re.findall(r'<span class="nm">([^<]*)</span>', result.group(0))
        assert names[seat] == "alice"
        assert "zed" not in names and f"Seat {seat + 1}" not in names

    def test_result_panel_shows_the_settlement(self, client, room, player) -> None:
        table, hand = _dealt(client, room)
        seat = Seat.objects.get(table=table, user=player).index
        hand = _finish(hand, player)
        page = client.get(reverse("table", args=[table.pk]), HTTP_ACCEPT_LANGUAGE="en")
        body = page.content.decode()
        assert "result-panel" in body and hand.seed in body
        assert reverse("hand_verify", args=[hand.pk]) in body
        row = re.search(r'<tr class="you[^"]*">(.*?)</tr>', body, re.S)
        assert row is not None
        beans = hand.result["beans"][seat]
        assert f"{beans:+d}".replace("+0", "0") in row.group(1).replace(",", "")

    def test_my_beans_and_title_show_at_the_table_and_follow_the_settlement(
        self, client, room, player, make_user
    ) -> None:
        from accounts.models import User
        from games.push import frames as table_frames

        table, hand = _dealt(client, room)
        purse = re.compile(r'data-beans="(-?\d+)"')
        page = client.get(reverse("table", args=[table.pk]), HTTP_ACCEPT_LANGUAGE="en")
        assert purse.findall(page.content.decode()) == ["100000"]
        assert 'class="purse-title">Bonded Labourer<' in page.content.decode()
        _finish(hand, player)
        beans = User.objects.get(pk=player.pk).beans
        assert beans != 100_000
        frames = {frame.group: frame for frame in push_frames(table.pk)}
        assert purse.findall(frames[table_frames.user_group(table.pk, player.pk)].html) == [
            str(beans)
        ]
        # nobody else is shown his purse
        client.force_login(make_user(username="onlooker"))
        page = client.get(reverse("table", args=[table.pk])).content.decode()
        assert not purse.findall(page)

    def test_the_result_shows_the_cards_left_and_who_went_out_first(
        self, client, room, player
    ) -> None:
        table, hand = _dealt(client, room)
        hand = _finish(hand, player)
        state = selectors.hand_state(hand)
        body = client.get(reverse("table", args=[table.pk]), HTTP_ACCEPT_LANGUAGE="en")
        result = re.search(r'id="table-result".*?</tbody>', body.content.decode(), re.S).group(0)
        rows = re.findall(r"<tr class=.*?</tr>", result, re.S)
        assert len(rows) == 3
        for seat, row in enumerate(rows):
            assert sorted(CARD_ATTR.findall(row)) == sorted(format_cards(state.hands[seat]).split())
            assert ("Out first" in row) == (not state.hands[seat])
        (first,) = [seat for seat in range(3) if not state.hands[seat]]
        name = re.search(r'<span class="nm">([^<]*)</span>', rows[first]).group(1)
        assert f"First out: {name}" in result

    def test_missing_table_is_404(self, client) -> None:
        assert client.get(reverse("table", args=[999_999])).status_code == 404


class TablePostTests:
    def test_sit_on_a_taken_seat_shows_the_error(self, client, room, player, make_user) -> None:
        table = _seated_table(client, room)
        mine = Seat.objects.get(table=table, user=player).index
        other = make_user(beans=100_000, username="bob")
        client.force_login(other)
        response = client.post(
            reverse("table_sit", args=[table.pk]), {"seat": mine}, HTTP_HX_REQUEST="true"
        )
        assert response.status_code == 200
        body = response.content.decode()
        assert 'id="table-error"' in body and 'hx-swap-oob="true"' in body
        assert 'class="error-msg"' in body
        response = client.post(reverse("table_sit", args=[table.pk]), {"seat": mine}, follow=True)
        assert "messages" in response.content.decode()

    def test_sit_htmx_success_reloads(self, client, room, player, make_user) -> None:
        table = _seated_table(client, room)
        other = make_user(beans=100_000, username="carol")
        client.force_login(other)
        response = client.post(reverse("table_sit", args=[table.pk]), HTTP_HX_REQUEST="true")
        assert response.status_code == 204
        assert response["HX-Redirect"] == reverse("table", args=[table.pk])
        assert Seat.objects.filter(table=table, user=other).exists()

    def test_add_bot_and_deal_and_leave(self, client, room, player) -> None:
        table = _seated_table(client, room)
        response = client.post(
            reverse("table_add_bot", args=[table.pk]), {"seat": ""}, HTTP_HX_REQUEST="true"
        )
        assert response.status_code == 204  # the broadcast pushes the new seats
        assert Seat.objects.filter(table=table, is_bot=True).count() == 1
        # dealing with a free seat is refused, with the reason
        response = client.post(reverse("table_next_hand", args=[table.pk]), HTTP_HX_REQUEST="true")
        assert 'class="error-msg"' in response.content.decode()
        client.post(reverse("table_add_bot", args=[table.pk]), {"fill": "1"})
        response = client.post(reverse("table_next_hand", args=[table.pk]))
        assert response.status_code == 302
        assert Hand.objects.filter(table=table).exists()
        # leaving mid-hand hands the seat to 托管
        client.post(reverse("table_leave", args=[table.pk]))
        seat = Seat.objects.filter(table=table, user=player).first()
        assert seat is None or seat.sit_out_after_hand

    def test_posts_need_a_seat(self, client, room, player, make_user) -> None:
        table = _seated_table(client, room)
        other = make_user(beans=10, username="dave")
        client.force_login(other)
        response = client.post(reverse("table_add_bot", args=[table.pk]), HTTP_HX_REQUEST="true")
        assert 'class="error-msg"' in response.content.decode()
        assert not Seat.objects.filter(table=table, is_bot=True).exists()

    def test_get_is_not_allowed(self, client, room, player) -> None:
        table = _seated_table(client, room)
        assert client.get(reverse("table_sit", args=[table.pk])).status_code == 405


class HistoryTests:
    def test_history_during_and_after_the_hand(self, client, room, player, make_user) -> None:
        table, hand = _dealt(client, room)
        state = selectors.hand_state(hand)
        seat = Seat.objects.get(table=table, user=player).index
        page = client.get(reverse("hand_list")).content.decode()
        assert reverse("hand_detail", args=[hand.pk]) in page

        # during play: own view only; the record download is partial and hides the others
        assert hand.status == Hand.Status.ACTIVE  # the human's decisions are still due
        detail = client.get(reverse("hand_detail", args=[hand.pk]))
        assert detail.status_code == 200
        response = client.get(reverse("hand_record", args=[hand.pk]))
        assert response.status_code == 200
        data = json.loads(response.content)
        assert data["partial"] is True and "deal" not in data and "seed" not in data
        text = response.content.decode()
        for other in range(state.seats):
            if other != seat:
                assert format_cards(state.hands[other]) not in text
        # somebody else cannot look at all
        stranger = make_user(beans=10, username="eve")
        client.force_login(stranger)
        assert client.get(reverse("hand_detail", args=[hand.pk])).status_code == 404
        assert client.get(reverse("hand_record", args=[hand.pk])).status_code == 404
        verify = client.get(reverse("hand_verify", args=[hand.pk])).content.decode()
        assert hand.commitment in verify and hand.seed not in verify
        client.force_login(player)

        hand = _finish(hand, player)
        response = client.get(reverse("hand_record", args=[hand.pk]))
        data = json.loads(response.content)
        assert data["deal"]["hands"] and data["seed"] == hand.seed
        assert "attachment" in response["Content-Disposition"]

        verify = client.get(reverse("hand_verify", args=[hand.pk])).content.decode()
        assert hand.seed in verify and 'class="verdict ok"' in verify

        detail = client.get(reverse("hand_detail", args=[hand.pk]) + "?step=0")
        assert detail.status_code == 200
        body = detail.content.decode()
        assert "all-hands" in body
        step = client.get(
            reverse("hand_detail", args=[hand.pk]) + "?step=2", HTTP_HX_REQUEST="true"
        ).content.decode()
        assert step.lstrip().startswith('<div id="replay-viewer"')

    def test_verify_detects_a_wrong_commitment(self, client, room, player) -> None:
        _table, hand = _dealt(client, room)
        hand = _finish(hand, player)
        Hand.objects.filter(pk=hand.pk).update(commitment="0" * 64)
        page = client.get(reverse("hand_verify", args=[hand.pk])).content.decode()
        assert 'class="verdict bad"' in page

    @pytest.mark.parametrize("lang", ["zh-hans", "zh-hant", "en"])
    def test_history_pages_in_every_language(self, client, room, player, lang) -> None:
        _table, hand = _dealt(client, room)
        hand = _finish(hand, player)
        for name in ("hand_list", "hand_detail", "hand_verify"):
            args = [] if name == "hand_list" else [hand.pk]
            response = client.get(reverse(name, args=args), HTTP_ACCEPT_LANGUAGE=lang)
            assert response.status_code == 200, name
