"""The leak test: every frame pushed to every seat and spectator during whole hands of each
variant shows no card identity and no role that its audience may not know at that moment.

What an audience may know is the engine's view (``view_for`` for a seat, ``public_view`` for
spectators), computed from the stored hand after each step; every card notation present in the
frame's HTML must appear in that view, and no more seats may be marked as the landlord's side
than the view names.
"""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from games import services
from tests.support.leaks import PRIVATE_REGIONS, cards_in, check_frame, views_of
from tests.support.tables import (
    FRAME_RE,
    VOLATILE_RE,
    Socket,
    drain,
    fresh_screen,
    make_player,
    make_room,
    play_over_sockets,
    regions,
    regions_differing,
    seated_table,
    table_version,
)

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.slow,
    pytest.mark.usefixtures("live_db", "fresh_layer"),
]

db = database_sync_to_async


def _setup(variant: str, options: dict):
    # three humans (on 5-seat tables with two bots, to keep the suite fast) and a spectator
    room = make_room(variant, options=options)
    users = [make_player() for _ in range(3)]
    table = seated_table(room, users)
    return table.pk, users, make_player()


@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("qq5", {}),
        ("new5", {}),
        ("classic3", {}),
        # 明牌: the landlord's cards may show from the version of his show on, not before
        ("classic3", {"classic3_show_cards": True}),
        ("fenzhou5", {}),
    ],
)
async def test_no_frame_shows_what_its_audience_may_not_know(variant, options):
    table_id, users, watcher = await db(_setup)(variant, options)
    sockets = {i: await Socket(u, table_id, f"seat{i}").open() for i, u in enumerate(users)}
    watchers = [await Socket(watcher, table_id, "watcher").open()]
    everyone = [*sockets.values(), *watchers]
    await drain(everyone)
    await db(services.hand_start)(table_id=table_id)
    dealt = await db(table_version)(table_id)
    for s in everyone:
        await s.reach(dealt)
    checked = 0

    publics: dict[int, set[str]] = {}  # version -> the shared part of its public frames

    async def check(marks: dict[str, int]) -> None:
        nonlocal checked
        views = await db(views_of)(table_id, len(users))
        for sock in everyone:
            for html in sock.frames[marks[sock.label] :]:
                check_frame(sock.label, html, views[sock.label])
                checked += 1
                found = FRAME_RE.search(html)
                if found is None or found[3] != "public":
                    continue
                # what every socket gets through the shared group: only what a spectator
                # may know, byte for byte the same for all (a spectator's own regions after)
                check_frame(f"{sock.label}'s public frame", html, views["watcher"])
                body = html[html.index("</div>") + len("</div>") :]  # after the header
                names = list(regions(body))
                own = [n for n in names if n in PRIVATE_REGIONS]
                if sock in watchers:  # a spectator's own regions follow the shared ones
                    assert own and names[-len(own) :] == own, f"{sock.label}: {names}"
                else:
                    assert not own, f"{sock.label}: a spectator's regions in a seat's frame"
                cut = min((body.index(f'<div id="{n}"') for n in own), default=len(body))
                shared = body[:cut].rstrip()
                publics.setdefault(int(found[1]), set()).add(VOLATILE_RE.sub("", shared))
        for version, variants in publics.items():
            assert len(variants) == 1, f"version {version}: public frames differ"

    # the deal itself; the check does see cards: seat 0's pushed hand is its dealt hand
    await check({s.label: len(s.frames) - 1 for s in everyone})
    dealt = (await db(views_of)(table_id, len(users)))["seat0"]["hand"].split()
    assert set(dealt) <= cards_in("".join(sockets[0].frames))
    await play_over_sockets(table_id, sockets, watchers, after_step=check)
    assert checked > 20 and len(publics) > 5
    if options.get("classic3_show_cards"):  # the humans' landlord showed: spectators saw it
        assert any("seat-shown" in html for html in watchers[0].frames)
    await drain(everyone)
    for sock in everyone:  # every tab ends with the screen a fresh load shows
        fresh = await db(fresh_screen)(table_id, sock.user)
        assert regions_differing(sock.screen, fresh) == [], sock.label
    for sock in everyone:
        await sock.close()
