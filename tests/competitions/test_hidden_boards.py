"""A duplicate board is hidden until every table has played it (issue #35): its finished hands
are absent from profiles, stats, hand lists and leaderboards and move no rating (the event
page's rating column stands still) until the board opens; then the club records them in the
order they finished, and ``rating_recompute`` gives what the live updates gave.

The page-leak checks of tests/games/pages/test_page_leaks.py for events: a seeded driver plays
one table's hand while the entrants of the other table read every page about it, its table and
its players, checked against their own view and, for a duplicate board, unchanged until it
opens."""

from __future__ import annotations

import datetime
import random
import re

import pytest
from django.test import Client
from django.urls import reverse

from club.models import HandOutcome, RatedHand, Rating, RatingChange
from club.services.ratings import ratings_recompute
from competitions.models import Board, Event, Game
from games.models import Hand
from tests.competitions.helpers import START, entrants, make_event, step
from tests.support import page_leaks
from tests.support.leaks import check_frame
from tests.support.tables import make_room, play_to_end, users_by_seat

pytestmark = pytest.mark.django_db
SECOND = datetime.timedelta(seconds=1)
STANDING_ROW = re.compile(r'<tr data-user="[^"]*">.*?</tr>', re.S)


def _duplicate_started(variant: str = "classic3") -> tuple[Event, list[Game]]:
    room = make_room(variant, bot_delay_ms=0)
    fields = {"rounds": 1, "boards_per_round": 1, "min_entrants": 6, "format": "duplicate"}
    event = make_event(room, **fields)
    entrants(event, 6)
    event = step(event, START)
    games = list(Game.objects.filter(event=event).select_related("hand", "table").order_by("pk"))
    assert len(games) == 2
    return event, games


def _rating_facts(variant: str) -> list[tuple]:
    return list(
        Rating.objects.filter(variant_key=variant)
        .order_by("pk")
        .values_list("user_id", "baseline", "mu", "sigma", "hands")
    )


def test_a_hidden_boards_hands_count_only_when_it_opens(client, append_only_triggers):
    event, (first, second) = _duplicate_started()
    reader = next(u for u in users_by_seat(second.table).values())
    client.force_login(reader)
    players = list(users_by_seat(first.table).values())
    names = [u.username for u in players]

    def pages() -> dict[str, str]:
        urls = [reverse("player_profile", args=[n]) for n in names]
        urls += [reverse("leaderboard"), reverse("leaderboard") + "?by=rating&variant=classic3"]
        out = {url: client.get(url).content.decode() for url in urls}
        event_page = client.get(reverse("event_detail", args=[event.pk])).content.decode()
        out["standings"] = "".join(STANDING_ROW.findall(event_page))
        return {url: page_leaks.stable_parts(html) for url, html in out.items()}

    before = pages()
    ratings = _rating_facts("classic3")
    play_to_end(first.table)
    event = step(event, START + SECOND)
    hand = Hand.objects.get(pk=first.hand_id)
    assert hand.status == Hand.Status.FINISHED and not Board.objects.get().scored
    # nothing of the finished hand yet: no outcome, no rating, no page moved
    assert not HandOutcome.objects.filter(hand=hand).exists()
    assert not RatedHand.objects.exists() and _rating_facts("classic3") == ratings
    assert pages() == before
    # nor in his own hand list, whose replay link would not open
    own = Client()
    own.force_login(players[0])
    assert (
        reverse("hand_detail", args=[hand.pk]) not in own.get(reverse("hand_list")).content.decode()
    )
    assert reverse("hand_detail", args=[hand.pk]) not in "".join(pages().values())
    # the other table finishes: the board opens, both hands count, in the order they ended
    play_to_end(second.table)
    event = step(event, START + 2 * SECOND)
    assert Board.objects.get().scored
    rated = list(RatedHand.objects.order_by("pk").values_list("hand_id", flat=True))
    assert rated == [first.hand_id, second.hand_id]
    assert HandOutcome.objects.filter(hand_id__in=rated).count() == 6
    after = pages()
    assert reverse("hand_detail", args=[hand.pk]) in own.get(reverse("hand_list")).content.decode()
    assert after != before
    profile = after[reverse("player_profile", args=[names[0]])]
    assert reverse("hand_detail", args=[hand.pk]) in profile
    # the recompute replays the same sequence: it changes nothing the live updates wrote
    changes = list(RatingChange.objects.order_by("pk").values_list("mu_after", "sigma_after"))
    live = _rating_facts("classic3")
    report = ratings_recompute(variant_key="classic3")
    assert (report.rated_hands, report.ratings_changed, report.changes_rewritten) == (2, 0, 0)
    assert _rating_facts("classic3") == live
    assert list(RatingChange.objects.order_by("pk").values_list("mu_after", "sigma_after")) == (
        changes
    )


def test_recompute_leaves_a_hidden_hand_unrated(append_only_triggers):
    event, (first, _second) = _duplicate_started()
    play_to_end(first.table)
    step(event, START + SECOND)
    report = ratings_recompute(variant_key="classic3")
    assert report.appended == 0 and not RatedHand.objects.exists()


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["duplicate", "arena"])
def test_no_event_page_tells_another_table_more_than_his_view(fmt, append_only_triggers):
    """One table's hand played by the seeded driver; the entrants of the other table read
    every page about it. In a duplicate event they may not open its table or hand, and the
    pages about its players stay as they were until the board opens; in an arena they watch it
    as spectators, and every page is checked against the spectator's view."""
    if fmt == "duplicate":
        event, (first, second) = _duplicate_started()
    else:
        event = make_event(make_room("classic3", bot_delay_ms=0), min_entrants=6)
        entrants(event, 6)
        event = step(event, START)
        first, second = Game.objects.filter(event=event).select_related("table").order_by("pk")
    players = users_by_seat(first.table)
    others = users_by_seat(second.table)
    names = [u.username for u in players.values()]
    readers = [page_leaks.reader(f"seat{s}", u, s) for s, u in players.items()]
    outsiders = [page_leaks.reader(f"other table seat{s}", u, s) for s, u in others.items()]
    other_hand = Hand.objects.get(pk=second.hand_id)
    people = page_leaks.people_urls(names)
    people.append((reverse("event_detail", args=[event.pk]), {}))
    unchanged: dict[tuple[str, str], str] = {}

    def visit(hand: Hand) -> None:
        hand_pages, people_pages = sampler.wants(hand)
        for who in readers:
            view = page_leaks.view_of(hand, who.seat)
            urls = page_leaks.hand_urls(hand) if hand_pages else []
            page_leaks.check_pages(who, urls + (people if people_pages else []), view)
        for who in outsiders if hand_pages else []:
            if fmt == "duplicate":
                # he knows his own table's hand and nothing of this one
                view = page_leaks.view_of(other_hand, who.seat)
                statuses = page_leaks.check_pages(who, page_leaks.hand_urls(hand), view)
                assert set(statuses.values()) == {404}, statuses
                for url, headers in people:
                    _status, html = page_leaks.fetch(who, url, headers)
                    check_frame(f"{who.label} at {url}", html, view)
                    assert f"/hands/{hand.pk}/" not in html, (who.label, url)
                    if url.startswith("/players/") or "leaderboard" in url:
                        stable = page_leaks.stable_parts(html)
                        assert unchanged.setdefault((who.label, url), stable) == stable, url
                    elif url.startswith("/events/"):
                        rows = "".join(STANDING_ROW.findall(html))
                        assert unchanged.setdefault((who.label, url), rows) == rows, who.label
            else:
                view = page_leaks.view_of(hand, None)  # a spectator of this table
                page_leaks.check_pages(who, page_leaks.hand_urls(hand) + people, view)

    sampler = page_leaks.Sampler()
    hand = page_leaks.play_seeded(first.table, players, rng=random.Random(fmt), visit=visit)
    assert hand.status == Hand.Status.FINISHED
    event = step(event, START + SECOND)
    if fmt == "duplicate":
        visit(hand)  # finished, the board still in play at the other table
        play_to_end(second.table)
        event = step(event, START + 2 * SECOND)
        assert Board.objects.get().scored
        who = outsiders[0]
        _status, html = page_leaks.fetch(who, reverse("player_profile", args=[names[0]]), {})
        assert f"/hands/{hand.pk}/" in html  # the board is open: the check above could fail
