"""The rendered regions of the table screen: one partial per region with a stable id, the
same partials for a page load, an htmx request and a push. ``render_push`` renders one push
of a snapshot for all its audiences: the shared regions once per language, a seat's own
regions only when they changed. Each partial's root has ``hx-swap-oob="true"``, so the htmx
websocket extension swaps each one in by id; the same partials make up the full page
(templates/games/table.html). The partials a push renders most (the seat panel, the hand,
the trick, the controls, the status) have their markup written by template tags
(games/templatetags/): as templates they were most of a push's cost. Pure: a snapshot in,
HTML out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from functools import partial
from typing import Any

from django.template.loader import get_template, render_to_string
from django.utils import translation
from django.utils.translation import get_language

from games.engine.flows import flow_for
from games.reads.snapshot import TableSnapshot
from games.screen import render_cache
from games.screen.context import counter_context, table_context, with_status_before
from games.screen.controls import with_hints
from games.screen.seats import PLAY_KEYS, held_seat, seat_infos, seat_panels
from games.screen.seen import seen_by

# Shared regions are rendered from the public view for everyone reading a language; a seat's own
# regions from its view, for it alone (a spectator's from the public view).
SHARED_REGIONS = ("status", "seats", "trick")
OWN_REGIONS = ("hand", "controls", "result", "counter")
REGIONS = (*SHARED_REGIONS, *OWN_REGIONS)
# what a push compares of a seat asked to decide before it or after it (its controls go anyway)
MOVED_COMPARED = tuple(name for name in OWN_REGIONS if name != "controls")
# a move's shared regions after its status (or the status's clock alone, swapped in by id, when
# nothing else of the status changed): the seat panels it changed (swapped in by id) instead of
# all of them, and the trick
MOVE_REGIONS = ("seat_panels", "trick")
# Regions whose renderings are not kept: a push's status and clock read the clock
# (``status.now``), so no rendering of them ever comes again, and a move's trick and changed
# seat panels came again in 3 % and 9 % of the pushes of three qq5 hands
# (bench/push_cost.py): keying them cost more than the few renderings saved.
UNKEPT_REGIONS = frozenset(("status", "clock", "seat_panels", "trick"))


def render_regions(ctx: dict[str, Any], *, oob: bool = True) -> str:
    """Every region from one context (a screen of one view: the tests' and the states' pages)."""
    return _render_names(ctx, REGIONS, oob=oob)


def _render_names(
    ctx: dict[str, Any], names: Sequence[str], *, oob: bool = True, request: Any = None
) -> str:
    ctx = {**ctx, "oob": oob}
    return "".join(
        render_cache.squeezed(render_to_string(f"games/table/{name}.html", ctx, request=request))
        for name in names
    )


def page_regions(*, snapshot: TableSnapshot, own: dict[str, Any], request: Any) -> dict[str, str]:
    """The regions of a page load by name: its own from ``own`` (its ``table_context``), the
    shared ones from the public view of the same snapshot, as its pushes show them."""
    public = table_context(snapshot=snapshot, seat_index=None, user=None)
    out = {
        name: _render_names(public, [name], oob=False, request=request) for name in SHARED_REGIONS
    }
    out.update(
        {name: _render_names(own, [name], oob=False, request=request) for name in OWN_REGIONS}
    )
    return out


def _memo_context(ctx: dict[str, Any], *, oob: bool, language: str) -> dict[str, Any]:
    return {**ctx, "oob": oob, render_cache.LANGUAGE_KEY: language}


def render_regions_shared(
    contexts: Sequence[dict[str, Any]], *, names: Sequence[str] = REGIONS, oob: bool = True
) -> list[str]:
    """The ``names`` regions of each context; a region whose inputs are those of a rendering
    already made (for another audience, or in an earlier push) is not rendered again."""
    out: list[list[str]] = [[] for _ in contexts]
    language = get_language()
    for name in names:
        path = f"games/table/{name}.html"
        template = get_template(path)
        for i, ctx in enumerate(contexts):
            memo = _memo_context(ctx, oob=oob, language=language)
            out[i].append(
                render_cache.render_template(
                    template, memo, name=path, keep=name not in UNKEPT_REGIONS
                )
            )
    return ["".join(parts) for parts in out]


def own_regions_changed(
    before: dict[str, Any], after: dict[str, Any], *, names: Sequence[str] = OWN_REGIONS
) -> tuple[str, ...]:
    """The seat's own regions of ``names`` that read anything different in ``after`` than in
    ``before`` (two contexts of its seat, built with ``hints=False`` and ``own_only``): decided
    from the values its templates read, as the render memo keys them, so it depends on what
    that seat may know and nothing else. Most moves change only his 记牌器, if anything."""
    language = get_language()
    changed = []
    for name in names:
        path = f"games/table/{name}.html"
        keys = [
            render_cache.template_key(
                get_template(path), _memo_context(ctx, oob=True, language=language), name=path
            )
            for ctx in (before, after)
        ]
        if keys[0] is None or keys[0] != keys[1]:
            changed.append(name)
    return tuple(changed)


# What only the shared regions show of a view: a seat's own regions read none of it while the
# seat has nothing to decide (its choices, hints and lead need it to be asked).
_SHARED_ONLY_KEYS = frozenset(
    (
        "turn",
        "waiting",
        "hand_counts",
        "trick",
        "plays",
        "top",
        "leader",
        "autoplay",
        "reports",
        "multiplier",
        "bids",
        "doubles",
        "reveals",
        "grabs",
        "grab_count",
    )
)


# A seat's own regions read this of its view in the 记牌器 alone (context.py: ``counter``):
# a play by another seat changes it for every seat, and most pushes nothing else of theirs.
_COUNTER_ONLY_KEYS = frozenset(("unseen",))
COUNTER_ONLY = ("counter",)


class SeatChange(Enum):
    """What a push tells from a seat's two views (before and after) of its own regions."""

    NONE = "none"  # its view differs only in what the shared regions show: nothing to send
    COUNTER = "counter"  # only its unseen cards: the 记牌器, rendered from its view alone
    ASKED = "asked"  # asked to decide before or after: its controls, and its others that changed
    COMPARE = "compare"  # its regions' contexts before and after are to be compared


def _seat_change(snapshot: TableSnapshot, seat: int, user: Any) -> SeatChange:
    """How a seat's own regions changed since ``snapshot.before``, where that is cheap to tell
    from its views. A seat asked to decide before the push or after it has decided, or its
    controls came (which of its other regions changed is still compared: the hand is not sent
    again when only the turn moves). One asked neither time whose view differs only in what
    the shared regions show has not changed: most seats of most pushes. One whose view differs
    besides only in its unseen cards, in the same phase of play and the same revealed state
    (what its context reads of the state), has only its 记牌器 changed (no screen context of
    either state to build and compare)."""
    before, after = snapshot.before, snapshot.state
    if before is None or after is None or not held_seat(snapshot.holders, seat, user):
        return SeatChange.COMPARE
    views = [seen_by(state, seat) for state in (before, after)]
    if any(seat in view["waiting"] for view in views):
        return SeatChange.ASKED
    old, new = ({k: v for k, v in view.items() if k not in _SHARED_ONLY_KEYS} for view in views)
    if old == new:
        return SeatChange.NONE
    differing = {k for k in old.keys() | new.keys() if old.get(k) != new.get(k)}
    if (
        differing <= _COUNTER_ONLY_KEYS
        and before.phase == after.phase
        and before.revealed == after.revealed
        and before.phase not in flow_for(after.variant).simultaneous_phases
    ):
        return SeatChange.COUNTER
    return SeatChange.COMPARE


def changed_panels(
    public: dict[str, Any], before: dict[str, Any], snapshot: TableSnapshot
) -> list[dict[str, Any]]:
    """The seat panels of ``public`` (the public context of a move's push) that differ from
    the panels of ``before`` (the public view before the move), and those of the seats to act
    (their clock starts again, which the state before does not tell): what every page at the
    version before shows of the others stays as it is. Each marked ``play_only`` where the move
    changed nothing of a taken seat's panel but its play part (``PLAY_KEYS``: the clock, the
    cards left, the last play), which is then sent alone. From public facts alone, so what one
    audience is sent tells it nothing another would not be."""
    infos, _count = seat_infos(snapshot)
    old = seat_panels(before, infos, deadline=public["status"]["deadline"])
    return [
        {
            **row,
            "play_only": not row["empty"]
            and all(row[key] == was[key] for key in row if key not in PLAY_KEYS),
        }
        for row, was in zip(public["seats"], old, strict=True)
        if row["waiting"] or row != was
    ]


def _moved_status(public: dict[str, Any], before: dict[str, Any]) -> str:
    """The status of a move's push (``public``: its public context): the whole status when it
    shows anything but its clock otherwise than the public view ``before`` the move showed it,
    else its clock alone. Told from the two renderings, so from public facts alone."""
    now = render_regions_shared([public], names=("status",))[0]
    if public["status"] is None:
        return now
    was = render_regions_shared([with_status_before(public, before)], names=("status",))[0]
    return now if now != was else render_regions_shared([public], names=("clock",))[0]


@dataclass
class PushRendering:
    """One push of a table state: the shared regions once per language, a spectator's own
    regions per language its spectators read, and the own regions of the seats sent theirs."""

    shared: dict[str, str]
    watcher: dict[str, str]
    own: dict[int, str]


def render_push(
    *,
    snapshot: TableSnapshot,
    players: Sequence[tuple[int, Any, str]],
    languages: Iterable[str],
    watcher_languages: Iterable[str],
    every_seat: bool = False,
) -> PushRendering:
    """The renderings of one push of ``snapshot``. ``players``: (seat index, user, language)
    of the seats that may be sent their own regions; each is sent those that changed since
    ``snapshot.before`` (all of them when it is None, with ``every_seat``, or when the seat was
    asked to decide before or after, its controls then sent in any case). ``languages``: what
    the shared regions are rendered in (everybody's at the table)."""
    watching = set(watcher_languages)
    shared: dict[str, str] = {}
    watcher: dict[str, str] = {}
    # a move's push (the state before it known) sends only the seat panels it changed
    seen_before = None
    if snapshot.before is not None and not every_seat:
        seen_before = seen_by(snapshot.before, None)
    for language in sorted(set(languages) | watching):
        with translation.override(language):
            public = table_context(snapshot=snapshot, seat_index=None, user=None)
            if seen_before is None:
                shared[language] = render_regions_shared([public], names=SHARED_REGIONS)[0]
            else:
                delta = {**public, "changed_seats": changed_panels(public, seen_before, snapshot)}
                shared[language] = (
                    _moved_status(public, seen_before)
                    + render_regions_shared([delta], names=MOVE_REGIONS)[0]
                )
            if language in watching:
                watcher[language] = render_regions_shared([public], names=OWN_REGIONS)[0]
    before = None
    if snapshot.before is not None and not every_seat:
        before = replace(snapshot, before=None, state=snapshot.before)
    by_language: dict[str, list[tuple[int, Any]]] = {}
    for seat, user, language in players:
        by_language.setdefault(language, []).append((seat, user))
    own: dict[int, str] = {}
    for language, group in by_language.items():
        with translation.override(language):
            # the seats' contexts by the regions each is sent
            contexts: dict[tuple[str, ...], list[tuple[int, dict[str, Any]]]] = {}
            for seat, user in group:
                change = SeatChange.COMPARE
                if before is not None:
                    change = _seat_change(snapshot, seat, user)
                if change is SeatChange.NONE:
                    continue
                if change is SeatChange.COUNTER and snapshot.state is not None:
                    ctx = counter_context(seen_by(snapshot.state, seat))
                    contexts.setdefault(COUNTER_ONLY, []).append((seat, ctx))
                    continue
                seen = partial(
                    table_context,
                    seat_index=seat,
                    user=user,
                    hints=False,
                    own_only=True,
                )
                ctx = seen(snapshot=snapshot)
                names: tuple[str, ...] = OWN_REGIONS
                if before is not None and change is SeatChange.ASKED:
                    # the turn came or went: its controls carry the new hints, sent anyway
                    changed = own_regions_changed(seen(snapshot=before), ctx, names=MOVED_COMPARED)
                    names = tuple(n for n in OWN_REGIONS if n in changed or n == "controls")
                elif before is not None:
                    names = own_regions_changed(seen(snapshot=before), ctx)
                    if not names:
                        continue
                contexts.setdefault(names, []).append((seat, with_hints(ctx, snapshot.state)))
            for names, seats in contexts.items():
                htmls = render_regions_shared([c for _s, c in seats], names=names)
                own.update((seat, html) for (seat, _c), html in zip(seats, htmls, strict=True))
    return PushRendering(shared=shared, watcher=watcher, own=own)


def render_screen(
    *, snapshot: TableSnapshot, seat_index: int | None, user: Any, language: str
) -> str:
    """Every region for one audience (a full screen) as its pushes show them, in ``language``
    (a seat's: its player's stored one)."""
    players = [] if seat_index is None else [(seat_index, user, language)]
    watchers = [language] if seat_index is None else []
    push = render_push(
        snapshot=snapshot,
        players=players,
        languages=[language],
        watcher_languages=watchers,
        every_seat=True,
    )
    own = push.watcher[language] if seat_index is None else push.own[seat_index]
    return push.shared[language] + own


def render_error(*, message: str) -> str:
    """The #table-error partial, sent to the sender only."""
    return render_to_string("games/table/error.html", {"message": message, "oob": True})
