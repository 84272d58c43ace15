"""The table page reconnects by itself (static/games/reconnect.js) in real Chromium.

A daphne process serves a qq5 table where ``ann`` plays with four bots. The server is stopped
(SIGTERM: daphne closes the sockets, code 1001, which the htmx ws extension alone would not
retry) and killed (``kill -9``: code 1006); while it is down the hand moves on (ann's seat goes
to 托管 and the bots finish the hand). Started again on the same port, the page reconnects
without a reload and shows the exact new state: the result.

Run with the browser tests: ``pytest -m browser -p no:asyncio`` (scripts/test.sh does).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

ROOT = Path(__file__).resolve().parents[1]
DAPHNE = ROOT / ".venv" / "bin" / "daphne"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PASSWORD = "pass-word-123"

SETUP = f"""
from accounts.services import beans_grant
from django.contrib.auth import get_user_model
from games import services
# no shortest simultaneous step: with ann on 托管 only the bots' replies are left
room = services.room_create(
    name="reconnect", variant="qq5", turn_seconds=600, bid_seconds=600, step_min_seconds=0
)
user = get_user_model().objects.create_user(username="ann", password={PASSWORD!r})
beans_grant(user=user, amount=100000)
table = services.table_create(room=room)
services.table_join(table_id=table.pk, user=user)
services.table_fill_with_bots(table_id=table.pk)
services.hand_start(table_id=table.pk)
print("TABLE", table.pk)
"""

AUTOPLAY = """
from django.contrib.auth import get_user_model
from games import services
from games.runner.deadlines import hand_apply_due_deadlines
from games.models import Hand
hand = Hand.objects.get(status="active")
services.seat_set_autoplay(
    hand_id=hand.pk, user=get_user_model().objects.get(username="ann"), enabled=True
)
# the bots reply from a deadline runner (``run_deadlines``, apart from the stopped server): each
# reply at its time
for _ in range(2000):
    hand.refresh_from_db()
    if hand.status != "active":
        break
    hand_apply_due_deadlines(now=hand.deadline_at)
print("STATUS", Hand.objects.get(pk=hand.pk).status)
"""


class Daphne:
    def __init__(self, env: dict[str, str], port: int, log: Path) -> None:
        self.env, self.port, self.log = env, port, log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [str(DAPHNE), "-b", "127.0.0.1", "-p", str(self.port), "ddz_site.asgi:application"],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.3):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("daphne did not start:\n" + self.log.read_text()[-2000:])

    def stop(self, sig: int) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, sig)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=5)
        self.proc = None


@pytest.fixture
def served() -> Iterator[tuple[Daphne, str, int, dict[str, str]]]:
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium is not installed")
    tmp = Path(tempfile.mkdtemp(prefix="ddz-reconnect-"))
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp / 'db.sqlite3'}",
        "DEBUG": "1",
        "REDIS_URL": "",
        "DJANGO_SETTINGS_MODULE": "ddz_site.settings",
    }
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    out = subprocess.run(
        [python, "manage.py", "shell", "-c", SETUP],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    table_id = int(out.split("TABLE")[-1].split()[0])
    server = Daphne(env, _free_port(), tmp / "daphne.log")
    server.start()
    try:
        yield server, f"http://127.0.0.1:{server.port}", table_id, env
    finally:
        server.stop(signal.SIGKILL)
        shutil.rmtree(tmp, ignore_errors=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _while_down(env: dict[str, str]) -> None:
    out = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", AUTOPLAY],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    assert "STATUS finished" in out


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGKILL], ids=["stop", "kill9"])
def test_the_page_reconnects_and_shows_what_happened_meanwhile(served, stop_signal):
    from playwright.sync_api import sync_playwright

    server, base, table_id, env = served
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_context().new_page()
            page.set_default_timeout(60_000)
            page.goto(base + "/accounts/login/")
            page.fill("input[name=login]", "ann")
            page.fill("input[name=password]", PASSWORD)
            page.click("form [type=submit]")
            page.wait_for_url(lambda url: "/accounts/login" not in url)
            page.goto(f"{base}/table/{table_id}/")
            page.wait_for_selector("#table-hand [data-card]")
            assert page.locator("[data-result]").count() == 0
            page.evaluate("window.__sameDocument = true")

            server.stop(stop_signal)
            page.wait_for_selector("#table-conn:not([hidden])")  # the page noticed
            _while_down(env)
            time.sleep(1.0)  # a retry or two against the closed port
            server.start()

            # back by itself, same document (no reload), showing the finished hand
            page.wait_for_selector("#table-conn[hidden]", state="attached", timeout=30_000)
            page.wait_for_selector("[data-result]", timeout=30_000)
            assert page.evaluate("window.__sameDocument === true")
        finally:
            browser.close()
