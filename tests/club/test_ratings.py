"""Skill ratings in the database: real hands rated live in their finishing transaction, the
recompute command finding nothing to change (and repairing what was changed), unrated hands
(bots, 托管-only seats), the provisional flag, the rating board's active players and the
profile; on PostgreSQL, the rated hands' sequence under concurrent finishing transactions."""

from __future__ import annotations

import datetime
import io
import re
import threading

import pytest
from django.core.management import call_command
from django.db import close_old_connections, connection, transaction
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from club import skill
from club.models import HandOutcome, RatedHand, Rating, RatingChange
from club.selectors.ratings import leaderboard_rating, rated_games, rating_for, ratings_of
from club.services.outcomes import hand_finished_record
from club.services.ratings import rating_hand_record
from games import services as game_services
from games.models import Hand
from tests.club.history import make_table, settled_hand
from tests.support.tables import make_player, make_room, play_to_end, push_frames, seated_table

pytestmark = pytest.mark.django_db


def _snapshot() -> tuple[list[tuple], list[tuple]]:
    ratings = sorted(
        Rating.objects.values_list(
            "variant_key", "user_id", "baseline", "mu", "sigma", "ordinal", "hands", "last_hand_at"
        ),
        key=repr,
    )
    changes = sorted(
        RatingChange.objects.values_list(
            "rated_hand_id", "rating__user_id", "rating__baseline", "landlord_side",
            "mu_before", "sigma_before", "mu_after", "sigma_after",
        ),
        key=repr,
    )  # fmt: skip
    return ratings, changes


def _recompute() -> str:
    out = io.StringIO()
    call_command("rating_recompute", stdout=out)
    return out.getvalue()


def _settled_hands(table, count: int) -> list[Hand]:
    """Play ``count`` settled hands at ``table`` through the services (an all-pass classic3
    deal is dealt again and does not count)."""
    hands: list[Hand] = []
    for _ in range(count * 4):
        game_services.hand_start(table_id=table.pk)
        hand = play_to_end(table)
        if (hand.result or {}).get("beans"):
            hands.append(hand)
        if len(hands) == count:
            return hands
    raise AssertionError("too many re-deals")


class LiveAndRecomputeTests:
    def test_real_hands_rate_live_and_the_recompute_changes_nothing(self, append_only_triggers):
        three = [make_player() for _ in range(3)]
        classic = _settled_hands(seated_table(make_room("classic3"), three), 3)
        five = [make_player() for _ in range(5)]
        qq5 = _settled_hands(seated_table(make_room("qq5"), five), 1)
        rated = list(RatedHand.objects.order_by("pk").values_list("hand_id", flat=True))
        assert rated == [h.pk for h in classic + qq5]
        for hand in classic + qq5:
            changes = RatingChange.objects.filter(rated_hand__hand=hand)
            seats = len(hand.result["beans"])
            assert changes.count() == seats + 1  # the players and the role baseline
            landlords = set(hand.result["summary"]["teams"]["landlord"])
            baseline = changes.get(rating__user__isnull=True)
            assert baseline.rating.baseline == f"{len(landlords)}v{seats - len(landlords)}"
            won = hand.result["summary"]["winner_side"] == "landlord"
            for change in changes.exclude(rating__user__isnull=True):
                outcome = HandOutcome.objects.get(hand=hand, user_id=change.rating.user_id)
                assert change.landlord_side == (outcome.side == "landlord")
                assert (change.mu_after > change.mu_before) == outcome.won
            assert (baseline.mu_after > baseline.mu_before) == won
        for user in three:
            assert rating_for(user=user, variant_key="classic3").hands == 3
            assert rating_for(user=user, variant_key="qq5").hands == 0
        live = _snapshot()
        assert " 0 ratings changed, 0 rating changes rewritten" in _recompute()
        assert _snapshot() == live
        # a damaged rating and a lost change row: the recompute puts back the live values
        Rating.objects.filter(user=three[0], variant_key="classic3").update(mu=1.0, hands=9)
        RatingChange.objects.filter(rated_hand__hand=classic[1]).first().delete()
        report = _recompute()
        assert "classic3: 3 rated hands (0 added to the sequence), 1 ratings changed" in report
        assert _snapshot() == live
        assert _recompute().count(" 0 ratings changed, 0 rating changes rewritten") == 4

    def test_history_from_before_ratings_joins_the_sequence_in_finishing_order(self):
        people = [make_player() for _ in range(3)]
        table = make_table("classic3")
        old = timezone.now() - datetime.timedelta(days=3)
        early = settled_hand(table, people, landlord=[0], landlord_won=True, when=old)
        hand_finished_record(hand=settled_hand(table, people, landlord=[1], landlord_won=False))
        later = settled_hand(table, people, landlord=[2], landlord_won=True, when=old)
        assert RatedHand.objects.count() == 1
        assert "classic3: 3 rated hands (2 added to the sequence)" in _recompute()
        sequence = list(RatedHand.objects.order_by("pk").values_list("hand_id", flat=True))
        assert sequence[1:] == [early.pk, later.pk]
        assert rating_for(user=people[0], variant_key="classic3").hands == 3
        assert " 0 ratings changed, 0 rating changes rewritten" in _recompute()


class UnratedTests:
    def test_a_hand_with_bots_is_not_rated_and_bots_have_no_rating(self, append_only_triggers):
        human = make_player()
        _settled_hands(seated_table(make_room("classic3"), [human]), 1)
        assert HandOutcome.objects.filter(user=human).count() == 1
        assert not RatedHand.objects.exists() and not Rating.objects.exists()
        two = [make_player(), make_player()]
        _settled_hands(seated_table(make_room("classic3"), two), 1)
        assert not RatedHand.objects.exists()
        assert not Rating.objects.filter(user__is_bot=True).exists()

    def test_a_seat_played_only_by_the_server_leaves_the_hand_unrated(self):
        people = [make_player() for _ in range(3)]
        table = make_table("classic3")
        unrated = settled_hand(table, people, landlord=[0], landlord_won=True, undecided=(2,))
        hand_finished_record(hand=unrated)
        assert HandOutcome.objects.filter(hand=unrated).count() == 3
        assert not RatedHand.objects.exists()
        # handing the seat to 托管 oneself is a decision: no voiding a bad hand that way
        own = settled_hand(table, people, landlord=[0], landlord_won=False, self_autoplay=(0,))
        hand_finished_record(hand=own)
        assert RatedHand.objects.get().hand_id == own.pk
        assert rating_for(user=people[0], variant_key="classic3").skill.mu < 25

    def test_a_bot_account_on_a_seat_counts_as_a_bot(self):
        people = [make_player() for _ in range(2)]
        bot = User.objects.create_user(username="house-bot", is_bot=True)
        hand = settled_hand(make_table(), [*people, bot], landlord=[0], landlord_won=True)
        assert rated_games(hands=[hand]) == {hand.pk: None}


class ProvisionalAndBoardTests:
    def test_a_newcomer_to_settled_players_is_provisional_for_about_twenty_hands(self):
        newcomer, *regulars = (make_player() for _ in range(3))
        settled = skill.Skill(25.0, 1.5)  # and so is the 1 v 2 baseline (level: 25 as well)
        for key in (*regulars, "1v2"):
            Rating.objects.create(
                variant_key="classic3",
                user=key if isinstance(key, User) else None,
                baseline=key if isinstance(key, str) else "",
                mu=settled.mu,
                sigma=settled.sigma,
                ordinal=settled.ordinal,
            )
        table = make_table("classic3")
        flags = []
        for number in range(26):
            hand_finished_record(
                hand=settled_hand(
                    table,
                    [newcomer, *regulars],
                    landlord=[number % 3],
                    landlord_won=number % 2 == 0,
                )
            )
            flags.append(rating_for(user=newcomer, variant_key="classic3").provisional)
        assert flags[:10] == [True] * 10
        settled_at = flags.index(False)
        assert 15 <= settled_at <= 22 and not any(flags[settled_at:])
        assert not rating_for(user=regulars[0], variant_key="classic3").provisional

    def test_the_rating_board_lists_active_players_only(self, client, settings):
        settings.DDZ_RATING_ACTIVE_DAYS = 30
        ann, ben, cat, dan = (make_player(n, beans=0) for n in ("ann", "ben", "cat", "dan"))
        table = make_table("classic3")
        long_ago = timezone.now() - datetime.timedelta(days=40)
        hand_finished_record(
            hand=settled_hand(
                table, [dan, ben, cat], landlord=[0], landlord_won=True, when=long_ago
            )
        )
        for landlord in (0, 0, 1):
            hand_finished_record(
                hand=settled_hand(table, [ann, ben, cat], landlord=[landlord], landlord_won=True)
            )
        rows = leaderboard_rating(variant_key="classic3")
        assert rows[0].username == "ann"
        assert {r.username for r in rows} == {"ann", "ben", "cat"}
        assert all(r.provisional for r in rows)
        ratings = ratings_of(user_ids=[ann.pk, dan.pk], variant_key="classic3")
        assert rows[0].value == ratings[ann.pk].shown and ratings[dan.pk].hands == 1
        assert leaderboard_rating(variant_key="qq5") == []
        for lang, provisional in (("en", "provisional"), ("zh-hans", "定级中")):
            client.cookies["django_language"] = lang
            body = client.get(reverse("leaderboard") + "?by=rating&variant=classic3").content
            text = body.decode()
            profile = reverse("player_profile", args=["dan"])
            assert reverse("player_profile", args=["ann"]) in text and profile not in text
            assert provisional in text
            assert f">{rows[0].value}<" in text
        # the board needs a variant: without one it shows the first
        text = client.get(reverse("leaderboard") + "?by=rating").content.decode()
        assert 'value="rating" selected' in text and 'value="qq5" selected' in text

    def test_the_profile_shows_each_rated_variant(self, client):
        people = [make_player(n, beans=0) for n in ("ann", "ben", "cat")]
        hand_finished_record(
            hand=settled_hand(make_table(), people, landlord=[0], landlord_won=True)
        )
        client.cookies["django_language"] = "en"
        text = client.get(reverse("player_profile", args=["ann"])).content.decode()
        shown = rating_for(user=people[0], variant_key="classic3").shown
        assert 'id="profile-ratings"' in text and f">{shown}<" in text and "provisional" in text
        assert shown > skill.DISPLAY_OFFSET


def _is_postgres() -> bool:
    return connection.vendor == "postgresql"


@pytest.mark.skipif(not _is_postgres(), reason="row locks need PostgreSQL (DATABASE_URL)")
@pytest.mark.django_db(transaction=True)
def test_concurrent_hands_are_numbered_in_the_order_their_ratings_moved():
    """Two hands share a player. The one that finished first (smaller id, earlier finish)
    waits for the other's lock, so it is rated second: the sequence says so, and the
    recompute, replaying the sequence, finds exactly the live values."""
    people = [make_player() for _ in range(4)]
    table = make_table("classic3")
    now = timezone.now()
    first = settled_hand(table, people[:3], landlord=[0], landlord_won=True, when=now)
    second = settled_hand(
        table, [people[0], people[3], people[2]], landlord=[1], landlord_won=True,
        when=now + datetime.timedelta(seconds=1),
    )  # fmt: skip
    holding = threading.Event()
    release = threading.Event()
    errors: list[BaseException] = []

    def rate_second_and_hold() -> None:
        try:
            with transaction.atomic():
                rating_hand_record(hand=second)
                holding.set()
                release.wait(timeout=30)
        except BaseException as error:  # reported below
            errors.append(error)
        finally:
            close_old_connections()

    holder = threading.Thread(target=rate_second_and_hold)
    holder.start()
    assert holding.wait(timeout=30)
    waiter = threading.Thread(
        target=lambda: (rating_hand_record(hand=first), close_old_connections())
    )
    waiter.start()
    waiter.join(timeout=2)
    assert waiter.is_alive()  # blocked on the shared ratings
    release.set()
    holder.join(timeout=30)
    waiter.join(timeout=30)
    assert not errors
    sequence = list(RatedHand.objects.order_by("pk").values_list("hand_id", flat=True))
    assert sequence == [second.pk, first.pk]
    live = _snapshot()
    assert _recompute().count(" 0 ratings changed, 0 rating changes rewritten") == 4
    assert _snapshot() == live


class TableTests:
    def test_the_seat_panels_show_each_players_rating(self, client):
        people = [make_player(n) for n in ("ann", "ben")]
        regular = make_player("cat")
        table = make_table("classic3")
        for landlord in (0, 1, 2, 0):
            hand_finished_record(
                hand=settled_hand(
                    table, [*people, regular], landlord=[landlord], landlord_won=landlord == 0
                )
            )
        seated = seated_table(make_room("classic3"), people)  # and a bot
        ratings = ratings_of(user_ids=[p.pk for p in people], variant_key="classic3")
        client.force_login(people[0])
        client.cookies["django_language"] = "en"
        page = client.get(reverse("table", args=[seated.pk])).content.decode()
        panels = _panels(page)
        assert [p.count('class="rating provisional"') for p in panels] == [1, 1, 0]
        for panel, person in zip(panels, people, strict=False):
            assert f">{ratings[person.pk].shown}</span>" in panel
        assert "Skill rating, provisional" in panels[0]
        # the push after a rated hand shows the new number: its process forgot the old one
        hand_finished_record(
            hand=settled_hand(table, [*people, regular], landlord=[0], landlord_won=True)
        )
        moved = rating_for(user=people[0], variant_key="classic3").shown
        assert moved > ratings[people[0].pk].shown
        frames = push_frames(seated.pk)
        (shared,) = frames[-1].html_by_language.values()  # every reader's is the club's
        assert f">{moved}</span>" in _panels(shared)[0]


def _panels(html: str) -> list[str]:
    """The seat panels of a page or frame, in seat order."""
    parts = re.split(r'id="table-seat-\d+"', html)[1:]
    return [part.split("</section>")[0] for part in parts]
