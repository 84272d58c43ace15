"""Every page a reader can open about a hand, its table and its players, fetched in process
(Django's test client) while a seeded driver plays the hand, and checked against what that
reader may know at that version with the frames' checks (tests/support/leaks.py): issue #35.

Versions are sampled, not all checked: the hand's pages (the table, its regions, the replay
viewer and an htmx step of it, the record, the verify page) at the deal, at the first version
of each phase (so once each step's secret is fixed: the partner chosen, the card called, the
reveals closed), every ``PLAY_STRIDE``-th version of the play and at the end; the pages about
its players (profiles, the hand list, the leaderboards, the lobby) at the deal, when play
begins and at the end. Every version of four variants' hands, each page for five or six
readers, took minutes.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.test import Client
from django.urls import reverse

from games import services
from games.engine.hand import autoplay_action, legal_actions, waiting_seats
from games.engine.state import HIDDEN_SOLO, PHASE_PLAY
from games.engine.views import public_view, view_for
from games.models import Hand, Table
from games.reads.selectors import hand_state
from games.runner.deadlines import hand_apply_due_deadlines
from tests.support.leaks import check_frame

PLAY_STRIDE = 40
# what differs between two fetches of an unchanged page: form tokens, the server's clock
VOLATILE = re.compile(r'(csrfmiddlewaretoken" value="|data-now="|"X-CSRFToken": ")[^"]*"')


def seeded_choice(state: Any, seat: int, rng: random.Random) -> dict[str, Any]:
    """A seat's decision as a client sends it: the most a bid can (a classic3 deal everyone
    passed is never dealt again at a managed table), 暗独打 whenever it is offered (the secret
    the pages must keep), any other choice at random, and 托管's play."""
    actions = legal_actions(state, seat)
    bids = [a for a in actions if a.act == "bid"]
    hidden = [a for a in actions if a.act == "partner" and a.value == HIDDEN_SOLO]
    choices = [a for a in actions if a.act not in ("play", "pass", "autoplay", "bid")]
    if bids:
        action = max(bids, key=lambda a: a.value)
    elif hidden:
        action = hidden[0]
    elif choices:
        action = rng.choice(choices)
    else:
        action = autoplay_action(state, seat)
    data = action.to_json()
    data.pop("seat")
    return data


def play_seeded(
    table: Table | int,
    users: dict[int, Any],
    *,
    rng: random.Random,
    visit: Callable[[Hand], None],
    limit: int = 1000,
) -> Hand:
    """Play the table's active hand to its end, every seat a person (``users`` by seat) taking
    ``seeded_choice`` through the service, a sealed step closed by the deadline runner once all
    decided; ``visit`` sees the hand at its first version and after every change."""
    table_id = table if isinstance(table, int) else table.pk
    hand = Hand.objects.get(table_id=table_id, status=Hand.Status.ACTIVE)
    visit(hand)
    for _ in range(limit):
        state = hand_state(hand)
        if state.finished:
            return hand
        waiting = waiting_seats(state)
        if waiting:
            services.hand_submit_action(
                hand_id=hand.pk,
                user=users[waiting[0]],
                action=seeded_choice(state, waiting[0], rng),
                expected_version=hand.version,
            )
        else:
            assert hand.deadline_at is not None, "a step nobody is asked in has no deadline"
            hand_apply_due_deadlines(now=hand.deadline_at)
        hand = Hand.objects.get(pk=hand.pk)
        visit(hand)
    raise AssertionError("the hand did not end")


@dataclass
class Reader:
    label: str
    client: Client
    seat: int | None = None  # his seat in the hand, None: he watches


def reader(label: str, user: Any, seat: int | None = None) -> Reader:
    client = Client()
    client.force_login(user)
    client.cookies["django_language"] = "en"
    return Reader(label, client, seat)


def view_of(hand: Hand, seat: int | None) -> dict[str, Any]:
    state = hand_state(hand)
    return view_for(state, seat) if seat is not None else public_view(state)


def hand_urls(hand: Hand) -> list[tuple[str, dict[str, str]]]:
    """The pages of a hand and its table: (url, extra request headers)."""
    return [
        (reverse("table", args=[hand.table_id]), {}),
        (reverse("table_regions", args=[hand.table_id]), {}),
        (reverse("hand_detail", args=[hand.pk]), {}),
        (reverse("hand_detail", args=[hand.pk]) + "?step=1", {"HTTP_HX_REQUEST": "true"}),
        (reverse("hand_record", args=[hand.pk]), {}),
        (reverse("hand_verify", args=[hand.pk]), {}),
    ]


def people_urls(usernames: Sequence[str]) -> list[tuple[str, dict[str, str]]]:
    """The pages about players: their profiles, the reader's hand list, the boards, the lobby."""
    urls = [(reverse("player_profile", args=[name]), {}) for name in usernames]
    urls += [(reverse(name), {}) for name in ("hand_list", "leaderboard", "lobby")]
    urls.append((reverse("leaderboard") + "?by=rating", {}))
    return urls


def fetch(who: Reader, url: str, headers: dict[str, str]) -> tuple[int, str]:
    response = who.client.get(url, **headers)
    assert response.status_code in (200, 404), f"{who.label} {url}: {response.status_code}"
    return response.status_code, response.content.decode()


def check_pages(
    who: Reader, urls: Sequence[tuple[str, dict[str, str]]], view: dict[str, Any]
) -> dict[str, int]:
    """Fetch ``urls`` as ``who`` and check each against his ``view``; returns the statuses."""
    statuses = {}
    for url, headers in urls:
        status, html = fetch(who, url, headers)
        statuses[url + ("#htmx" if headers else "")] = status
        check_frame(f"{who.label} at {url} (v{view.get('version', '?')})", html, view)
    return statuses


@dataclass
class Sampler:
    """Which versions of a hand to check (see the module's note); keeps the ones it checked."""

    last: Any = None  # the state at the version before
    checked: list[int] = field(default_factory=list)

    def wants(self, hand: Hand) -> tuple[bool, bool]:
        """(check the hand's pages, check the pages about its players) at this version."""
        state = hand_state(hand)
        before, self.last = self.last, state
        moved_on = before is None or before.phase != state.phase or state.finished
        hand_pages = moved_on or (state.phase == PHASE_PLAY and hand.version % PLAY_STRIDE == 0)
        people_pages = before is None or state.finished or (moved_on and state.phase == PHASE_PLAY)
        if hand_pages:
            self.checked.append(hand.version)
        return hand_pages, people_pages


def stable_parts(html: str) -> str:
    """A page without what changes between two fetches of the same facts."""
    return VOLATILE.sub("", html)
