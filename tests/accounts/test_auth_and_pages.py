"""allauth flows, the profile page in three languages, titles, the admin's access rules."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from accounts.models import BeanEntry, Title, User
from accounts.selectors import title_for, title_progress

pytestmark = pytest.mark.django_db

LANGUAGES = {
    "zh-hans": ["个人资料", "欢乐豆", "积分与称号", "包身工"],
    "zh-hant": ["個人資料", "歡樂豆", "積分與稱號", "包身工"],
    "en": ["Profile", "Beans", "Score and title", "Bonded Labourer"],
}


class TestAllauthFlows:
    def test_signup_grants_beans_and_logs_in(self, client, settings):
        settings.DDZ_SIGNUP_GRANT = 10_000
        response = client.post(
            reverse("account_signup"),
            {"username": "newbie", "password1": "a-Long-pass-9", "password2": "a-Long-pass-9"},
        )
        assert response.status_code == 302
        user = User.objects.get(username="newbie")
        assert user.beans == 10_000
        entry = BeanEntry.objects.get(user=user)
        assert entry.reason == BeanEntry.Reason.SIGNUP_GRANT
        assert client.get(reverse("profile")).status_code == 200

    def test_login_and_logout(self, client, make_user):
        make_user(username="alice")
        response = client.post(
            reverse("account_login"), {"login": "alice", "password": "pass-word-123"}
        )
        assert response.status_code == 302
        assert client.get(reverse("profile")).status_code == 200
        client.post(reverse("account_logout"))
        response = client.get(reverse("profile"))
        assert response.status_code == 302
        assert reverse("account_login") in response["Location"]

    def test_wrong_password_is_refused(self, client, make_user):
        make_user(username="bob")
        response = client.post(reverse("account_login"), {"login": "bob", "password": "nope"})
        assert response.status_code == 200
        assert "_auth_user_id" not in client.session

    def test_failed_logins_are_rate_limited(self, client, make_user):
        from django.core.cache import cache

        cache.clear()
        make_user(username="dave")
        pages = [
            client.post(
                reverse("account_login"),
                {"login": "dave", "password": "bad"},
                HTTP_ACCEPT_LANGUAGE="en",
            ).content.decode()
            for _ in range(6)
        ]
        # The right password is refused too once the limit is reached.
        last = client.post(
            reverse("account_login"),
            {"login": "dave", "password": "pass-word-123"},
            HTTP_ACCEPT_LANGUAGE="en",
        )
        cache.clear()
        assert "Too many failed login attempts" not in pages[0]
        assert "Too many failed login attempts" in pages[-1]
        assert "Too many failed login attempts" in last.content.decode()
        assert "_auth_user_id" not in client.session

    def test_password_change(self, client, make_user):
        user = make_user(username="carol")
        client.force_login(user)
        response = client.post(
            reverse("account_change_password"),
            {
                "oldpassword": "pass-word-123",
                "password1": "another-Pass-77",
                "password2": "another-Pass-77",
            },
        )
        assert response.status_code == 302
        user.refresh_from_db()
        assert user.check_password("another-Pass-77")


class TestTitles:
    @pytest.mark.parametrize(
        ("score", "name"),
        [
            (-50, "包身工"),
            (0, "包身工"),
            (29, "包身工"),
            (30, "短工"),
            (59, "短工"),
            (60, "长工"),
            (160_999, "丞相"),
            (161_000, "帝王"),
            (10**9, "帝王"),
        ],
    )
    def test_boundaries(self, score, name):
        assert title_for(score).name_hans == name

    def test_twenty_three_titles_with_all_names(self):
        titles = list(Title.objects.order_by("threshold"))
        assert len(titles) == 23
        assert titles[-1].name_hant == "帝王" and titles[2].name_hant == "長工"
        assert all(t.name_hans and t.name_hant and t.name_en for t in titles)

    def test_progress_to_next(self):
        progress = title_progress(45)
        assert progress.title.name_hans == "短工"
        assert progress.next_title.name_hans == "长工"
        assert progress.percent == 50
        assert progress.missing == 15
        assert title_progress(200_000).next_title is None


class TestProfile:
    @pytest.mark.parametrize("language", LANGUAGES)
    def test_renders_in_each_language(self, client, make_user, language):
        user = make_user(beans=1234)
        client.force_login(user)
        response = client.get(reverse("profile"), HTTP_ACCEPT_LANGUAGE=language)
        assert response.status_code == 200
        html = response.content.decode()
        for text in LANGUAGES[language]:
            assert text in html, (language, text)
        assert "1,234" in html or "1234" in html

    def test_language_switch_sets_the_cookie(self, client):
        response = client.post(reverse("set_language"), {"language": "en", "next": "/"})
        assert response.status_code == 302
        assert "Lobby" in client.get("/").content.decode()

    def test_relief_claim_by_htmx(self, client, make_user, settings):
        settings.DDZ_RELIEF_FLOOR = 1000
        settings.DDZ_RELIEF_GRANT = 2000
        user = make_user(beans=5)
        client.force_login(user)
        page = client.get(reverse("profile"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
        assert "Claim daily relief" in page
        response = client.post(
            reverse("relief_claim"), HTTP_HX_REQUEST="true", HTTP_ACCEPT_LANGUAGE="en"
        )
        html = response.content.decode()
        assert response.status_code == 200
        assert html.strip().startswith('<section class="card" id="wallet">')
        assert "2,005" in html or "2005" in html
        user.refresh_from_db()
        assert user.beans == 2005
        again = client.post(reverse("relief_claim"), HTTP_HX_REQUEST="true")
        assert again.status_code == 200
        user.refresh_from_db()
        assert user.beans == 2005

    def test_profile_needs_login(self, client):
        assert client.get(reverse("profile")).status_code == 302


ADMIN_PAGES = [
    "admin:index",
    "admin:accounts_user_changelist",
    "admin:accounts_beanentry_changelist",
    "admin:accounts_beanentry_house",
    "admin:accounts_title_changelist",
    "admin:accounts_handsettlement_changelist",
    "admin:games_room_changelist",
    "admin:games_room_add",
]


class TestAdmin:
    @pytest.mark.parametrize("page", ADMIN_PAGES)
    def test_renders_for_staff(self, staff_client, page):
        response = staff_client.get(reverse(page))
        assert response.status_code == 200

    @pytest.mark.parametrize("page", ADMIN_PAGES)
    def test_refuses_players_and_visitors(self, client, make_user, page):
        assert client.get(reverse(page)).status_code == 302  # to the admin login
        client.force_login(make_user())
        response = client.get(reverse(page))
        assert response.status_code == 302
        assert "login" in response["Location"]

    def test_ledger_is_read_only_with_totals(self, staff_client, make_user):
        player = make_user(beans=700)
        entry = BeanEntry.objects.get(user=player)
        response = staff_client.get(reverse("admin:accounts_beanentry_changelist"))
        assert 'id="ledger-totals"' in response.content.decode()
        assert response.context["totals"]["credit"] >= 700
        url = reverse("admin:accounts_beanentry_delete", args=[entry.pk])
        assert staff_client.post(url, {"post": "yes"}).status_code == 403
        filtered = staff_client.get(
            reverse("admin:accounts_beanentry_changelist"), {"reason__exact": "rake"}
        )
        assert filtered.context["totals"]["count"] == 0

    def test_adjust_action_asks_for_a_reason(self, staff_client, make_user):
        player = make_user(beans=100)
        url = reverse("admin:accounts_user_changelist")
        data = {"action": "adjust_beans", "_selected_action": [player.pk]}
        response = staff_client.post(url, data)
        assert response.status_code == 200
        assert "reason" in response.content.decode()
        response = staff_client.post(url, {**data, "apply": "1", "delta": "50", "reason": ""})
        assert response.status_code == 200  # the form again: a reason is required
        player.refresh_from_db()
        assert player.beans == 100
        staff_client.post(url, {**data, "apply": "1", "delta": "50", "reason": "tournament"})
        player.refresh_from_db()
        assert player.beans == 150
        entry = BeanEntry.objects.filter(user=player).latest("id")
        assert entry.note == "tournament"
        assert entry.actor == staff_client.user


def test_every_page_has_an_icon(client) -> None:
    from django.contrib.staticfiles import finders

    page = client.get(reverse("lobby")).content.decode()
    icon = re.search(r'<link rel="icon" href="([^"]+)"', page)
    assert icon is not None
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"] == icon.group(1)
    assert finders.find(icon.group(1).removeprefix("/static/"))


def test_the_signup_grant_is_no_signal_receiver():
    """The grant is the sign-up adapter's service call (docs/conventions.md §3: nothing writes
    from signals), so allauth's user_signed_up has no receiver of ours."""
    from allauth.account.signals import user_signed_up

    assert not user_signed_up.has_listeners(User)
