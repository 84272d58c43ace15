"""Live-server harness shared by the reliability tests and bench/load_tables.py.

* ``Server``: one daphne process (a subprocess on its own port, in its own process group) with
  the environment's database and Redis; ``kill()`` is ``kill -9``; ``stop()`` always reaps it.
* ``TableClient``: one browser tab over a real socket (the ``websockets`` library) with the
  Origin header and a signed-in session cookie. It keeps every frame it receives with its
  arrival time and decides its moves from those frames alone, the way the page does: the
  hand version of ``#table-status``, the forms of ``#table-controls``, the server's hints
  (``data-hints``, the legal plays of the seat's own hand, weakest first) and the choice
  buttons of the other phases.
  Like the page (static/games/reconnect.js) it drops a state older than the one it shows
  (``data-table-version``): pushes from different processes may overtake each other.
"""

from __future__ import annotations

import asyncio
import contextlib
import html as htmllib
import json
import os
import re
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from competitions.management.commands import restore_check
from games.engine.cards import format_cards
from games.engine.hand import apply
from games.engine.record import replay
from games.engine.state import Action

ROOT = Path(__file__).resolve().parents[2]
DAPHNE = ROOT / ".venv" / "bin" / "daphne"
ORIGIN = "http://localhost"
LIVE_SETTINGS = "tests.reliability.live_settings"
APPLICATION = "ddz_site.asgi:application"

# --------------------------------------------------------------------------- servers


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def database_url(settings_dict: dict[str, Any]) -> str:
    """A DATABASE_URL for another process to open the same (test) database."""
    return restore_check.database_url(settings_dict, settings_dict["NAME"])


def _die_with_parent() -> None:
    """In the child: SIGKILL when the test process dies, even by os._exit (a hard timeout)."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class Server:
    """A daphne subprocess serving ddz_site on 127.0.0.1:port (started with ``start``)."""

    def __init__(
        self,
        port: int,
        env: dict[str, str],
        *,
        name: str = "daphne",
        root: Path = ROOT,
        application: str = APPLICATION,
    ) -> None:
        """``root``: the checkout to serve (bench/load_tables.py's ``--base`` serves another);
        ``application``: the ASGI application it serves (a test may plant a fault in it)."""
        self.port = port
        self.name = name
        self.root = root
        self.application = application
        self.env = {**os.environ, **env, "PYTHONPATH": str(root)}
        self.env.setdefault("DJANGO_SETTINGS_MODULE", LIVE_SETTINGS)
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = tempfile.NamedTemporaryFile(  # noqa: SIM115 - lives as long as the server
            prefix=f"ddz-{name}-{port}-", suffix=".log", delete=False
        )

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, *, timeout: float = 30.0) -> Server:
        # the program must be called "daphne": games/apps.py starts the deadline runner then
        self.proc = subprocess.Popen(
            [str(DAPHNE), "-b", "127.0.0.1", "-p", str(self.port), self.application],
            cwd=self.root,
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited at start:\n{self.tail()}")
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2),
            ):
                return self
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"{self.name} did not listen on {self.port}:\n{self.tail()}")

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Signal the whole process group (daphne and anything it started), ``kill -9``
        unless told otherwise, and reap it; one that outlives a polite signal is killed."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, sig)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)
        self.proc = None

    stop = kill

    def rss_kib(self) -> int:
        """Resident memory of the server process (KiB)."""
        if self.proc is None:
            return 0
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        match = re.search(r"VmRSS:\s+(\d+) kB", status)
        return int(match.group(1)) if match else 0

    def tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(Path(self.log.name).read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def errors(self) -> list[str]:
        """Tracebacks and ERROR lines in the server's log."""
        text = Path(self.log.name).read_text(errors="replace")
        return [line for line in text.splitlines() if "Traceback" in line or " ERROR " in line]


async def poll(check: Any, *, what: str, patience: float = 90.0) -> Any:
    """Run ``check`` (a database read) in the database thread until it returns something
    true, and return that; fail after ``patience`` seconds (generous: a loaded machine)."""
    from channels.db import database_sync_to_async

    started = time.monotonic()
    while True:
        value = await database_sync_to_async(check)()
        if value:
            return value
        assert time.monotonic() - started < patience, f"{what}: not within {patience} s"
        await asyncio.sleep(0.1)


def session_cookie(user: Any) -> str:
    """A signed-in session for ``user`` in the shared database (sync; ORM)."""
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


# --------------------------------------------------------------------------- frames

_REGION = re.compile(r'(?=<div id="table-[a-z]+")')
_REGION_ID = re.compile(r'^<div id="(table-[a-z]+)"')
# the status's clock carries it (sent alone when nothing else of the status changed); servers
# before it the status itself, and the load bench drives such an older tree as its "old" side
_VERSION = re.compile(r'id="table-(?:clock|status)"[^>]*data-version="(\d+)"')
_MOVE_VERSION = re.compile(r'id="table-controls"[^>]*data-version="(\d+)"')
_FRAME = re.compile(
    r'id="table-frame"[^>]*data-version="(\d+)" data-full="([01])"'
    r'(?: data-part="(\w+)")?(?: data-own="([01])")?'
)
_HINTS = re.compile(r'data-hints="([^"]*)"')
_FORM = re.compile(r"<form ws-send[^>]*>(.*?)</form>", re.S)
_INPUT = re.compile(r'<input type="hidden" name="([a-z]+)" value="([^"]*)"')


@dataclass
class Frame:
    at: float
    text: str
    regions: dict[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, at: float, text: str) -> Frame:
        regions = {}
        for part in _REGION.split(text):
            match = _REGION_ID.match(part)
            if match:
                regions[match.group(1)] = part
        return cls(at=at, text=text, regions=regions)

    @property
    def page(self) -> str:
        """Every region this frame leaves on screen."""
        return "".join(self.regions.values())

    @property
    def is_state(self) -> bool:
        """A state frame (a full screen or a push) rather than an error for this socket."""
        return "table-frame" in self.regions

    @property
    def error(self) -> str | None:
        region = self.regions.get("table-error", "")
        match = re.search(r'<p class="error-msg"><span>(.*?)</span>', region, re.S)
        return htmllib.unescape(match.group(1)) if match else None

    @property
    def controls(self) -> str:
        return self.regions.get("table-controls", "")

    @property
    def version(self) -> int | None:
        """The hand version the state was rendered at (the page sends it with each move)."""
        found = _VERSION.search(self.text)
        return int(found.group(1)) if found else None

    @property
    def my_turn(self) -> bool:
        return 'data-my-turn="1"' in self.controls

    def hints(self) -> list[str]:
        # the controls carry them; servers before 69a43de put them on the hand, and the load
        # bench drives such an older tree as its "old" side
        match = _HINTS.search(self.controls) or _HINTS.search(self.regions.get("table-hand", ""))
        return json.loads(htmllib.unescape(match.group(1))) if match else []

    def forms(self) -> list[dict[str, str]]:
        out = []
        for body in _FORM.findall(self.controls):
            fields = {k: htmllib.unescape(v) for k, v in _INPUT.findall(body)}
            if fields.get("intent") == "act":
                out.append(fields)
        return out

    def decide(self) -> dict[str, Any] | None:
        """The frame this tab would send now (None: not its turn)."""
        if not self.is_state or not self.my_turn:
            return None
        forms = self.forms()
        acts = {f["act"] for f in forms}
        # as static/games/table.js: the controls' version, which comes with them
        found = _MOVE_VERSION.search(self.controls)
        version = int(found.group(1)) if found else self.version
        if "play" in acts or "pass" in acts:
            hints = self.hints()
            if hints:
                return {"intent": "act", "version": str(version), "act": "play", "cards": hints[0]}
            return {"intent": "act", "version": str(version), "act": "pass"}
        choices = [f for f in forms if f.get("act") not in ("play", "pass")]
        if not choices:
            return None
        choice = choices[-1]  # the strongest bid / the last offered choice: hands get played
        frame = {"intent": "act", "version": str(version), "act": choice["act"]}
        if "value" in choice:
            frame["value"] = choice["value"]
        return frame


# --------------------------------------------------------------------------- clients


class TableClient:
    """One tab: a socket to ``/ws/table/<id>/`` and every frame received on it."""

    def __init__(
        self, name: str, base_url: str, table_id: int, cookie: str | None, *, origin=ORIGIN
    ) -> None:
        self.name = name
        self.base_url = base_url
        self.table_id = table_id
        self.cookie = cookie
        self.origin = origin
        self.ws: Any = None
        self.frames: list[Frame] = []
        self.sent: list[tuple[float, dict[str, Any]]] = []
        self.closed_code: int | None = None
        self.changed = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None
        self.reconnects = 0
        self.shown: int | None = None  # table version of the state on screen
        self.own: int | None = None  # version of the last full screen or own frame taken
        self.public: int | None = None  # version of the last full screen or public frame taken
        self.screen: dict[str, str] = {}  # what the page shows, region by region
        self.dropped: list[Frame] = []  # older states overtaken by newer ones (as the page)
        self.resyncs = 0

    @property
    def url(self) -> str:
        return f"{self.base_url}/ws/table/{self.table_id}/"

    async def connect(self, *, timeout: float = 30.0, first_frame: bool = True) -> TableClient:
        import websockets

        headers = {"Cookie": f"sessionid={self.cookie}"} if self.cookie else {}
        self.ws = await asyncio.wait_for(
            websockets.connect(
                self.url,
                origin=self.origin,
                additional_headers=headers,
                ping_interval=None,
                max_size=2**23,
                open_timeout=timeout,
            ),
            timeout,
        )
        self.closed_code = None
        self.shown = None  # the state on connect is the truth (as static/games/reconnect.js)
        count = len(self.frames)
        self._reader = asyncio.create_task(self._read(self.ws))
        if first_frame:
            await self.wait_for(lambda: len(self.frames) > count, timeout=timeout)
        return self

    async def reconnect(self, *, timeout: float = 30.0) -> TableClient:
        """Retry with backoff (0.1 s doubling to 1 s) until the server answers."""
        delay = 0.1
        deadline = time.monotonic() + timeout
        while True:
            try:
                await self.connect(timeout=5)
                self.reconnects += 1
                return self
            except (TimeoutError, OSError, Exception):
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(delay)
                delay = min(1.0, delay * 2)

    async def _read(self, ws: Any) -> None:
        """Take each frame as static/games/reconnect.js does; a state frame is recorded as the
        screen it leaves (a push carries only some regions)."""
        from websockets.exceptions import ConnectionClosed

        # the page model of the socket tests (Django's models with it: the benches that load
        # this module before Django is set up never read a socket)
        from tests.support.tables import swap_in

        try:
            async for message in ws:
                text = message if isinstance(message, str) else message.decode()
                frame = Frame.parse(time.perf_counter(), text)
                header = _FRAME.search(text)
                if header is not None:
                    version, full = int(header.group(1)), header.group(2) == "1"
                    if self.shown is not None and version < self.shown:
                        self.dropped.append(frame)  # what the page drops too
                        continue
                    if not full and self.shown is not None and version > self.shown + 1:
                        await self._resync(ws)  # a push was lost on the way
                        continue
                    self.shown = version
                    if full or header.group(3) == "seat":
                        self.own = version
                    if full or header.group(3) != "seat":
                        self.public = version
                    swap_in(self.screen, text)  # a move's seat panels inside #table-seats
                    frame = Frame(at=frame.at, text=text, regions=dict(self.screen))
                    if header.group(4) == "1" and self.own != version:
                        await self._resync(ws)  # this seat's own frame of it was lost
                self.frames.append(frame)
                self.changed.set()
        except ConnectionClosed:
            pass
        finally:
            if ws is self.ws:
                self.closed_code = ws.close_code if ws.close_code is not None else 1006
                self.changed.set()

    async def _resync(self, ws: Any) -> None:
        self.resyncs += 1
        await ws.send(json.dumps({"intent": "resync"}))

    @property
    def open(self) -> bool:
        return self.ws is not None and self.closed_code is None

    async def send(self, frame: dict[str, Any] | str) -> float:
        text = frame if isinstance(frame, str) else json.dumps(frame)
        at = time.perf_counter()
        await self.ws.send(text)
        self.sent.append((at, frame if isinstance(frame, dict) else {"raw": text}))
        return at

    async def wait_for(self, predicate: Any, *, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"{self.name}: condition not met in {timeout} s")
            self.changed.clear()
            if predicate():
                return
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.changed.wait(), min(remaining, 0.5))

    def caught_up(self, version: int) -> bool:
        """The screen shows table version ``version`` or a later one whole: every socket is
        sent each version's public frame (a seated one after his own frame of it), or a full
        screen."""
        return self.public is not None and self.public >= version

    def last_state(self) -> Frame | None:
        for frame in reversed(self.frames):
            if frame.is_state:
                return frame
        return None

    def versions(self) -> list[int | None]:
        """Hand versions of every state received (overtaken ones included)."""
        return [f.version for f in [*self.frames, *self.dropped] if f.is_state]

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 5)
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader


def state_after(client: TableClient, since: int) -> Frame | None:
    """The first state frame received at index >= since."""
    for frame in client.frames[since:]:
        if frame.is_state:
            return frame
    return None


# --------------------------------------------------------------------------- privacy

_CARD = re.compile(r'data-card="([^"]+)"')


def _cards(text: str) -> set[str]:
    return set(_CARD.findall(text))


def own_cards(record: dict) -> list[set[str]]:
    """Every card each seat ever held during the hand (its deal, plus the bottom if it took it)."""
    state = replay({**record, "actions": []})
    held = [set(format_cards(cards).split()) for cards in state.hands]
    for data in record["actions"]:
        state = apply(state, Action.from_json(data))
        for seat, cards in enumerate(state.hands):
            held[seat] |= set(format_cards(cards).split())
    return held


def assert_private(tabs, spectator, hand) -> None:
    """Seats saw only their own cards, the spectator none and no hints, nobody the seed before
    the result."""
    held = own_cards(hand.record)
    for index, tab in enumerate(tabs):
        seen = set().union(*(_cards(f.text) for f in tab.frames))
        assert seen and seen <= held[index], f"{tab.name} was shown cards it never held"
    assert spectator.frames and not any(_cards(f.text) for f in spectator.frames)
    assert not any(
        hints != "[]" for f in spectator.frames if f.is_state for hints in _HINTS.findall(f.text)
    )
    for tab in [*tabs, spectator]:
        leaks = [f for f in tab.frames if hand.seed in f.text and "data-result" not in f.text]
        assert not leaks, f"{tab.name} saw the seed before the result"
