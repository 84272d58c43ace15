"""Once an event is over (finished or cancelled), a player's register, withdraw, pause and
resume are refused with a clear message through the page, and change nothing."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils.translation import override

from accounts.models import BeanEntry
from competitions import services
from competitions.errors import MESSAGES as EVENT_MESSAGES
from competitions.errors import EventCode
from competitions.models import Entry, Event
from tests.competitions.helpers import entrants, make_event
from tests.support.tables import make_player, make_room

pytestmark = pytest.mark.django_db

POSTS = [
    ("event_pause", {"paused": "1"}),
    ("event_pause", {"paused": "0"}),
    ("event_withdraw", {}),
    ("event_register", {}),
]


def _facts(event: Event) -> tuple:
    entries = Entry.objects.filter(event=event).order_by("pk")
    return (
        list(entries.values_list("user_id", "active", "paused", "fee_paid", "waiting_since")),
        BeanEntry.objects.filter(event_ref=event.ledger_ref).count(),
        Event.objects.filter(pk=event.pk).values_list("status", flat=True).get(),
    )


@pytest.mark.parametrize("fmt", ["arena", "duplicate"])
@pytest.mark.parametrize("end", ["finish", "cancel"])
def test_an_event_over_refuses_every_players_post(client, fmt, end):
    rounds = {"rounds": 1, "boards_per_round": 1, "min_entrants": 6} if fmt == "duplicate" else {}
    event = make_event(make_room("classic3"), format=fmt, **rounds)
    players = entrants(event, 6)
    if end == "finish":
        services.event_finish(event_id=event.pk)
    else:
        services.event_cancel(event_id=event.pk)
    before = _facts(event)
    with override("en"):
        over = str(EVENT_MESSAGES[EventCode.OVER])
    for user in (players[0], make_player()):  # an entrant, and someone who never entered
        client.force_login(user)
        for name, data in POSTS:
            client.cookies["django_language"] = "en"
            response = client.post(reverse(name, args=[event.pk]), data, follow=True)
            said = [str(m) for m in response.context["messages"]]
            assert said == [over], (name, data, said)
            assert _facts(event) == before, (name, data)
