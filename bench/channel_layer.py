"""CPU cost of one pushed frame on the embedded channel layer, by open sockets (issue #6).
Prints figures; not a test.

Each socket of a table consumer waits in ``receive`` on its own channel and belongs to two
groups (its table's public group and its user's group), as in games/consumers.py. One push
sends a frame to each of a table's five user groups; every receiver takes its frame. The
reference is channels' own ``InMemoryChannelLayer``, run in the same process on the same
steps: the ratio is channels' cost per frame over ours.

  .venv/bin/python bench/channel_layer.py
  .venv/bin/python bench/channel_layer.py --sockets 100,1000,2000 --pushes 400
"""

from __future__ import annotations

import argparse
import asyncio
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sockets", default="10,100,1000", help="comma separated counts")
    parser.add_argument("--pushes", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3, help="alternating runs; medians shown")
    args = parser.parse_args()

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
