"""Apply hand deadlines (timeouts, disconnect grace) and expire dead socket leases in a loop;
safe to run in several copies."""

from __future__ import annotations

import contextlib
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.runner.collector import settle_collector
from games.runner.deadlines import (
    hand_apply_due_deadlines,
    poll_seconds,
    presence_sweep,
    renew_forever,
    run_forever,
    start_daemon,
)
from games.services import table_fill_idle


class Command(BaseCommand):
    help = "Apply due hand deadlines: timeouts and 托管 for disconnected players (loops)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--once", action="store_true", help="one pass, then exit")
        parser.add_argument("--interval", type=float, default=None, help="seconds between passes")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["once"]:
            offline = presence_sweep()
            moved = hand_apply_due_deadlines()
            filled = table_fill_idle()
            self.stdout.write(
                f"seats gone offline: {offline}; hands moved: {moved}; "
                f"tables filled with bots: {filled}"
            )
            return
        interval = options["interval"] if options["interval"] is not None else poll_seconds()
        self.stdout.write(f"applying deadlines every {interval} s (Ctrl-C to stop)")
        # its heartbeat and lag for the operators' live view, as a served process's
        start_daemon("ddz-socket-leases", renew_forever)
        settle_collector()  # the bots decide in this process (as in daphne's)
        with contextlib.suppress(KeyboardInterrupt):
            run_forever(interval=interval)
