"""CPU cost of the server side of one table action (issue #6). Prints figures; not a test.

Plays whole qq5 hands in-process (five humans, no sockets) on a fresh SQLite database, or on
PostgreSQL with ``--database``: for each action, the service call (lock, engine, save, settle)
and the push (snapshot, renderings of every audience, the frames) are timed apart by the
process's CPU clock. ``--profile`` / ``--profile-service`` print the dearest functions.

  .venv/bin/python bench/push_cost.py --hands 20
  .venv/bin/python bench/push_cost.py --hands 20 --database postgres://postgres@127.0.0.1/ddz
  .venv/bin/python bench/push_cost.py --hands 5 --profile --sort tottime
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


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
    args = parser.parse_args()

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

    from games import broadcast, services
    from games.engine.hand import waiting_seats
    from games.selectors import hand_state
    from tests.games.table_helpers import (
        active_hand,
        client_action,
        make_player,
        make_room,
        seated_table,
    )

    pushes: list[list] = []
    broadcast.send_frames = pushes.append  # keep the frames; no channel layer in this bench
    room = make_room(args.variant)
    humans = [make_player() for _ in range(5)]
    table = seated_table(room, humans)
    users = dict(enumerate(humans))
    service_ms: list[float] = []
    push_ms: list[float] = []
    frame_bytes: list[int] = []
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
    service_profiler = None
    if args.profile_service:
        import cProfile

        service_profiler = cProfile.Profile()
    original_changed = broadcast.table_changed

    def timed_push(table_id: int, *, known=None, only_seats=None) -> None:
        start = time.process_time()
        if profiler:
            profiler.enable()
        if service_profiler:
            service_profiler.disable()
        frames = broadcast.audience_frames(table_id, known=known, only_seats=only_seats)
        if profiler:
            profiler.disable()
        if service_profiler:
            service_profiler.enable()
        push_ms.append((time.process_time() - start) * 1000)
        frame_bytes.append(sum(len(str(event)) for _, event in frames))

    broadcast.table_changed = timed_push
    for _ in range(args.hands):
        services.hand_start(table_id=table.pk)
        while (hand := active_hand(table)) is not None:
            state = hand_state(hand)
            seat = next(s for s in waiting_seats(state) if s in users)
            pushed_before = len(push_ms)
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
    broadcast.table_changed = original_changed

    def line(name: str, values: list[float]) -> str:
        values = sorted(values)
        p99 = values[min(len(values) - 1, int(len(values) * 0.99))]
        return (
            f"{name:>10}: n={len(values)} mean {statistics.fmean(values):6.2f}  "
            f"p50 {statistics.median(values):6.2f}  p99 {p99:6.2f} ms CPU"
        )

    where = "PostgreSQL" if args.database else "SQLite"
    print(f"{args.variant}, {args.hands} hands, {where}, in-process")
    print(line("service", service_ms))
    print(line("push", push_ms))
    print(f"{'frames':>10}: mean {statistics.fmean(frame_bytes) / 1024:.1f} KiB per push")
    if profiler:
        import pstats

        pstats.Stats(profiler).sort_stats(args.sort).print_stats(35)
    if service_profiler:
        import pstats

        pstats.Stats(service_profiler).sort_stats(args.sort).print_stats(40)


if __name__ == "__main__":
    main()
