"""The operators' forms (issue #34 item 10): an event's defaults make a valid event of either
format, a start that has passed is refused in the club's time zone's words, the admin is
headed by the club's name, and its event, schedule, entry, settlement and room pages speak the
reader's language (what Django's own catalogues lack aside)."""

from __future__ import annotations

import datetime
import html
import re

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from competitions import prizes
from competitions.models import Entry, Event, Settlement
from tests.support.languages import foreign, visible_text
from tests.support.tables import make_room

pytestmark = pytest.mark.django_db

LANGUAGES = ("zh-hans", "zh-hant", "en")
# What Django 5.2's own zh_Hans / zh_Hant admin catalogues leave in English or mix up, and the
# alt text of its yes/no icons (hard-coded in English): not ours.
DJANGO_GAPS = {
    "Add link",
    "Change or view list link",
    "Model name",
    "Search",
    "件",  # Django's zh_Hans
    "象",  # Django's zh_Hant: "選擇此對象進行操作"
    "True",
    "False",
}


def _form_defaults(body: str) -> dict[str, str]:
    """The values a browser would submit from an admin add page left as it is."""
    data: dict[str, str] = {}
    for tag in re.findall(r"<input\b[^>]*>", body):
        name = re.search(r'\bname="([^"]+)"', tag)
        if not name or 'type="submit"' in tag:
            continue
        if 'type="checkbox"' in tag:
            if " checked" in tag:
                data[name.group(1)] = "on"
            continue
        value = re.search(r'\bvalue="([^"]*)"', tag)
        data[name.group(1)] = html.unescape(value.group(1)) if value else ""
    for name, inner in re.findall(r'<select\b[^>]*name="([^"]+)"[^>]*>(.*?)</select>', body, re.S):
        chosen = re.search(r'<option value="([^"]*)"[^>]*selected', inner)
        data[name] = chosen.group(1) if chosen else ""
    for name, inner in re.findall(
        r'<textarea\b[^>]*name="([^"]+)"[^>]*>(.*?)</textarea>', body, re.S
    ):
        data[name] = html.unescape(inner.strip())
    return data


def _start(at: datetime.datetime) -> dict[str, str]:
    local = timezone.localtime(at)
    return {"starts_at_0": local.strftime("%Y-%m-%d"), "starts_at_1": local.strftime("%H:%M:%S")}


@pytest.mark.parametrize(("fmt", "fewest"), [("arena", 5), ("duplicate", 10)])
def test_the_event_forms_defaults_make_a_valid_event_of_either_format(staff_client, fmt, fewest):
    room = make_room("qq5")
    url = reverse("admin:competitions_event_add")
    data = _form_defaults(staff_client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode())
    assert data["format"] == "arena" and data["min_entrants"] == ""
    data.update(
        name="Friday night",
        room=str(room.pk),
        format=fmt,
        **_start(timezone.now() + datetime.timedelta(hours=2)),
    )
    response = staff_client.post(url, data, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 302, re.findall(
        r'class="errorlist[^"]*">(.*?)</ul>', response.content.decode(), re.S
    )
    event = Event.objects.get(name="Friday night")
    assert (event.format, event.min_entrants) == (fmt, fewest)
    # a minimum below the room's and format's is still refused by the server
    data.update(name="Too few", min_entrants=str(fewest - 1))
    refused = staff_client.post(url, data, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f"At least {fewest} for this room and format." in refused
    assert not Event.objects.filter(name="Too few").exists()


def test_a_start_that_has_passed_is_refused_in_the_clubs_time_zone(staff_client):
    room = make_room("classic3")
    url = reverse("admin:competitions_event_add")
    data = _form_defaults(staff_client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode())
    past = timezone.now() - datetime.timedelta(hours=8)
    data.update(name="Yesterday's", room=str(room.pk), **_start(past))
    body = html.unescape(staff_client.post(url, data, HTTP_ACCEPT_LANGUAGE="en").content.decode())
    shown = timezone.localtime(past).strftime("%Y-%m-%d %H:%M")
    assert f"This start ({shown}) has passed" in body
    assert f"in the club's time zone, {settings.TIME_ZONE}." in body
    assert not Event.objects.filter(name="Yesterday's").exists()
    # the same event a little later in the club's day is accepted
    data.update(_start(timezone.now() + datetime.timedelta(minutes=30)))
    assert staff_client.post(url, data).status_code == 302


def test_the_admin_is_headed_by_the_clubs_name(staff_client, settings):
    page = staff_client.get(reverse("admin:index"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "<title>站点管理 | 斗地主俱乐部</title>" in page.content.decode()
    assert "Django" not in visible_text(page.content.decode())
    settings.DDZ_CLUB_NAME = "Lakeside Club"
    page = staff_client.get(reverse("admin:index"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert '<a href="/admin/">Lakeside Club</a>' in page.content.decode()


def test_the_finished_events_heading_says_they_are_over(client):
    for language, heading in (("zh-hans", "已结束"), ("zh-hant", "已結束"), ("en", "Finished")):
        body = client.get(reverse("event_list"), HTTP_ACCEPT_LANGUAGE=language).content.decode()
        assert re.search(rf"<h2[^>]*>{heading}</h2>", body), language


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_event_and_room_admin_pages_speak_the_readers_language(staff_client, language):
    room = make_room("fenzhou5", name="Fenzhou")
    event = Event.objects.create(
        name="Spring", room=room, format="arena", starts_at=timezone.now(), min_entrants=5
    )
    Entry.objects.create(event=event, user=staff_client.user)  # the entrants' table shows
    Settlement.objects.create(event=event, fees=0, house=0)
    pages = [
        reverse("admin:index"),
        reverse("admin:competitions_event_add"),
        reverse("admin:competitions_event_change", args=[event.pk]),
        reverse("admin:competitions_schedule_add"),
        reverse("admin:competitions_entry_changelist"),
        reverse("admin:competitions_settlement_changelist"),
        reverse("admin:competitions_settlement_change", args=[Settlement.objects.get().pk]),
        reverse("admin:games_room_add"),
        reverse("admin:games_room_change", args=[room.pk]),
    ]
    for url in pages:
        body = staff_client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
        assert set(foreign(body, language)) <= DJANGO_GAPS, url
        if language != "en":
            # no English word of ours: only data (names) and Django's own gaps are Latin
            text = visible_text(body)
            for data in ("Fenzhou", "Spring", "operator"):
                text = text.replace(data, "")
            words = set(re.findall(r"[A-Za-z][A-Za-z ]*[A-Za-z]", text))
            assert words <= DJANGO_GAPS, (url, sorted(words - DJANGO_GAPS))


@pytest.mark.parametrize(
    ("language", "bands", "refusal"),
    [
        ("zh-hans", "1:50, 2:thirty", "“2:thirty”不是奖金档：请写成 1:50, 2:30, 3-4:10 这样。"),
        ("zh-hant", "1:50, 3:50", "獎金檔須從第 1 名起連續排列，不留空缺、不重疊，每檔至少 1%。"),
        ("en", "1:50, 2:30", "The bands' shares add up to 100 percent."),
    ],
)
def test_refused_prize_bands_are_worded_in_the_readers_language(
    staff_client, language, bands, refusal
):
    """The event form refuses bad prize bands in the admin's language, not the pure rules'
    English: "2:thirty" is not a band, "1:50, 3:50" skips rank 2, "1:50, 2:30" shares out
    80 %. Wrong rule caught: showing ``str()`` of the refusal ("not a band: '2:thirty'")."""
    room = make_room("classic3")
    url = reverse("admin:competitions_event_add")
    data = _form_defaults(staff_client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode())
    data.update(
        name="Banded",
        room=str(room.pk),
        prize_bands=bands,
        **_start(timezone.now() + datetime.timedelta(hours=2)),
    )
    body = staff_client.post(url, data, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    with pytest.raises(prizes.BadBands) as english:
        prizes.parse_bands(bands)
    assert refusal in html.unescape(body)
    assert str(english.value) not in html.unescape(body)
    assert set(foreign(body, language)) <= DJANGO_GAPS
    assert not Event.objects.filter(name="Banded").exists()
