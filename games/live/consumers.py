"""The table websocket: transport only (docs/conventions.md §4). It authenticates, joins the table's
groups, turns frames into intents for the services, and sends each socket its own rendering.

URL ``/ws/table/<table_id>/``. Close codes: 4401 not signed in, 4404 no such table, 4429 the
user already holds DDZ_WS_MAX_SOCKETS_PER_USER table sockets, 4009 a frame over the size limit,
from the page or to it (daphne's websocket library refuses 1009 from an application, whose
close then raises and kills it; daphne's own 1 MiB limit still closes with 1009,
ddz_site/asgi.py).
Whatever ends a socket (its close, an exception in a handler, the process stopping) releases
its lease and runs the presence bookkeeping once (``TableConsumer.__call__``).
Outbound frames are HTML (every screen region, swapped in by id by the htmx ws extension);
errors go to the sender alone as the ``#table-error`` partial, after a full resync of the
sender's view when the refusal was a stale version.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from autobahn.exception import Disconnected
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib import auth
from django.utils import translation
from django.utils.translation import gettext as _

from games import services
from games.live import latency
from games.live.intents import Intent, parse_frame
from games.push import frames, send
from games.reads import selectors
from games.reads.private import may_watch
from games.services.presence import (
    socket_held,
    socket_opening,
    socket_opening_ended,
    socket_released,
)
from games.table.errors import MESSAGES, ActionRejected, ErrorCode
from games.table.hooks import hooks
from site_kit import logs, metrics

logger = logging.getLogger(__name__)

CLOSE_UNAUTHENTICATED = 4401
CLOSE_NO_TABLE = 4404
CLOSE_TOO_MANY_SOCKETS = 4429
CLOSE_TOO_BIG = 4009

# Per-socket flood guard (issue #6): a bucket of DDZ_WS_RATE_BURST frames refilled at
# DDZ_WS_RATE_PER_SECOND; a frame over the limit is dropped unread and the sender told, at most
# once a second. A person clicks far less; htmx sends one frame per click.


def act(table_id: int, user: Any, intent: Intent) -> None:
    """A player's move: one attempt, one database call."""
    assert intent.action is not None
    services.hand_submit_action(
        table_id=table_id,
        hand_id=intent.hand_id,
        user=user,
        action=intent.action,
        expected_version=intent.version,
    )


def autoplay(table_id: int, user: Any, intent: Intent) -> None:
    """A player hands his seat to 托管 or takes it back: one attempt, one database call."""
    services.seat_set_autoplay(
        table_id=table_id, hand_id=intent.hand_id, user=user, enabled=bool(intent.enabled)
    )


CONFLICT_ATTEMPTS = 3


async def _retrying(call: Callable[..., None], *args: Any) -> None:
    """A write that lost a race for the database (SQLite's busy lock, a concurrent deadline)
    is tried again a few times; if the table really changed, the retry is refused as stale.
    Each attempt is a database call of its own and the pause between them is the event loop's:
    the one database thread serves the other tables meanwhile."""
    for attempt in range(CONFLICT_ATTEMPTS):
        try:
            await database_sync_to_async(call)(*args)
            return
        except ActionRejected as error:
            if error.code is not ErrorCode.CONFLICT or attempt == CONFLICT_ATTEMPTS - 1:
                raise
        await asyncio.sleep(0.05 * (attempt + 1))


@dataclass(frozen=True)
class _Admission:
    user: Any
    language: str = ""
    refused: int | None = None  # the close code


def _opener(scope: dict[str, Any]) -> tuple[str, Any] | None:
    """Whose connect this is, as far as the scope tells without the database: its browser
    session, or the user a test's scope names. None when neither (it is refused as anonymous)."""
    session = scope.get("session")
    key = getattr(session, "session_key", None)
    if key:
        return ("session", key)
    user = scope.get("user")
    if user is not None and getattr(user, "pk", None) is not None:
        return ("user", user.pk)
    return None


def _first_language(scope: dict[str, Any]) -> str:
    """The language of a refusal made before the socket's user is known: his language cookie's
    when the club ships it, else the club's."""
    chosen = (scope.get("cookies") or {}).get(settings.LANGUAGE_COOKIE_NAME)
    try:
        return translation.get_supported_language_variant(chosen or settings.LANGUAGE_CODE)
    except LookupError:
        return settings.LANGUAGE_CODE


def _admit(scope: dict[str, Any], table_id: int) -> _Admission:
    """Who the socket is (its session's user, unless the scope already names one), whether the
    table exists and he may watch it (a private table: players, host, and code holders when
    spectators are allowed; others are told it does not exist), and the language he reads.
    One turn of the database thread for all of it."""
    session = scope.get("session")
    user = scope.get("user")
    if user is None and session is not None:
        user = auth.get_user(SimpleNamespace(session=session))
    if user is None or not user.is_authenticated:
        return _Admission(user=user, refused=CLOSE_UNAUTHENTICATED)
    table = selectors.table_get(table_id=table_id)
    codes = list(session.get("ddz_invites", [])) if session is not None else []
    if table is None or not may_watch(table, user, codes):
        return _Admission(user=user, refused=CLOSE_NO_TABLE)
    headers = dict(scope.get("headers") or [])
    language = hooks.socket_language(
        user=user,
        cookie=(scope.get("cookies") or {}).get(settings.LANGUAGE_COOKIE_NAME),
        accept_language=headers.get(b"accept-language", b"").decode("latin-1"),
    )
    return _Admission(user=user, language=language)


class TableConsumer(AsyncWebsocketConsumer):
    table_id: int
    user: Any
    _ending: asyncio.Future[None] | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        # channels runs disconnect() only for the peer's close: an exception in any handler
        # ends the application without it, and so does daphne cancelling it as the process
        # stops; the lease and the seat's presence are released on every way out
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self._ended()

    async def connect(self) -> None:
        self.joined: list[str] = []
        # accepted before any database work: daphne drops a handshake the application has not
        # answered in 5 s, and after a restart every tab of the club reconnects at once
        await self.accept()
        try:
            self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        except (KeyError, TypeError, ValueError):
            await self.close(code=CLOSE_NO_TABLE)
            return
        self.language = _first_language(self.scope)
        opener = _opener(self.scope)
        if opener is not None:
            if not socket_opening(opener=opener):
                await self._refuse_extra_socket(
                    ActionRejected.of(ErrorCode.TOO_MANY_SOCKETS, detail="opening on this process")
                )
                return
            self._opener: tuple[str, Any] | None = opener  # counted until it closes
        admission = await database_sync_to_async(_admit)(self.scope, self.table_id)
        self.user = self.scope["user"] = admission.user
        if admission.refused is not None:
            await self.close(code=admission.refused)
            return
        self.language = admission.language
        logs.bind(table_id=self.table_id, user_id=self.user.pk)  # for this socket's whole task
        send.remember_server_loop(asyncio.get_running_loop())
        for group in (
            frames.public_group(self.table_id),
            frames.user_group(self.table_id, self.user.pk),
        ):
            await self.channel_layer.group_add(group, self.channel_name)
            self.joined.append(group)
        try:
            presence = await database_sync_to_async(services.seat_connect)(
                table_id=self.table_id, user=self.user, channel_name=self.channel_name
            )
        except ActionRejected as error:
            if error.code is ErrorCode.TOO_MANY_SOCKETS:
                await self._refuse_extra_socket(error)
                return
            logger.info("table %s: %s", self.table_id, error)
            presence = None
        if presence is not None:  # its lease is recorded: this process keeps it
            socket_held(channel_name=self.channel_name, table_id=self.table_id, user=self.user)
        self._counted = (
            metrics.SEATED_SOCKETS if presence and presence.seated else (metrics.SPECTATOR_SOCKETS)
        )
        self._counted.inc()
        # spectator count, connection address; pushed before this socket's first frame so the
        # other tabs have it by the time this one shows the table
        await hooks.socket_opened(self, seated=bool(presence and presence.seated))
        if presence is None or not presence.pushed:
            # else the push of his seat coming on line, which this socket's groups receive
            # right after connecting, is its first state
            with translation.override(self.language):
                await self.send_state()

    async def _refuse_extra_socket(self, error: ActionRejected) -> None:
        """Its user holds the cap of table sockets: no lease was recorded; it says why, and
        closes (the page neither reloads nor reconnects after 4429)."""
        for group in self.joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        self.joined = []
        with translation.override(self.language):
            await self.send_error(str(MESSAGES[error.code]))
        await self.close(code=CLOSE_TOO_MANY_SOCKETS)

    async def dispatch(self, message: dict[str, Any]) -> None:
        # channels' own dispatch first runs close_old_connections in the one database thread
        # for every message; here each database call goes through database_sync_to_async,
        # which does that itself, and that hop only queued every pushed frame behind the
        # table's database work
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"no handler for message type {message.get('type')!r}")
        await handler(message)

    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None:
        if _too_big(text_data, bytes_data, settings.DDZ_WS_MAX_SEND_BYTES):
            # daphne refuses to send it and drops the socket with no close code: the page
            # gets a proper close, and comes back with a resync
            logger.error("table %s: frame over the size limit", getattr(self, "table_id", "?"))
            await super().close(code=CLOSE_TOO_BIG)
            return
        try:
            await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
            metrics.PUSH_CHARACTERS.inc(len(text_data or bytes_data or ""))
        except Disconnected:
            # the tab closed while this frame was on its way (a push crossing a closing tab
            # is routine): its disconnect is handled on its own, nothing is lost
            logger.debug(
                "table %s: frame for a closed socket dropped", getattr(self, "table_id", "?")
            )

    async def disconnect(self, code: int) -> None:
        await self._ended()

    async def _ended(self) -> None:
        """The socket's presence ends, once, whoever asks first; a caller cancelled meanwhile
        (daphne cancels an application that takes too long to close, and every application
        when the process stops) does not cut the bookkeeping short."""
        if self._ending is None:
            self._ending = asyncio.ensure_future(self._release())
        await asyncio.shield(self._ending)

    async def _release(self) -> None:
        resync = getattr(self, "_resync_task", None)
        if resync is not None:
            resync.cancel()
        opener = getattr(self, "_opener", None)
        if opener is not None:
            self._opener = None
            socket_opening_ended(opener=opener)
        counted = getattr(self, "_counted", None)
        if counted is not None:
            self._counted = None
            counted.dec()
        joined, self.joined = getattr(self, "joined", []), []
        if not joined:
            return
        # released before its lease is deleted, so the renewer never records it again
        socket_released(channel_name=self.channel_name)
        try:
            for group in joined:
                await self.channel_layer.group_discard(group, self.channel_name)
        except Exception:  # the layer away: its groups expire; the lease must still go
            metrics.CHANNEL_LAYER_ERRORS.inc()
            logger.exception("table %s: leaving the socket's groups failed", self.table_id)
        await self._call(
            services.seat_disconnect,
            table_id=self.table_id,
            user=self.user,
            channel_name=self.channel_name,
        )
        await hooks.socket_closed(self)

    async def _call(self, func: Any, **kwargs: Any) -> Any:
        """``func``'s result, or None when it was refused (logged)."""
        try:
            return await database_sync_to_async(func)(**kwargs)
        except ActionRejected as error:
            logger.info("table %s: %s", getattr(self, "table_id", "?"), error)
            return None

    def _within_rate(self) -> bool:
        burst = float(settings.DDZ_WS_RATE_BURST)
        rate = float(settings.DDZ_WS_RATE_PER_SECOND)
        now = time.monotonic()
        tokens, last = getattr(self, "_bucket", (burst, now))
        tokens = min(burst, tokens + (now - last) * rate)
        allowed = tokens >= 1.0
        self._bucket = (tokens - 1.0 if allowed else tokens, now)
        return allowed

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not getattr(self, "joined", None):
            return
        if _too_big(text_data, bytes_data, settings.DDZ_WS_MAX_FRAME_BYTES):
            await self.close(code=CLOSE_TOO_BIG)
            return
        # errors and this socket's own renderings speak the reader's language
        with translation.override(self.language):
            await self._receive(text_data, bytes_data)

    async def _receive(self, text_data: str | None, bytes_data: bytes | None) -> None:
        if not self._within_rate():
            now = time.monotonic()
            metrics.REFUSED.labels("rate_limited").inc()
            if now - getattr(self, "_flood_told", 0.0) >= 1.0:
                self._flood_told = now
                await self.send_error(_("Too many messages: slow down; this one was ignored."))
            return
        try:
            intent = parse_frame(text_data if bytes_data is None else None)
            if intent.table_id is not None and intent.table_id != self.table_id:
                raise ActionRejected.of(
                    ErrorCode.WRONG_TABLE, detail=f"table {intent.table_id} != {self.table_id}"
                )
            if intent.kind == "resync":
                self._resync()
            elif intent.kind in ("act", "autoplay"):
                stamp = send.action_started.set(time.time())
                context = logs.bind(hand_id=intent.hand_id)  # the service names it if not
                call = act if intent.kind == "act" else autoplay
                try:
                    await _retrying(call, self.table_id, self.user, intent)
                finally:
                    send.action_started.reset(stamp)
                    logs.unbind(context)
                metrics.ACTIONS.labels(intent.kind).inc()
            elif intent.kind == "chat":
                await hooks.chat(self, intent)
        except ActionRejected as error:
            metrics.REFUSED.labels(error.code.value).inc()
            if error.code is ErrorCode.STALE_VERSION:
                await self.send_state()
            await self.send_error(error.message)
        except Exception:
            logger.exception("table %s: frame failed", self.table_id)
            await self.send_error(_("Something went wrong; the table is unchanged."))

    def _resync(self) -> None:
        """A resync the page asked for. At most one full rendering per socket is in flight and
        DDZ_WS_RESYNC_PER_SECOND start each second: a request while one is waiting is answered
        by it; one while it renders gets one more rendering after it (which sees its state)."""
        self._resync_wanted = True
        task = getattr(self, "_resync_task", None)
        if task is None or task.done():
            self._resync_task = asyncio.create_task(self._resyncs())

    async def _resyncs(self) -> None:
        interval = 1.0 / settings.DDZ_WS_RESYNC_PER_SECOND
        while self._resync_wanted:
            wait = getattr(self, "_resync_at", 0.0) + interval - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            self._resync_wanted = False
            self._resync_at = time.monotonic()
            try:
                with translation.override(self.language):
                    await self.send_state()
            except Exception:
                logger.exception("table %s: resync failed", self.table_id)

    async def send_state(self) -> None:
        html = await database_sync_to_async(frames.full_frame)(
            table_id=self.table_id, user=self.user, language=self.language
        )
        await self.send(text_data=html)

    async def send_error(self, message: str) -> None:
        await self.send(text_data=frames.error_frame(message=message))

    async def frame_html(self, message: dict[str, Any]) -> None:
        """A frame of the table's groups (games/push/frames.py): this socket's rendering of it,
        in its seat's language (a seated user's) or its own (a spectator's)."""
        frame = frames.from_message(message)
        if isinstance(frame, frames.CloseWatchers):
            return
        html = frame.text_for(user_id=self.user.pk, language=self.language)
        if html is None:
            return
        await self.send(text_data=html)
        if frame.started is not None:
            latency.frame_written(frame.started)

    async def frame_close(self, message: dict[str, Any]) -> None:
        """A private table's host stopped spectators: every socket but the players' and the
        host's closes (as for a table it may not see)."""
        frame = frames.from_message(message)
        if isinstance(frame, frames.CloseWatchers) and self.user.pk not in frame.keep:
            await self.close(code=CLOSE_NO_TABLE)


def _too_big(text_data: str | None, bytes_data: bytes | None, limit: int) -> bool:
    if bytes_data is not None:
        return len(bytes_data) > limit
    # a character is at most four bytes in UTF-8: most frames need no encoding to tell
    return text_data is not None and len(text_data) * 4 > limit and len(text_data.encode()) > limit
