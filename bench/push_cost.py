"""CPU cost of the server side of one table action (issue #6). Prints figures; not a test.

Plays whole qq5 hands in-process (five humans, no sockets) on a fresh SQLite database, or on
PostgreSQL with ``--database``: for each action, the service call (lock, engine, save, settle)
and the push (snapshot, renderings of every audience, the frames) are timed apart by the
process's CPU clock. ``--profile`` / ``--profile-service`` print the dearest functions;
``--sample`` the pushes' shares by function from a sampling thread (``StackSampler``), which
does not inflate the many small calls as the profiler does.

  .venv/bin/python bench/push_cost.py --hands 20
  .venv/bin/python bench/push_cost.py --hands 20 --database postgres://postgres@127.0.0.1/ddz
  .venv/bin/python bench/push_cost.py --hands 5 --profile --sort tottime
  .venv/bin/python bench/push_cost.py --hands 12 --sample
  .venv/bin/python bench/push_cost.py --hands 5 --tree /work/wt-push-base   # another tree's code

Per action it also prints the region renderings made (memo misses: templates actually run) and
the bytes each socket at the table is sent; per phase of play (the state's before the action:
a qq5 hand's two 亮 steps, five 加倍 decisions and some 140 plays) the push's and the
service's CPU and the bytes; with ``--templates`` each template's renderings and CPU per
action (its includes counted in it too): five seats and ``--spectators`` spectators (a
public frame as the consumer picks from it, whichever of the frame formats the tree uses: the
two dict formats, or the values of games/push/frames.py).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
REGION_FILES = {
    f"games/table/{name}.html"
    for name in ("status", "seats", "seat_panels", "trick", "hand", "controls", "result", "club")
}


def socket_bytes(frames: list, seated: dict[int, str], spectators: list[str]) -> int:
    """The bytes (UTF-8) one push sends every socket of the table: a user group's frame to that
    user; a public frame to the spectators (its rendering in their language, and their own
    regions where the frame carries them apart) and, where it names the seated users'
    languages, to them too (its shared regions)."""
    if frames and not isinstance(frames[0], tuple):  # frames as values (issue #37)
        return sum(
            len(text.encode())
            for frame in frames
            for user_id, language in [*seated.items(), *((None, s) for s in spectators)]
            if getattr(frame, "user_id", user_id) == user_id
            and (text := frame.text_for(user_id=user_id, language=language)) is not None
        )
    total = 0
    for group, event in frames:
        if not group.endswith(".public"):
            total += len(event["html"].encode())
            continue
        by_language = event.get("html_by_language") or {}
        watcher = event.get("watcher_by_language") or {}
        for language in spectators:
            html = by_language.get(language, event["html"])
            total += len((html + watcher.get(language, "")).encode())
        for uid, language in (event.get("seated_languages") or {}).items():
            if int(uid) in seated:
                total += len(by_language.get(language, event["html"]).encode())
    return total


class StackSampler:
    """The main thread's stack, looked at every half millisecond while ``on`` (a push being
    made): each function's share of the looks is its share of the pushes' time, the functions
    it calls included. The interpreter's switch interval is cut to the same half millisecond,
    or the sampling thread would wait 5 ms for its turn."""

    def __init__(self) -> None:
        self.on = False
        self.looks = 0
        self.inclusive: Counter[str] = Counter()
        self.main = threading.main_thread().ident
        sys.setswitchinterval(0.0005)
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while True:
            time.sleep(0.0005)
            frame = sys._current_frames().get(self.main) if self.on else None
            names = set()
            while frame is not None:
                code = frame.f_code
                place = code.co_filename.split("site-packages/")[-1].replace(f"{ROOT}/", "")
                names.add(f"{place}:{code.co_name}")
                frame = frame.f_back
            if names:
                self.looks += 1
                self.inclusive.update(names)

    def report(self, top: int = 45) -> None:
        print(f"{self.looks} looks inside the pushes; share of them by function (callees in):")
        for name, count in self.inclusive.most_common(top):
            print(f"{count / max(self.looks, 1) * 100:6.1f} %  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--variant", default="qq5")
    parser.add_argument(
        "--database", default="", help="a PostgreSQL URL (its test_ database is re-created)"
    )
    parser.add_argument("--profile", action="store_true", help="profile the pushes")
    parser.add_argument("--sort", default="cumulative", help="profile order (pstats key)")
    parser.add_argument("--profile-service", action="store_true", help="profile the service")
    parser.add_argument("--sample", action="store_true", help="sample the pushes' stacks")
    parser.add_argument(
        "--templates", action="store_true", help="time each template (adds to the figures)"
    )
    parser.add_argument("--spectators", type=int, default=1, help="spectators watching")
    parser.add_argument("--tree", default=str(ROOT), help="the source tree whose code is run")
    args = parser.parse_args()
    sys.path.insert(0, args.tree)

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ddz_site.settings")
    os.environ["DEBUG"] = "0"  # as served: no query log
    os.environ.setdefault("SECRET_KEY", "bench-only-secret-key-" + "x" * 40)
    os.environ.pop("REDIS_URL", None)
    if args.database:
        os.environ["DATABASE_URL"] = args.database
    else:
        os.environ.pop("DATABASE_URL", None)
    import django

    django.setup()
    from django.db import connection

    # no setup_test_environment(): its template instrumentation would be timed too
    connection.creation.create_test_db(verbosity=0, autoclobber=True)

    import games
    from games import services
    from games.engine.hand import waiting_seats
    from tests.support.tables import (
        active_hand,
        client_action,
        make_player,
        make_room,
        seated_table,
    )

    assert Path(games.__file__).resolve().is_relative_to(Path(args.tree).resolve())
    from django.apps import apps
    from django.template import base as template_base

    renderings = 0
    template_render = template_base.Template.render
    per_template: dict[str, tuple[int, float]] = {}  # name: (renderings, CPU seconds)

    def counted(self, context):  # type: ignore[no-untyped-def]
        nonlocal renderings
        name = getattr(self.origin, "template_name", None)
        if name in REGION_FILES:
            renderings += 1
        if not args.templates:
            return template_render(self, context)
        start = time.process_time()
        try:
            return template_render(self, context)
        finally:
            count, cpu = per_template.get(name, (0, 0.0))
            per_template[name] = (count + 1, cpu + time.process_time() - start)

    template_base.Template.render = counted
    room = make_room(args.variant)
    humans = [make_player() for _ in range(5)]
    table = seated_table(room, humans)
    users = dict(enumerate(humans))
    # a spectator is his socket's lease; trees from before issue #31 counted a row of their own
    presence_rows = apps.all_models["club"].get("spectatorpresence")
    for n in range(args.spectators):
        watcher = make_player()
        services.seat_connect(table_id=table.pk, user=watcher, channel_name=f"w{n}")
        if presence_rows is not None:
            presence_rows.objects.create(table=table, user=watcher, channel_name=f"w{n}")
    seated = {u.pk: "zh-hans" for u in humans}
    spectators = ["zh-hans"] * args.spectators
    sockets = len(seated) + len(spectators)
    renderings_per_action: list[float] = []
    bytes_per_socket: list[float] = []
    service_ms: list[float] = []
    action_ms: list[float] = []
    push_ms: list[float] = []
    frame_bytes: list[int] = []
    phases: list[str] = []  # each action's phase (the state's before it)
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
    sampler = StackSampler() if args.sample else None
    service_profiler = None
    if args.profile_service:
        import cProfile

        service_profiler = cProfile.Profile()

    def timed(push: Any) -> Any:
        def timed_push(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            if profiler:
                profiler.enable()
            if service_profiler:
                service_profiler.disable()
            if sampler:
                sampler.on = True
            try:
                return push(*args, **kwargs)
            finally:
                if sampler:
                    sampler.on = False
                if profiler:
                    profiler.disable()
                if service_profiler:
                    service_profiler.enable()
                push_ms.append((time.process_time() - start) * 1000)

        return timed_push

    def sent(frames: list) -> None:  # no channel layer in this bench: count the bytes
        frame_bytes.append(socket_bytes(frames, seated, spectators))

    try:  # this tree's layout: a write's outbox, delivered after its commit
        from games.push import deliver, send
        from games.reads.selectors import hand_state
        from games.screen import render_cache

        deliver.deliver = timed(deliver.deliver)
        send.send_frames = sent
    except ImportError:  # an older tree, whose push after commit was a module games.push.broadcast
        from games import render_cache  # type: ignore[no-redef]
        from games.push import broadcast
        from games.reads.selectors import hand_state  # type: ignore[no-redef]

        def push_frames(table_id: int, *, known: Any = None, only_seats: Any = None) -> None:
            sent(broadcast.audience_frames(table_id, known=known, only_seats=only_seats))

        broadcast.send_frames = lambda frames: None
        broadcast.table_changed = timed(push_frames)
    for _ in range(args.hands):
        services.hand_start(table_id=table.pk)
        while (hand := active_hand(table)) is not None:
            state = hand_state(hand)
            seat = next(s for s in waiting_seats(state) if s in users)
            phases.append(state.phase)
            pushed_before = len(push_ms)
            bytes_before = len(frame_bytes)
            rendered_before = renderings
            start = time.process_time()
            if service_profiler:
                service_profiler.enable()
            services.hand_submit_action(
                table_id=table.pk,  # as a socket asks: it knows its table, not the hand
                user=users[seat],
                action=client_action(state, seat),
                expected_version=hand.version,
            )
            if service_profiler:
                service_profiler.disable()
            total = (time.process_time() - start) * 1000
            service_ms.append(total - sum(push_ms[pushed_before:]))
            action_ms.append(total)
            renderings_per_action.append(renderings - rendered_before)
            bytes_per_socket.append(sum(frame_bytes[bytes_before:]) / sockets)

    def line(name: str, values: list[float]) -> str:
        values = sorted(values)
        p99 = values[min(len(values) - 1, int(len(values) * 0.99))]
        return (
            f"{name:>10}: n={len(values)} mean {statistics.fmean(values):6.2f}  "
            f"p50 {statistics.median(values):6.2f}  p99 {p99:6.2f} ms CPU"
        )

    where = "PostgreSQL" if args.database else "SQLite"
    print(f"{args.variant}, {args.hands} hands, {where}, in-process")
    print(f"{sockets} sockets ({args.spectators} spectators), tree {args.tree}")
    print(line("service", service_ms))
    print(line("push", push_ms))
    print(line("action", action_ms))
    for phase in dict.fromkeys(phases):
        picked = [i for i, p in enumerate(phases) if p == phase]
        kib = statistics.fmean(bytes_per_socket[i] for i in picked) / 1024
        print(
            line(f"push {phase}"[:10], [action_ms[i] - service_ms[i] for i in picked]),
            f"service p50 {statistics.median(service_ms[i] for i in picked):.2f} ms,",
            f"{kib:.2f} KiB per socket",
        )
    print(
        f"{'renders':>10}: mean {statistics.fmean(renderings_per_action):.1f} region renderings"
        " per action (memo misses)"
    )
    print(
        f"{'bytes':>10}: mean {statistics.fmean(bytes_per_socket) / 1024:.2f} KiB per socket"
        f" per action (p50 {statistics.median(bytes_per_socket) / 1024:.2f})"
    )
    footprint = getattr(render_cache, "footprint", None)  # an older --tree has none
    if footprint is not None:
        kept, size = footprint()
        print(
            f"{'memo':>10}: {kept} renderings kept, {size / 2**20:.1f} MiB,"
            f" {size / max(kept, 1) / 1024:.1f} KiB each (at most"
            f" {render_cache.CACHE_BYTES / 2**20:.0f} MiB)"
        )
    for name, (count, cpu) in sorted(per_template.items(), key=lambda item: -item[1][1]):
        print(f"{count:>10} renderings of {name}: {cpu * 1000 / len(action_ms):.3f} ms per action")
    if profiler:
        import pstats

        pstats.Stats(profiler).sort_stats(args.sort).print_stats(35)
    if service_profiler:
        import pstats

        pstats.Stats(service_profiler).sort_stats(args.sort).print_stats(40)
    if sampler:
        sampler.report()


if __name__ == "__main__":
    main()
