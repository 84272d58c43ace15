"""Duplicate (复式) events end to end (clock injected): the same committed deals at every table
of a board, matchpoints per seat-role, a board hidden from entrants until every table finished
it, rounds re-seated by standings, prizes at the end."""

from __future__ import annotations

import datetime
from fractions import Fraction

import pytest
from django.urls import reverse

from competitions import duplicate
from competitions.models import Board, Entry, Event, Game
from games.engine import BotLevel
from games.engine.dealing import seed_commitment
from games.models import Hand, Room
from games.reads.private import may_watch
from games.reads.selectors import hands_readable
from games.table.stakes import table_bot_level
from tests.competitions.helpers import (
    START,
    assert_audit_clean,
    entrants,
    event_rows_sum,
    live_tables,
    make_event,
    play_all,
    step,
)
from tests.support.tables import make_player, make_room, play_to_end

pytestmark = pytest.mark.django_db
SECOND = datetime.timedelta(seconds=1)


def _duplicate(room, **fields):
    fields = {
        "format": "duplicate",
        "rounds": 2,
        "boards_per_round": 2,
        "break_seconds": 30,
        "min_entrants": 6,
        **fields,
    }
    return make_event(room, **fields)


class DuplicateTests:
    def test_a_whole_duplicate_event(self, append_only_triggers):
        room = make_room("classic3", rake_percent=5, bot_delay_ms=0)
        event = _duplicate(room)
        players = entrants(event, 6)
        now = START
        event = step(event, now)
        assert event.status == Event.Status.RUNNING and event.round == 1
        boards = list(Board.objects.filter(event=event, round=1))
        assert [b.commitment for b in boards] == [seed_commitment(b.seed) for b in boards]
        first = list(Game.objects.filter(event=event, board=boards[0]).select_related("hand"))
        assert len(first) == 2
        # the same committed deal at every table of the board
        assert {g.hand.commitment for g in first} == {boards[0].commitment}
        assert len({str(g.hand.record["deal"]) for g in first}) == 1
        # table 1 finishes board 1 first: nothing of the board is visible to an entrant yet
        early, late = first
        play_to_end(early.table)
        now += SECOND
        event = step(event, now)
        outsider = players[0] if players[0].pk not in early.players else players[-1]
        watcher = next(p for p in players if p.pk in early.players)
        assert early.hand.pk not in hands_readable(hand_ids=[early.hand.pk], user=watcher)
        assert not may_watch(late.table, watcher)
        assert may_watch(late.table, next(p for p in players if p.pk in late.players))
        assert may_watch(late.table, make_player())  # not an entrant
        assert outsider  # (every entrant sits at one of the two tables)
        # board 2 is already dealt at the table that finished; board 1 is not scored
        assert Game.objects.filter(event=event, board=boards[1]).count() == 1
        assert not Board.objects.get(pk=boards[0].pk).scored
        play_to_end(late.table)
        event = step(event, now + SECOND)
        assert Board.objects.get(pk=boards[0].pk).scored
        assert early.hand.pk in hands_readable(hand_ids=[early.hand.pk], user=watcher)
        assert may_watch(late.table, watcher)
        # matchpoints of a board sum to its fixed total (3 seats, 2 tables: 3 × 1)
        total = sum(Fraction(e.matchpoints) for e in Entry.objects.filter(event=event))
        assert total == 3 * duplicate.group_total(2)
        while True:
            tables = live_tables(event)
            if not tables:
                now += datetime.timedelta(seconds=31)
                event = step(event, now)
                if event.status == Event.Status.FINISHED or not live_tables(event):
                    break
                continue
            for table in tables:
                play_to_end(table)
            now += SECOND
            event = step(event, now)
        event = step(event, now + datetime.timedelta(seconds=31))
        assert event.status == Event.Status.FINISHED
        assert Board.objects.filter(event=event).count() == 4
        assert all(b.scored for b in Board.objects.filter(event=event))
        games = Game.objects.filter(event=event)
        assert {g.round for g in games} == {1, 2}
        # round 2 re-seated avoiding round 1's tablemates where it can: six players from two
        # tables of three cannot avoid them all, but each new table holds just one old pair
        mates = {p: set(g.players) - {p} for g in games.filter(round=1) for p in g.players}
        for game in games.filter(round=2, board__number=1):
            seated = game.players
            again = [(a, b) for i, a in enumerate(seated) for b in seated[i + 1 :] if b in mates[a]]
            assert len(again) == 1, (seated, mates)
        entries = Entry.objects.filter(event=event)
        assert sum(Fraction(e.matchpoints) for e in entries) == 4 * 3 * duplicate.group_total(2)
        assert all(Fraction(e.matchpoints_top) == 4 for e in entries)
        assert sorted(e.rank for e in entries) == list(range(1, 7))
        assert event_rows_sum(event) == 0
        assert sum(e.prize for e in entries) == 600 - 30
        assert_audit_clean()
        # every hand of the event is readable once its board was played everywhere
        hand_ids = list(games.values_list("hand_id", flat=True))
        assert hands_readable(hand_ids=hand_ids, user=players[0]) == set(hand_ids)

    def test_the_event_page_reveals_a_rounds_seeds_only_when_it_is_over(
        self, client, append_only_triggers
    ):
        room = make_room("classic3", bot_delay_ms=0)
        event = _duplicate(room, boards_per_round=1)
        client.force_login(entrants(event, 6)[0])

        def page() -> str:
            return client.get(reverse("event_detail", args=[event.pk])).content.decode()

        event = step(event, START)
        (first,) = Board.objects.filter(event=event, round=1)
        text = page()
        # the seed is every table's deal: shown before the round is over, it would show
        # the entrants the cards of the tables still playing the board
        assert first.commitment in text and first.seed not in text
        assert play_all(event) == 2
        event = step(event, START + SECOND)
        assert Board.objects.get(pk=first.pk).scored
        assert first.seed in page()
        event = step(event, START + 32 * SECOND)
        assert event.round == 2
        (second,) = Board.objects.filter(event=event, round=2)
        text = page()
        assert first.seed in text and second.commitment in text and second.seed not in text

    def test_bots_complete_two_tables(self, append_only_triggers):
        room = make_room("classic3", bot_delay_ms=0)
        event = _duplicate(room, allow_bots=True, min_entrants=2, rounds=1, boards_per_round=1)
        entrants(event, 4)
        event = step(event, START)
        games = list(Game.objects.filter(event=event))
        assert len(games) == 2
        assert sorted(g.players.count(None) for g in games) == [1, 1]

    def test_every_table_of_a_board_faces_the_level_it_was_drawn_with(self, append_only_triggers):
        """The operator changes the room's bot level mid-round: the round's later boards,
        dealt after it, still face the bots their boards were drawn with."""
        room = make_room("classic3", bot_level="easy", bot_delay_ms=0)
        event = _duplicate(room, allow_bots=True, min_entrants=2, rounds=1)
        entrants(event, 4)
        event = step(event, START)
        assert [b.bot_level for b in Board.objects.filter(event=event)] == ["easy", "easy"]
        Room.objects.filter(pk=room.pk).update(bot_level="strong")
        play_all(event)
        event = step(event, START + SECOND)
        games = list(Game.objects.filter(event=event).select_related("board", "table__room"))
        assert sorted(g.board.number for g in games) == [1, 1, 2, 2]
        assert {table_bot_level(g.table) for g in games} == {BotLevel.EASY}

    def test_a_section_needs_two_tables(self, append_only_triggers):
        room = make_room("qq5")
        with pytest.raises(Exception, match="min_entrants"):
            _duplicate(room, min_entrants=5)
        event = _duplicate(room, min_entrants=10)
        entrants(event, 9)
        event = step(event, START)
        assert event.status == Event.Status.CANCELLED
        assert not Hand.objects.filter(table__room=room).exists()
        assert_audit_clean()
