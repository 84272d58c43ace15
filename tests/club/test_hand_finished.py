"""A finished hand's outcomes, standings and rating are written by the service that finishes
it, through the hand-finished hooks, in its transaction: a handler that raises undoes the
finish. No model signal writes anything (docs/conventions.md §3)."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.db import connection
from django.db.models import signals
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from club.models import HandOutcome
from games import services
from games.models import Hand
from games.table.hooks import hooks
from tests.support.tables import make_player, make_room, play_to_end, seated_table

MODEL_SIGNALS = (
    signals.pre_save,
    signals.post_save,
    signals.pre_delete,
    signals.post_delete,
    signals.m2m_changed,
)
WRITES = ("INSERT", "UPDATE", "DELETE")


class HandFinishedTests:
    def test_a_raising_handler_rolls_the_finish_back(self, append_only_triggers):
        humans = [make_player() for _ in range(3)]
        table = seated_table(make_room("classic3"), humans)
        services.hand_start(table_id=table.pk)
        hand = Hand.objects.get(table=table, status=Hand.Status.ACTIVE)
        beans = {u.pk: u.beans for u in User.objects.filter(pk__in=[u.pk for u in humans])}

        def refuse(*, hand: Hand) -> None:
            raise RuntimeError("the events refuse")

        kept = hooks.hand_finished_handlers
        hooks.hand_finished_handlers = (*kept, refuse)
        try:
            with pytest.raises(RuntimeError, match="the events refuse"):
                play_to_end(table)
        finally:
            hooks.hand_finished_handlers = kept
        hand.refresh_from_db()
        assert hand.status == Hand.Status.ACTIVE and not hand.settled
        assert not HandOutcome.objects.filter(hand=hand).exists()
        now = {u.pk: u.beans for u in User.objects.filter(pk__in=[u.pk for u in humans])}
        assert now == beans

    def test_the_finish_calls_the_handlers_once_with_the_settled_hand(self, append_only_triggers):
        humans = [make_player() for _ in range(3)]
        table = seated_table(make_room("classic3"), humans)
        seen: list[tuple[int, str, bool]] = []

        def note(*, hand: Hand) -> None:
            seen.append((hand.pk, hand.status, hand.settled))

        kept = hooks.hand_finished_handlers
        hooks.hand_finished_handlers = (*kept, note)
        try:
            services.hand_start(table_id=table.pk)
            hand = play_to_end(table)
        finally:
            hooks.hand_finished_handlers = kept
        finished = list(
            Hand.objects.filter(table=table, status=Hand.Status.FINISHED).values_list(
                "pk", flat=True
            )
        )
        # an all-pass classic3 deal is finished (and re-dealt) in the same call
        assert seen == [(pk, Hand.Status.FINISHED, True) for pk in sorted(finished)]
        assert hand.pk in finished


@pytest.mark.django_db
def test_no_model_signal_receiver_writes():
    """Every receiver of a model signal, sent for every model, runs without a write (today the
    title ladder's cache clearing is the only one); and a hand has none at all."""
    heard = 0
    for model in apps.get_models():
        for signal in MODEL_SIGNALS:
            if not signal.has_listeners(model):
                continue
            heard += 1
            with CaptureQueriesContext(connection) as queries:
                signal.send(
                    sender=model,
                    instance=model(),
                    created=False,
                    raw=False,
                    using="default",
                    update_fields=None,
                    origin=None,
                    action="post_add",
                    reverse=False,
                    model=model,
                    pk_set=set(),
                )
            written = [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith(WRITES)]
            assert not written, f"{signal} of {model.__name__} writes: {written}"
    assert heard >= 1  # the check ran on a receiver
    assert not any(signal.has_listeners(Hand) for signal in MODEL_SIGNALS)
