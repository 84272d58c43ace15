"""The engine's identity memo (games/engine/memo.py): a push's two states, read in turns, are
each computed once."""

from __future__ import annotations

from games.engine.memo import KEPT, last_by_identity


def test_states_read_in_turns_are_computed_once_and_the_oldest_goes_first():
    calls: list[object] = []

    @last_by_identity
    def made(arg: object) -> int:
        calls.append(arg)
        return len(calls)

    before, after = ("a",), ("b",)  # equal-looking values would not do: identity is the key
    assert [made(before), made(after), made(before), made(after)] == [1, 2, 1, 2]
    assert calls == [before, after]
    others = [(n,) for n in range(KEPT - 1)]
    for other in others:
        made(other)
    assert made(after) == 2  # still among the last KEPT
    made(before)  # pushed out by the others: computed again
    assert calls == [before, after, *others, before]
