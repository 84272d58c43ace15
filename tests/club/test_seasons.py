"""Seasons: the soft reset (its formula, its record, the ledger untouched, once), hands counted
in the season under way, the season boards and badges, the operator's admin, and the deadline
runner's hook beginning a season whose start has come."""

from __future__ import annotations

import datetime
import io

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from accounts.models import BeanEntry, User
from accounts.selectors import title_for
from club.models import HandOutcome, Season, SeasonReset, SeasonStanding
from club.selectors.leaderboards import leaderboard_season_score
from club.selectors.profiles import profile_badges
from club.selectors.ratings import leaderboard_rating
from club.services.outcomes import hand_finished_record
from club.services.seasons import season_begin, season_score_reset, seasons_begin_due
from club.views import NO_SEASON
from games import services as game_services
from games.table.hooks import hooks
from tests.club.history import make_table, settled_hand
from tests.support.tables import make_player, make_room, play_to_end, seated_table

pytestmark = pytest.mark.django_db

HOUR = datetime.timedelta(hours=1)
DAY = datetime.timedelta(days=1)


@given(
    score=st.integers(-(10**7), 10**7),
    base=st.integers(-100, 100),
    carry=st.integers(0, 100),
)
def test_the_soft_reset_pulls_a_score_toward_the_base_and_keeps_the_order(score, base, carry):
    after = season_score_reset(score, base=base, carry_percent=carry)
    assert base <= after <= max(score, base)
    higher = season_score_reset(score + 1, base=base, carry_percent=carry)
    assert higher >= after  # a better score never starts the season lower
    assert season_score_reset(score, base=base, carry_percent=100) == max(score, base)


def _scores(**by_name: int) -> dict[str, User]:
    people = {}
    for name, score in by_name.items():
        people[name] = make_player(name)
        User.objects.filter(pk=people[name].pk).update(score=score)
    return people


class SoftResetTests:
    def test_a_season_begins_once_with_every_changed_score_on_record(self, settings):
        settings.DDZ_SEASON_CARRY_PERCENT = 50
        people = _scores(ann=10_000, ben=61, cat=0, dan=-500)
        bot = User.objects.create_user(username="bot", is_bot=True)
        ledger = list(BeanEntry.objects.order_by("pk").values_list("pk", "delta", "balance_after"))
        season = Season.objects.create(
            name="Spring", starts_at=timezone.now() - HOUR, ends_at=timezone.now() + DAY
        )
        assert seasons_begin_due() == 1
        scores = dict(User.objects.filter(is_bot=False).values_list("username", "score"))
        assert scores == {"ann": 5_000, "ben": 30, "cat": 0, "dan": 0}
        resets = {
            r.user.username: (r.score_before, r.score_after) for r in SeasonReset.objects.all()
        }
        assert resets == {"ann": (10_000, 5_000), "ben": (61, 30), "dan": (-500, 0)}
        standings = SeasonStanding.objects.filter(season=season)
        assert standings.count() == 4 and not standings.filter(user=bot).exists()
        ann = standings.get(user=people["ann"])
        assert (ann.score_start, ann.score, ann.score_peak) == (5_000, 5_000, 5_000)
        assert ann.peak_title == title_for(5_000) and ann.hands == 0
        # the ledger is untouched, and the season begins only once
        assert (
            list(BeanEntry.objects.order_by("pk").values_list("pk", "delta", "balance_after"))
            == ledger
        )
        assert seasons_begin_due() == 0
        assert not season_begin(season_id=season.pk)
        assert User.objects.get(username="ann").score == 5_000
        out = io.StringIO()
        call_command("audit_beans", stdout=out)
        assert out.getvalue().startswith("audit_beans: clean")

    def test_the_runner_begins_a_season_whose_start_has_come(self):
        _scores(ann=1_000)
        now = timezone.now()
        later = Season.objects.create(name="Later", starts_at=now + DAY, ends_at=now + 2 * DAY)
        hooks.runner_round()
        assert Season.objects.get(pk=later.pk).begun_at is None
        due = Season.objects.create(name="Now", starts_at=now - HOUR, ends_at=now + HOUR)
        hooks.runner_round()
        assert Season.objects.get(pk=due.pk).begun_at is not None
        assert User.objects.get(username="ann").score == 500
        out = io.StringIO()
        call_command("season_begin", stdout=out)
        assert out.getvalue().startswith("0 seasons begun")


class SeasonHandsTests:
    def test_a_hand_played_in_the_season_moves_the_standing_and_its_peak(
        self, append_only_triggers
    ):
        humans = [make_player() for _ in range(3)]
        User.objects.filter(pk__in=[h.pk for h in humans]).update(score=400)
        season = Season.objects.create(
            name="Summer", starts_at=timezone.now() - HOUR, ends_at=timezone.now() + DAY
        )
        season_begin(season_id=season.pk)
        table = seated_table(make_room("classic3"), humans)
        for _ in range(4):
            game_services.hand_start(table_id=table.pk)
            hand = play_to_end(table)
            if (hand.result or {}).get("beans"):
                break
        outcomes = HandOutcome.objects.filter(hand=hand)
        assert outcomes.count() == 3 and all(o.season_id == season.pk for o in outcomes)
        for human in humans:
            score = User.objects.get(pk=human.pk).score
            standing = SeasonStanding.objects.get(season=season, user=human)
            assert standing.hands == 1 and standing.score == score
            assert standing.score_start == 200
            assert standing.score_peak == max(200, score)
            assert standing.peak_title == title_for(standing.score_peak)
        # a hand after the season's end counts in none
        Season.objects.filter(pk=season.pk).update(
            ends_at=timezone.now() - datetime.timedelta(seconds=1)
        )
        people = [make_player() for _ in range(3)]
        late = settled_hand(make_table(), people, landlord=[0], landlord_won=True)
        hand_finished_record(hand=late)
        assert not HandOutcome.objects.filter(hand=late, season__isnull=False).exists()

    def test_season_boards_and_the_profile_badges(self, client):
        ann, ben, cat = (make_player(n, beans=0) for n in ("ann", "ben", "cat"))
        User.objects.filter(username="ann").update(score=3_000)
        now = timezone.now()
        season = Season.objects.create(name="Autumn", starts_at=now - DAY, ends_at=now + DAY)
        season_begin(season_id=season.pk)
        table = make_table("classic3")
        for landlord in (0, 1):
            hand = settled_hand(table, [ann, ben, cat], landlord=[landlord], landlord_won=True)
            hand.result["score_after"] = [1_500 + 900 * (landlord == 0), 50, 10]
            hand_finished_record(hand=hand)
        rows = leaderboard_season_score(season=season)
        assert [(r.username, r.value, r.hands) for r in rows] == [
            ("ann", 1_500, 2), ("ben", 50, 2), ("cat", 10, 2),
        ]  # fmt: skip
        assert rows[0].badge == title_for(2_400)
        client.cookies["django_language"] = "en"
        page = client.get(reverse("leaderboard") + f"?by=score&season={season.pk}")
        text = page.content.decode()
        assert "Autumn (current)" in text and str(title_for(2_400)) in text
        beans = client.get(
            reverse("leaderboard") + f"?by=beans&season={season.pk}&variant=classic3"
        )
        assert reverse("player_profile", args=["cat"]) in beans.content.decode()
        rating = client.get(
            reverse("leaderboard") + f"?by=rating&season={season.pk}&variant=classic3"
        )
        assert reverse("player_profile", args=["ann"]) in rating.content.decode()
        # over: the badge is on the profile, the season stays on the board's selector
        Season.objects.filter(pk=season.pk).update(ends_at=timezone.now() - HOUR)
        for lang in ("zh-hans", "zh-hant", "en"):
            client.cookies["django_language"] = lang
            text = client.get(reverse("player_profile", args=["ann"])).content.decode()
            assert 'id="season-badges"' in text and "Autumn" in text
        assert str(title_for(2_400)) in text
        assert [b.peak_title for b in profile_badges(user=ann)] == [title_for(2_400)]
        assert "(current)" not in client.get(reverse("leaderboard")).content.decode()

    def test_the_board_shows_the_season_under_way_unless_another_is_chosen(self, client):
        ann, ben, cat = (make_player(n, beans=0) for n in ("ann", "ben", "cat"))
        make_player("dan", beans=0)
        User.objects.filter(username="dan").update(score=5_000)  # all time, dan leads
        now = timezone.now()
        past = Season.objects.create(
            name="Summer", starts_at=now - 10 * DAY, ends_at=now - 5 * DAY, begun_at=now - 10 * DAY
        )
        season = Season.objects.create(name="Autumn", starts_at=now - DAY, ends_at=now + DAY)
        season_begin(season_id=season.pk)
        hand = settled_hand(make_table(), [ann, ben, cat], landlord=[0], landlord_won=True)
        hand_finished_record(hand=hand)
        client.cookies["django_language"] = "en"

        def shown(query: str = "") -> tuple[object, list[str], str]:
            page = client.get(reverse("leaderboard") + query)
            rows = [r.username for r in page.context["rows"]]
            return page.context["season"], rows, page.content.decode()

        season_shown, rows, text = shown()
        assert season_shown == season and "dan" not in rows  # he has not played in it
        assert f'value="{season.pk}" selected>Autumn (current)' in text
        for board in ("by=beans&variant=classic3", "by=rating&variant=classic3"):
            assert shown(f"?{board}")[0] == season
        # all time (no season, the period applies) and a past season stay one choice away
        season_shown, rows, text = shown(f"?season={NO_SEASON}&days=all")
        assert season_shown is None and rows[0] == "dan"
        assert f'value="{NO_SEASON}" selected>' in text
        assert shown(f"?season={past.pk}")[0] == past
        # once it is over, the board is all time again
        Season.objects.filter(pk=season.pk).update(ends_at=now - HOUR)
        season_shown, rows, _ = shown()
        assert season_shown is None and rows[0] == "dan"

    def test_the_season_rating_board_ranks_by_the_rating_at_the_season_end(self):
        ann, ben, cat = (make_player(n, beans=0) for n in ("ann", "ben", "cat"))
        now = timezone.now()
        season = Season.objects.create(
            name="Winter", starts_at=now - 10 * DAY, ends_at=now - 5 * DAY, begun_at=now - 10 * DAY
        )
        table = make_table("classic3")
        hand_finished_record(
            hand=settled_hand(
                table, [ann, ben, cat], landlord=[0], landlord_won=True, when=now - 7 * DAY
            )
        )
        for _ in range(3):  # after the season: ben wins, and the current board follows
            hand_finished_record(
                hand=settled_hand(table, [ann, ben, cat], landlord=[1], landlord_won=True)
            )
        in_season = leaderboard_rating(variant_key="classic3", season=season)
        assert in_season[0].username == "ann" and [r.hands for r in in_season] == [1, 1, 1]
        assert leaderboard_rating(variant_key="classic3")[0].username == "ben"


class AdminTests:
    def test_an_operator_opens_a_season_that_begins_at_once(
        self, staff_client, django_capture_on_commit_callbacks
    ):
        _scores(ann=800)
        now = timezone.localtime()
        url = reverse("admin:club_season_add")
        form = {
            "name": "Club night season",
            "starts_at_0": (now - HOUR).strftime("%Y-%m-%d"),
            "starts_at_1": (now - HOUR).strftime("%H:%M:%S"),
            "ends_at_0": (now + 30 * DAY).strftime("%Y-%m-%d"),
            "ends_at_1": "12:00:00",
        }
        with django_capture_on_commit_callbacks(execute=True):
            response = staff_client.post(url, form)
        assert response.status_code == 302
        season = Season.objects.get(name="Club night season")
        assert season.begun_at is not None
        assert User.objects.get(username="ann").score == 400
        # its start stays now; an overlapping season is refused with a message
        change = staff_client.get(reverse("admin:club_season_change", args=[season.pk]))
        assert 'name="starts_at_0"' not in change.content.decode()
        overlapping = staff_client.post(url, {**form, "name": "Clash"})
        assert overlapping.status_code == 200 and not Season.objects.filter(name="Clash").exists()
        assert "Club night season" in overlapping.content.decode()
        backwards = staff_client.post(
            url, {**form, "name": "Backwards", "ends_at_0": (now - 3 * DAY).strftime("%Y-%m-%d")}
        )
        assert backwards.status_code == 200 and not Season.objects.filter(name="Backwards").exists()
        assert staff_client.get(reverse("admin:club_seasonreset_changelist")).status_code == 200
        assert staff_client.get(reverse("admin:club_rating_changelist")).status_code == 200
