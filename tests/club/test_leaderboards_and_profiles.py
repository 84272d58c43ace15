"""Leaderboards (ordering, periods, variants, humans only), outcome rows written when a real
hand finishes (matching the ledger), public profiles and the settings page."""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import BeanEntry, User
from club.models import HandOutcome, PlayerSettings
from club.selectors.leaderboards import leaderboard_beans, leaderboard_score
from club.selectors.profiles import profile_stats
from tests.club.history import finished_hand, make_table
from tests.support.tables import make_player, make_room, play_to_end, seated_table

pytestmark = pytest.mark.django_db


def _bot():
    return User.objects.create_user(username=f"bot{User.objects.count()}", is_bot=True)


class LeaderboardTests:
    def test_beans_boards_order_by_period_and_variant_and_skip_bots(self):
        ann, ben, cat = (make_player(n, beans=0) for n in ("ann", "ben", "cat"))
        bot = _bot()
        classic = make_table("classic3")
        qq5 = make_table("qq5")
        old = timezone.now() - datetime.timedelta(days=20)
        finished_hand(classic, [ann, ben, cat], landlord=[0], beans=[400, -200, -200])
        finished_hand(classic, [ann, ben, cat], landlord=[1], beans=[-50, 100, -50], when=old)
        finished_hand(classic, [bot, ben, cat], landlord=[2], beans=[-10, -10, 20])
        finished_hand(
            qq5, [cat, ben, ann, None, None], landlord=[0, 3], beans=[900, -300, -300, 0, 0]
        )
        # HandOutcome rows of a bot account never rank (and none exist for bots normally)
        HandOutcome.objects.create(
            hand=finished_hand(classic, [None, ben, cat], landlord=[0], beans=[0, -1, 1]),
            user=bot, seat=0, variant_key="classic3", side="landlord", won=True,
            beans=10**9, score=10**6, finished_at=timezone.now(),
        )  # fmt: skip
        week = leaderboard_beans(days=7)
        assert [(r.username, r.value) for r in week] == [("cat", 721), ("ann", 100), ("ben", -511)]
        month = leaderboard_beans(days=30)
        assert [(r.username, r.value) for r in month] == [("cat", 671), ("ann", 50), ("ben", -411)]
        classic_week = leaderboard_beans(days=7, variant="classic3")
        assert [r.username for r in classic_week] == ["ann", "cat", "ben"]
        assert [r.rank for r in classic_week] == [1, 2, 3]
        assert all(r.username != bot.username for r in leaderboard_beans(days=None))

    def test_score_board_is_humans_by_score_with_titles(self):
        for name, score in (("low", 5), ("high", 5000), ("mid", 300)):
            make_player(name, beans=0)
            User.objects.filter(username=name).update(score=score)
        bot = _bot()
        User.objects.filter(pk=bot.pk).update(score=10**7)
        rows = leaderboard_score()
        names = [r.username for r in rows]
        assert names.index("high") < names.index("mid") < names.index("low")
        assert bot.username not in names
        assert rows[0].title is not None

    def test_pages_link_each_row_to_the_public_profile(self, client):
        ann, ben, cat = (make_player(n, beans=0) for n in ("ann", "ben", "cat"))
        finished_hand(make_table(), [ann, ben, cat], landlord=[0], beans=[400, -200, -200])
        for lang in ("zh-hans", "zh-hant", "en"):
            client.cookies["django_language"] = lang
            for query in ("", "?board=beans&days=7", "?board=beans&days=30&variant=classic3",
                          "?board=score&variant=qq5", "?board=beans&days=all"):  # fmt: skip
                page = client.get(reverse("leaderboard") + query)
                assert page.status_code == 200
            page = client.get(reverse("leaderboard") + "?board=beans&days=7")
            assert reverse("player_profile", args=["ann"]) in page.content.decode()
        partial = client.get(reverse("leaderboard") + "?board=beans", HTTP_HX_REQUEST="true")
        assert b"<html" not in partial.content and b'id="board"' in partial.content


class OutcomeTests:
    def test_a_played_hand_writes_outcomes_matching_the_ledger(self, append_only_triggers):
        humans = [make_player() for _ in range(3)]
        table = seated_table(make_room("classic3"), humans)
        from games import services

        services.hand_start(table_id=table.pk)
        hand = play_to_end(table)
        while not (hand.result or {}).get("beans"):  # an all-pass classic3 deal is re-dealt
            services.hand_start(table_id=table.pk)
            hand = play_to_end(table)
        rows = list(HandOutcome.objects.filter(hand=hand).order_by("seat"))
        assert [r.user_id for r in rows] == [u.pk for u in humans]
        for row in rows:
            ledger = sum(
                BeanEntry.objects.filter(user_id=row.user_id, hand_ref=str(hand.pk)).values_list(
                    "delta", flat=True
                )
            )
            assert row.beans == ledger
        assert sum(r.won for r in rows) in (1, 2)
        assert {r.side for r in rows} == {"landlord", "farmer"}

    def test_bots_get_no_outcome(self, append_only_triggers):
        human = make_player()
        table = seated_table(make_room("classic3"), [human])
        from games import services

        services.hand_start(table_id=table.pk)
        for _ in range(5):
            hand = play_to_end(table)
            if (hand.result or {}).get("beans"):
                break
            services.hand_start(table_id=table.pk)
        assert list(HandOutcome.objects.filter(hand=hand).values_list("user_id", flat=True)) == [
            human.pk
        ]


class ProfileTests:
    def test_profile_counts_per_variant_and_side_spring_biggest_win(self, client):
        ann, ben, cat = (make_player(n, beans=0) for n in ("ann", "ben", "cat"))
        t = make_table()
        h1 = finished_hand(t, [ann, ben, cat], landlord=[0], beans=[800, -400, -400], spring=True)
        finished_hand(t, [ann, ben, cat], landlord=[1], beans=[100, -200, 100])
        finished_hand(t, [ann, ben, cat], landlord=[0], beans=[-200, 100, 100])
        stats = profile_stats(user=ann)
        assert (stats.hands, stats.won, stats.springs) == (3, 2, 1)
        assert stats.biggest_win.hand_id == h1.pk
        sides = {r["side"]: (r["hands"], r["won"]) for r in stats.by_side}
        assert sides == {"landlord": (2, 1), "farmer": (1, 1)}
        for lang in ("zh-hans", "zh-hant", "en"):
            client.cookies["django_language"] = lang
            page = client.get(reverse("player_profile", args=["ann"]))
            assert page.status_code == 200
            body = page.content.decode()
            assert reverse("hand_detail", args=[h1.pk]) in body
        assert client.get(reverse("player_profile", args=["nobody"])).status_code == 404


class SettingsTests:
    def test_settings_saved_and_language_applied(self, client):
        ann = make_player("ann", beans=0)
        client.force_login(ann)
        assert client.get(reverse("player_settings")).status_code == 200
        response = client.post(
            reverse("player_settings"),
            {"card_size": "l", "sound": "", "auto_pass": "on", "language": "en"},
        )
        assert response.status_code == 302
        prefs = PlayerSettings.objects.get(user=ann)
        assert (prefs.card_size, prefs.sound, prefs.auto_pass, prefs.language) == (
            "l", False, True, "en",
        )  # fmt: skip
        assert response.cookies["django_language"].value == "en"
        # a new device (no cookie) gets the stored language
        client.cookies.clear()
        client.force_login(ann)
        page = client.get(reverse("lobby"))
        assert page.cookies["django_language"].value == "en"
        assert '<html lang="en">' in page.content.decode()

    def test_the_header_language_switch_is_remembered(self, client):
        ann = make_player("ann", beans=0)
        client.force_login(ann)
        response = client.post(reverse("set_language"), {"language": "zh-hant", "next": "/"})
        assert PlayerSettings.objects.get(user=ann).language == "zh-hant"
        assert response.cookies["django_language"].value == "zh-hant"
        assert '<html lang="zh-hant">' in client.get(reverse("lobby")).content.decode()

    def test_a_cookie_from_another_pick_gives_way_to_the_stored_language(self, client):
        """The table's pushes speak the stored language: the page around them does too."""
        ann = make_player("ann", beans=0)
        client.force_login(ann)
        client.post(reverse("set_language"), {"language": "en", "next": "/"})
        client.cookies["django_language"] = "zh-hans"  # this device's earlier pick
        page = client.get(reverse("lobby"))
        assert '<html lang="en">' in page.content.decode()
        assert page.cookies["django_language"].value == "en"
        # a cookie that agrees is left alone
        assert "django_language" not in client.get(reverse("lobby")).cookies

    def test_auto_pass_is_on_by_default_and_the_table_page_carries_the_settings(self, client):
        ann = make_player("ann")
        table = seated_table(make_room("classic3"), [ann])
        client.force_login(ann)
        body = client.get(reverse("table", args=[table.pk])).content.decode()
        assert 'data-auto-pass="1"' in body and 'data-card-size="m"' in body
        assert "club/table.js" in body and 'name="intent" value="chat"' in body
