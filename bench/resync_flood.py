"""One user floods a process with table sockets and resyncs (issue #17). Prints figures; not a
test.

The flooder (a player of table A) opens ``--sockets`` table sockets at once and sends
``--resyncs`` resync requests over them, spread over ``--flood-seconds`` (the issue's flood:
1,000 in 7.9 s); meanwhile a player of table B, on the same daphne process, asks for his own
screen every 0.4 s (slower than the coalescing lets one socket, so that it measures the
server, not his own socket's limit). Printed per run:
how many of the flooder's sockets the server kept, how many full screens it rendered for him,
and the other player's round trip (request to his screen's arrival) p50/p99/max: the flood's
cost to everyone else. The runs alternate between this tree and ``--old`` (a worktree of the
commit to compare against), each a fresh daphne process on a fresh database migrated and
filled by that side's own code (``--database``, and ``<database>_old`` for the old side).

  .venv/bin/python bench/resync_flood.py --old /tmp/ddz-old --rounds 2
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.load_tables import ORIGIN, prepare_database, side_env, tables_of  # noqa: E402
from tests.reliability.harness import free_port  # noqa: E402


def serve(side: dict, args: argparse.Namespace) -> tuple[subprocess.Popen, int]:
    """daphne from the side's root (its own code and venv), with the production flood guard."""
    root = side["root"]
    port = free_port()
    env = side_env(args, side)
    for name in ("DDZ_WS_RATE_PER_SECOND", "DDZ_WS_RATE_BURST"):
        env.pop(name)
    proc = subprocess.Popen(
        [
            *(str(root / ".venv" / "bin" / "daphne"), "-b", "127.0.0.1", "-p", str(port)),
            "ddz_site.asgi:application",
        ],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    return proc, port


def listening(port: int) -> None:
    for _ in range(600):
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            time.sleep(1.0)  # and the deadline runner started
            return
        time.sleep(0.1)
    raise RuntimeError(f"daphne did not listen on {port}")


async def _connect(url: str, cookie: str):
    import websockets

    return await websockets.connect(
        url,
        origin=ORIGIN,
        additional_headers={"Cookie": f"sessionid={cookie}"},
        ping_interval=None,
        max_size=2**23,
        open_timeout=60,
    )


async def flood(url: str, cookie: str, args: argparse.Namespace, done: asyncio.Event) -> dict:
    sockets, resyncs = args.sockets, args.resyncs
    opened = await asyncio.gather(*(_connect(url, cookie) for _ in range(sockets)))
    screens = 0

    async def read(ws) -> None:
        nonlocal screens
        try:
            async for message in ws:
                if "table-status" in message:
                    screens += 1
        except Exception:
            pass

    await asyncio.sleep(3.0)  # the refused ones are closed by now
    alive = [ws for ws in opened if ws.close_code is None]
    kept = len(alive)
    readers = [asyncio.create_task(read(ws)) for ws in alive]
    begin = time.perf_counter()
    for i in range(resyncs):
        ws = alive[i % len(alive)]
        with contextlib.suppress(Exception):  # a socket the server closed
            await ws.send('{"intent": "resync"}')
        await asyncio.sleep(args.flood_seconds / resyncs)
    await asyncio.sleep(3.0)  # what was still queued
    elapsed = time.perf_counter() - begin
    done.set()
    for ws in opened:
        await ws.close()
    for task in readers:
        task.cancel()
    return {"kept": kept, "screens": screens, "flood_s": elapsed}


async def probe(url: str, cookie: str, done: asyncio.Event) -> list[float]:
    ws = await _connect(url, cookie)
    await ws.recv()  # its first screen
    times = []
    while not done.is_set():
        sent = time.perf_counter()
        await ws.send('{"intent": "resync"}')
        while "table-status" not in await ws.recv():
            pass
        times.append((time.perf_counter() - sent) * 1000)
        await asyncio.sleep(0.4)
    await ws.close()
    return times


async def one_run(port: int, tables: list, args: argparse.Namespace) -> dict:
    (a, cookies_a), (b, cookies_b) = tables
    done = asyncio.Event()
    base = f"ws://127.0.0.1:{port}/ws/table/"
    probe_task = asyncio.create_task(probe(f"{base}{b}/", cookies_b[0], done))
    await asyncio.sleep(1.0)  # the probe's quiet figures first
    flooded = await flood(f"{base}{a}/", cookies_a[0], args, done)
    times = sorted(await probe_task)
    flooded.update(
        probes=len(times),
        p50=statistics.median(times),
        p99=times[min(len(times) - 1, int(len(times) * 0.99))],
        max=times[-1],
    )
    return flooded


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", required=True, help="a worktree of the commit to compare")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--sockets", type=int, default=60)
    parser.add_argument("--resyncs", type=int, default=1000)
    parser.add_argument("--flood-seconds", type=float, default=7.9)
    parser.add_argument(
        "--database", default="postgres://postgres@127.0.0.1:5432/ddz_bench", help="dropped!"
    )
    parser.add_argument("--redis", default="", help="'' for the in-memory channel layer")
    args = parser.parse_args()
    sides = [
        {"name": "old", "root": Path(args.old).resolve(), "database": args.database + "_old"},
        {"name": "new", "root": ROOT, "database": args.database},
    ]
    for _ in range(args.rounds):
        for side in sides:
            label = side["name"]
            # a fresh database per run, migrated and filled by the side's own code
            prepare_database(args, side)
            tables = tables_of(args, side, 2)
            proc, port = serve(side, args)
            try:
                listening(port)
                row = asyncio.run(one_run(port, tables, args))
            finally:
                proc.terminate()
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    print(f"{label}: daphne did not stop on SIGTERM within 30 s", flush=True)
                    proc.kill()
            print(
                f"{label}: flooder kept {row['kept']}/{args.sockets} sockets, "
                f"{row['screens']} screens for {args.resyncs} resyncs in {row['flood_s']:.1f} s; "
                f"another table's resync round trip p50 {row['p50']:.0f} ms, "
                f"p99 {row['p99']:.0f} ms, max {row['max']:.0f} ms ({row['probes']} probes)",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
