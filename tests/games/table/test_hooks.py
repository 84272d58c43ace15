"""The table hooks are typed and checked when the apps start: a function that does not fit
its hook's Protocol, or a group of hooks registered in part, stops ``ready()`` with an error
naming the hook; nothing is registered then."""

from __future__ import annotations

import dataclasses

import pytest
from django.apps import apps

from games.table.hooks import TOGETHER, HookMismatch, TableHooks, hook_check, hooks, register


@pytest.fixture
def kept_hooks():
    """The registered hooks, put back after the test (a test may register more)."""
    kept = dataclasses.replace(hooks)
    yield
    for hook in dataclasses.fields(TableHooks):
        setattr(hooks, hook.name, getattr(kept, hook.name))


def test_every_default_and_every_registered_function_fits_its_hook():
    defaults = TableHooks()
    for hook in dataclasses.fields(TableHooks):
        if hook.name == "hand_finished_handlers":
            continue
        hook_check(name=hook.name, function=getattr(defaults, hook.name))
        hook_check(name=hook.name, function=getattr(hooks, hook.name))
    names = [f"{h.__module__}.{h.__qualname__}" for h in hooks.hand_finished_handlers]
    # in the order the apps start: the club's records first, then the events' wake-up
    assert names == [
        "club.services.outcomes.hand_finished_record",
        "competitions.services.event_hand_finished",
    ]


def test_a_function_taking_other_names_is_refused(kept_hooks):
    with pytest.raises(HookMismatch, match=r"'user_may_sit' .* does not take user"):
        register(user_may_sit=lambda *, player: True)


def test_a_function_requiring_more_is_refused(kept_hooks):
    def banner(*, table, user, theme):
        return ""

    with pytest.raises(HookMismatch, match=r"'table_banner' .*banner.* also requires theme"):
        register(table_banner=banner)


def test_a_function_taking_a_keyword_argument_only_by_position_is_refused(kept_hooks):
    def due(now, /):
        return None

    with pytest.raises(HookMismatch, match=r"'due_work' .* does not take now"):
        register(due_work=due)


def test_sync_and_async_must_match_the_hook(kept_hooks):
    with pytest.raises(HookMismatch, match=r"'socket_closed' .* must be async"):
        register(
            socket_opened=hooks.socket_opened,
            socket_closed=lambda consumer: None,
            leases_expired=hooks.leases_expired,
        )

    async def finished(*, hand):
        return None

    with pytest.raises(HookMismatch, match=r"'hand_finished' .* must not be async"):
        register(hand_finished=finished)


def test_a_group_registered_in_part_is_refused_and_nothing_is_registered(kept_hooks):
    before = dataclasses.replace(hooks)
    with pytest.raises(HookMismatch, match="hidden_hands missing"):
        register(lobby_banner=lambda *, user: "x", may_watch=lambda *, table, user: False)
    assert hooks == before
    assert {"may_watch", "hidden_hands"} in [set(group) for group in TOGETHER]


def test_an_app_registering_a_wrong_handler_fails_at_ready(kept_hooks, monkeypatch):
    from club.services import outcomes

    monkeypatch.setattr(outcomes, "hand_finished_record", lambda *, hand_id: None)
    with pytest.raises(HookMismatch, match=r"'hand_finished' .* does not take hand"):
        apps.get_app_config("club").ready()


def test_handlers_are_added_and_run_in_order(kept_hooks):
    seen = []

    def first(*, hand):
        seen.append(("first", hand))

    def second(*, hand):
        seen.append(("second", hand))

    before = hooks.hand_finished_handlers
    register(hand_finished=first)
    register(hand_finished=second)
    assert hooks.hand_finished_handlers == (*before, first, second)
    TableHooks(hand_finished_handlers=(first, second)).hand_finished(hand="h")
    assert seen == [("first", "h"), ("second", "h")]
