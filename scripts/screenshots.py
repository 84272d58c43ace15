"""Screenshots of the table screen without playing: one hand of each variant against bots, at
1280×800 and 390×844, in a throw-away club (a daphne subprocess on a temporary SQLite file).

    .venv/bin/python scripts/screenshots.py [--out screenshots] [--lang en] [variant ...]

Writes ``<variant>-<desktop|phone>-<n>-<moment>.png`` to ``--out`` (default ``screenshots/``,
ignored by git): the first decision, the first turn to play, a turn later in the hand, and the
result. Needs Chromium (``/usr/bin/chromium``) and Playwright (requirements-dev.txt).
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
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
VARIANTS = ("qq5", "new5", "classic3", "fenzhou5")
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
PASSWORD = "pass-word-123"
SETUP = f"""
from accounts.services import beans_grant
from django.contrib.auth import get_user_model
from games.services import room_create
for variant in {VARIANTS!r}:
    room_create(name="room-" + variant, variant=variant, coefficient=10)
User = get_user_model()
for size in {tuple(SIZES)!r}:
    user = User.objects.create_user(username="player-" + size, password={PASSWORD!r})
    beans_grant(user=user, amount=1_000_000)
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def club() -> Iterator[str]:
    """A migrated club with one room per variant, served by daphne; yields its address."""
    tmp = Path(tempfile.mkdtemp(prefix="ddz-shots-"))
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp / 'db.sqlite3'}",
        "DEBUG": "1",
        "REDIS_URL": "",
        "DJANGO_SETTINGS_MODULE": "ddz_site.settings",
    }
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    subprocess.run([python, "manage.py", "shell", "-c", SETUP], cwd=ROOT, env=env, check=True)
    port = _free_port()
    with open(tmp / "daphne.log", "w") as log:
        proc = subprocess.Popen(
            [
                python,
                "-m",
                "daphne",
                "-b",
                "127.0.0.1",
                "-p",
                str(port),
                "ddz_site.asgi:application",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            for _ in range(100):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                    break
                except OSError:
                    time.sleep(0.2)
            yield f"http://127.0.0.1:{port}"
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
            shutil.rmtree(tmp, ignore_errors=True)


def act(page) -> str | None:
    """Take this seat's decision if it is its turn (a hint's play, else pass; the first offered
    choice before play); the kind of turn it was, or None."""
    if not page.locator("#table-controls[data-my-turn='1']").count():
        return None
    controls = page.query_selector("#table-controls")
    if page.locator("#play-form").count():
        kind = "play"
        if page.locator("#hint-btn:not([disabled])").count():
            page.click("#hint-btn")
            page.wait_for_selector("#play-btn:not([disabled])")
            page.click("#play-btn")
        else:
            page.click("#pass-form button")
    else:
        kind = "choice"
        buttons = page.locator("#table-controls .choice-row form button")
        primary = page.locator("#table-controls .choice-row form button.primary")
        (primary if primary.count() else buttons).first.click()
    page.wait_for_function(
        "el => !el.isConnected || document.querySelector('#table-error .error-msg')",
        arg=controls,
        timeout=15_000,
    )
    return kind


def one_hand(browser, base: str, *, variant: str, size: str, lang: str, out: Path) -> list[Path]:
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height}, locale=lang)
    context.add_cookies([{"name": "django_language", "value": lang, "url": base}])
    context.set_default_timeout(20_000)
    page = context.new_page()
    page.goto(base + "/accounts/login/")
    page.fill("input[name=login]", "player-" + size)
    page.fill("input[name=password]", PASSWORD)
    page.click("form [type=submit]")
    page.wait_for_url(lambda url: "/accounts/login" not in url)
    page.goto(base + "/")
    page.locator(f".room:has(h2:text-is('room-{variant}')) button").first.click()
    page.wait_for_url("**/table/**")
    fill = page.locator("#table-controls form:has(input[name=fill]) button")
    if fill.count():
        fill.click()
    page.click("#table-controls form[action$='/deal/'] button")
    page.wait_for_selector("#table-hand .hc")
    shots: list[Path] = []

    def shot(moment: str) -> None:
        path = out / f"{variant}-{size}-{len(shots) + 1}-{moment}.png"
        page.screenshot(path=str(path))
        shots.append(path)

    turns = {"choice": 0, "play": 0}
    deadline = time.time() + 300
    while not page.locator("#table-result .result-panel").count():
        if time.time() > deadline:
            raise RuntimeError(f"{variant} ({size}): the hand did not end")
        if page.locator("#table-controls[data-my-turn='1']").count():
            kind = "play" if page.locator("#play-form").count() else "choice"
            if turns[kind] == 0 or (kind == "play" and turns["play"] == 4):
                page.wait_for_timeout(300)  # the turn's toast in sight
                shot("decision" if kind == "choice" else f"play-turn-{turns['play'] + 1}")
            turns[kind] += 1
            act(page)
        else:
            page.wait_for_timeout(150)
    page.wait_for_timeout(300)
    shot("result")
    context.close()
    return shots


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variants", nargs="*", help=f"some of {', '.join(VARIANTS)} (all)")
    parser.add_argument("--out", default="screenshots", help="folder for the pictures")
    parser.add_argument("--lang", default="en", choices=["zh-hans", "zh-hant", "en"])
    options = parser.parse_args()
    unknown = set(options.variants) - set(VARIANTS)
    if unknown:
        parser.error(f"unknown variants: {', '.join(sorted(unknown))}")
    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    with club() as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            for variant in options.variants or VARIANTS:
                for size in SIZES:
                    for path in one_hand(
                        browser, base, variant=variant, size=size, lang=options.lang, out=out
                    ):
                        print(path)
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
