"""CPU cost of one pushed frame on the embedded channel layer, by open sockets (issue #6), and
with ``--redis URL`` channels-redis's queue layer against the project's pub/sub one (issue
#17). Prints figures; not a test.

Each socket of a table consumer waits in ``receive`` on its own channel and belongs to two
groups (its table's public group and its user's group), as in games/live/consumers.py. One push
sends a frame to each of a table's five user groups; every receiver takes its frame. The
reference is channels' own ``InMemoryChannelLayer``, run in the same process on the same
steps: the ratio is channels' cost per frame over ours.

  .venv/bin/python bench/channel_layer.py
  .venv/bin/python bench/channel_layer.py --sockets 100,1000,2000 --pushes 400

With ``--redis`` (its database is flushed), each socket waits on its channel and belongs to its
table's public group and its user's group; a push is what games.push.frames assembles for a qq5
table (five user frames and a public one, one ``group_send_many``), sent one after the other as the
server's outbox does. Figures per layer, alternating: pushes/s, p50/p99 from a push's send to
its tenth delivery, this process's and Redis's CPU per push, and frames lost (never delivered
within 30 s). Run it with ``PYTHONPATH=<dir with hiredis>`` to try redis-py's hiredis parser.

  .venv/bin/python bench/channel_layer.py --redis redis://127.0.0.1:6379/5 --sockets 1000
"""

from __future__ import annotations

import argparse
import asyncio
import math
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SEATS = 5


async def cost_per_frame(layer_class: type, *, sockets: int, pushes: int) -> float:
    """Mean CPU µs per delivered frame (send and receive) with ``sockets`` waiting."""
    layer = layer_class()
    channels = [await layer.new_channel() for _ in range(sockets)]
    for index, channel in enumerate(channels):
        table, seat = divmod(index, SEATS)
        await layer.group_add(f"table.{table}.public", channel)
        await layer.group_add(f"table.{table}.user.{seat}", channel)
    received = 0

    async def socket(channel: str) -> None:
        nonlocal received
        while True:
            await layer.receive(channel)
            received += 1

    readers = [asyncio.create_task(socket(channel)) for channel in channels]
    await asyncio.sleep(0)  # every socket now waits in receive
    tables = sockets // SEATS
    frame = {"type": "table.html", "html": "x" * 10_000}
    start = time.process_time()
    for push in range(pushes):
        table = push % tables
        for seat in range(SEATS):
            await layer.group_send(f"table.{table}.user.{seat}", frame)
        await asyncio.sleep(0)  # the receivers run
    while received < pushes * SEATS:
        await asyncio.sleep(0)
    spent = time.process_time() - start
    for reader in readers:
        reader.cancel()
    await asyncio.gather(*readers, return_exceptions=True)
    return spent / received * 1e6


# channels-redis's queue layer and its pub/sub layer as they come (a group send at a time:
# neither has ``group_send_many``), and the project's pub/sub layer sending a push at once.
# The queue layer with a Lua script sending a whole push, which the pub/sub one replaced, is
# at commit bdd2bd1 of this file and ddz_site/layers.py.
REDIS_LAYERS = (
    "channels_redis.core.RedisChannelLayer",
    "channels_redis.pubsub.RedisPubSubChannelLayer",
    "ddz_site.layers.BatchingRedisPubSubChannelLayer",
)


async def redis_pushes(layer_name: str, url: str, *, sockets: int, pushes: int) -> dict:
    import redis.asyncio
    from django.utils.module_loading import import_string

    server = redis.asyncio.Redis.from_url(url)
    await server.flushdb()
    before = await server.info("cpu")
    config = {"hosts": [{"address": url, "socket_timeout": None}], "capacity": 2000}
    layer = import_string(layer_name)(**config)
    channels = [await layer.new_channel() for _ in range(sockets)]
    tables = sockets // SEATS
    for index, channel in enumerate(channels):
        table, seat = divmod(index, SEATS)
        await layer.group_add(f"table.{table}.public", channel)
        await layer.group_add(f"table.{table}.user.{seat}", channel)
    delivered = [0] * pushes
    last = [0.0] * pushes

    async def socket(channel: str) -> None:
        while True:
            message = await layer.receive(channel)
            push = message["push"]
            delivered[push] += 1
            last[push] = time.perf_counter()

    readers = [asyncio.create_task(socket(channel)) for channel in channels]
    await asyncio.sleep(0.5)  # every socket now waits in receive
    html = "x" * 10_000
    sent = [0.0] * pushes
    cpu = time.process_time()
    start = time.perf_counter()
    for push in range(pushes):
        table = push % tables
        frame = {"type": "table.html", "html": html, "push": push}
        frames = [(f"table.{table}.user.{seat}", frame) for seat in range(SEATS)]
        sent[push] = time.perf_counter()
        frames.append((f"table.{table}.public", frame))
        if hasattr(layer, "group_send_many"):
            await layer.group_send_many(frames)
        else:
            for group, message in frames:
                await layer.group_send(group, message)
        await asyncio.sleep(0)  # the receivers run, as in the server's loop
    expected = pushes * SEATS * 2
    deadline = time.perf_counter() + 30
    while sum(delivered) < expected and time.perf_counter() < deadline:
        await asyncio.sleep(0.01)
    wall = max(last) - start
    spent = time.process_time() - cpu
    after = await server.info("cpu")
    for reader in readers:
        reader.cancel()
    await asyncio.gather(*readers, return_exceptions=True)
    await layer.flush()
    await server.flushdb()
    await server.aclose()
    latencies = sorted(last[p] - sent[p] for p in range(pushes) if delivered[p] == SEATS * 2)
    redis_cpu = sum(after[k] - before[k] for k in ("used_cpu_user", "used_cpu_sys"))
    return {
        "pushes_per_s": pushes / wall,
        "p50_ms": latencies[len(latencies) // 2] * 1000 if latencies else math.nan,
        "p99_ms": latencies[int(len(latencies) * 0.99)] * 1000 if latencies else math.nan,
        "cpu_ms_per_push": spent * 1000 / pushes,
        "redis_ms_per_push": redis_cpu * 1000 / pushes,
        "lost": expected - sum(delivered),
    }


def compare_redis(args: argparse.Namespace) -> None:
    import redis.utils

    print(f"redis-py parser: {'hiredis' if redis.utils.HIREDIS_AVAILABLE else 'pure Python'}")
    print(
        f"{'sockets':>8} {'layer':>48} {'pushes/s':>9} {'p50 ms':>7} {'p99 ms':>7} "
        f"{'CPU ms/push':>11} {'Redis ms/push':>13} {'lost':>5}"
    )
    for sockets in (int(n) for n in args.sockets.split(",")):
        runs: dict[str, list[dict]] = {name: [] for name in REDIS_LAYERS}
        for _ in range(args.rounds):
            for name in REDIS_LAYERS:
                runs[name].append(
                    asyncio.run(redis_pushes(name, args.redis, sockets=sockets, pushes=args.pushes))
                )
        for name, rows in runs.items():

            def median(key: str, rows: list[dict] = rows) -> float:
                return statistics.median(row[key] for row in rows)

            print(
                f"{sockets:>8} {name:>48} {median('pushes_per_s'):>9.0f} "
                f"{median('p50_ms'):>7.1f} {median('p99_ms'):>7.1f} "
                f"{median('cpu_ms_per_push'):>11.2f} {median('redis_ms_per_push'):>13.2f} "
                f"{sum(row['lost'] for row in rows):>5}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sockets", default="10,100,1000", help="comma separated counts")
    parser.add_argument("--pushes", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3, help="alternating runs; medians shown")
    parser.add_argument("--redis", default="", help="compare the Redis layers here (flushed!)")
    args = parser.parse_args()
    if args.redis:
        compare_redis(args)
        return

    from channels.layers import InMemoryChannelLayer

    from ddz_site.layers import SweepingInMemoryChannelLayer

    print(f"{'sockets':>8} {'channels µs/frame':>18} {'ours µs/frame':>14} {'ratio':>7}")
    for sockets in (int(n) for n in args.sockets.split(",")):
        theirs: list[float] = []
        ours: list[float] = []
        for _ in range(args.rounds):
            for layer_class, figures in (
                (InMemoryChannelLayer, theirs),
                (SweepingInMemoryChannelLayer, ours),
            ):
                figures.append(
                    asyncio.run(cost_per_frame(layer_class, sockets=sockets, pushes=args.pushes))
                )
        theirs.sort()
        ours.sort()
        reference, mine = theirs[len(theirs) // 2], ours[len(ours) // 2]
        print(f"{sockets:>8} {reference:>18.1f} {mine:>14.1f} {reference / mine:>6.1f}x")


if __name__ == "__main__":
    main()
