"""What the server logs, and what it never logs (README "Running it").

* ``LOG_FORMAT=json``: one JSON line per record (python-json-logger), with the request id, user
  id, table id and hand id of the work that logged it where known (``bind``: a context
  variable, so it follows a request, a socket's task and the database thread it calls).
* Never a card of a live hand, a session key or a password: ``ScrubFilter`` rewrites every
  record before any handler formats it (a refusal logs its code, not the engine's words, which
  name the cards; a database query logs no text, nor a template's debugging its context;
  values under a secret-sounding key and card notation in messages and tracebacks are
  masked), and ``sentry_before_send`` does the same to what Sentry
  would send (``SENTRY_DSN``, off by default).
* ``RecentErrors`` keeps the process's last errors for the operators' live view (they reach it
  with the process's heartbeat: games.services.processes).
"""

from __future__ import annotations

import contextvars
import datetime
import logging
import re
import threading
import uuid
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction

if TYPE_CHECKING:  # Sentry is imported only where it is set up (sentry_init)
    from sentry_sdk.types import Event, Hint

REDACTED = "[redacted]"
CARDS = "[cards]"

# The fields a record carries from the work that logged it
CONTEXT_FIELDS = ("request_id", "user_id", "table_id", "hand_id")
_context: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "ddz_log_context", default=None
)

# A key whose value is a secret (a password, a session key, a cookie, a token, a DSN)
_SECRET_KEY = re.compile(
    r"pass(word)?|secret|session|cookie|csrf|token|auth|dsn|api_?key|signature", re.IGNORECASE
)
# key=value or "key": "value" pairs with such a key, inside a message
_SECRET_PAIR = re.compile(
    r"""(?P<key>["']?[\w-]*(?:pass(?:word)?|secret|session(?:id|_?key)?|cookie|csrf\w*|token)"""
    r"""[\w-]*["']?\s*[:=]\s*)(?P<value>"[^"]*"|'[^']*'|[^\s,;&}]+)""",
    re.IGNORECASE,
)
# Card notation (docs/rules.md §8.1): a suited card or a joker, as a word of its own
_CARD = re.compile(r"(?<![\w\[])(?:10|[2-9TJQKA])[shcd](?!\w)|(?<![\w\[])[SB]J(?!\w)")
# The engine's and the services' refusals carry the cards of a move in their words
_REFUSAL_NAMES = frozenset({"ActionRejected"})
_DATABASE_LOGGER = "django.db.backends"
_TEMPLATE_LOGGER = "django.template"


def bind(**fields: Any) -> contextvars.Token[dict[str, Any] | None]:
    """Add fields to what the current work's log records carry; ``unbind`` the token after."""
    current = _context.get() or {}
    return _context.set({**current, **{k: v for k, v in fields.items() if v is not None}})


def unbind(token: contextvars.Token[dict[str, Any] | None]) -> None:
    _context.reset(token)


def scrub_text(text: str) -> str:
    """``text`` without secret values and card notation."""
    text = _SECRET_PAIR.sub(lambda m: m.group("key") + REDACTED, text)
    return _CARD.sub(CARDS, text)


def scrub_value(value: Any, *, key: str = "") -> Any:
    """A structure's copy without secrets: values under a secret key masked, strings scrubbed."""
    if key and _SECRET_KEY.search(key):
        return REDACTED
    if isinstance(value, str):
        return scrub_text(value)
    if isinstance(value, dict):
        return {k: scrub_value(v, key=str(k)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(scrub_value(v) for v in value)
    return value


def _safe_argument(value: Any) -> Any:
    if type(value).__name__ in _REFUSAL_NAMES or _is_engine_error(value):
        code = getattr(value, "code", None)
        return getattr(code, "value", None) or type(value).__name__
    if isinstance(value, (str, dict, list, tuple)):
        return scrub_value(value)
    return value


def _is_engine_error(value: Any) -> bool:
    return isinstance(value, Exception) and type(value).__module__.startswith("games.engine")


class ScrubFilter(logging.Filter):
    """Rewrites every record so that no handler ever formats a secret (module docstring), and
    adds the current work's context fields."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith(_DATABASE_LOGGER) and record.args:
            # the query's text has its parameters in it: a session key, a hand's deal
            record.msg, record.args = (
                "(%.3f) query on %s",
                (
                    getattr(record, "duration", 0.0) or 0.0,
                    getattr(record, "alias", "?"),
                ),
            )
            record.sql = record.params = REDACTED
        elif record.args:
            if isinstance(record.args, dict):
                record.args = {k: _safe_argument(v) for k, v in record.args.items()}
            else:
                record.args = tuple(_safe_argument(a) for a in record.args)
        if isinstance(record.msg, str):
            # the message as it reads, scrubbed whole: "password=%s" names what its argument is
            try:
                message = record.getMessage()
            except Exception:  # arguments that do not fit: the logging module's to report
                message = record.msg
            else:
                record.args = None
            record.msg = scrub_text(message)
        else:
            record.msg = _safe_argument(record.msg)
        for name in list(vars(record)):
            if _SECRET_KEY.search(name) and name not in _RECORD_ATTRIBUTES:
                setattr(record, name, REDACTED)
        if record.name == _TEMPLATE_LOGGER:
            # a variable a template lacks: its traceback prints the whole rendering context
            # (a seat's cards, a session); the message names the variable and the template
            record.exc_info, record.exc_text = None, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            # the formatters then print the scrubbed text, not the exception (which Django's
            # template debugging fills with a whole rendering context: a seat's cards)
            record.exc_text = scrub_text(record.exc_text)
            record.exc_info = None
        if record.stack_info:
            record.stack_info = scrub_text(record.stack_info)
        for field, value in (_context.get() or {}).items():
            if not hasattr(record, field):
                setattr(record, field, value)
        return True


_RECORD_ATTRIBUTES = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None)))


class RecentErrors(logging.Handler):
    """The process's last error records (scrubbed), newest last: ``recent_errors()``."""

    def __init__(self, capacity: int = 10) -> None:
        super().__init__(level=logging.ERROR)
        self.addFilter(ScrubFilter())
        _recent.maxlen_set(capacity)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # a record whose arguments do not fit its message
            message = str(record.msg)
        _recent.add(
            {
                "at": datetime.datetime.fromtimestamp(record.created, datetime.UTC).isoformat(),
                "logger": record.name,
                "message": message[:500],
            }
        )


class _Recent:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.items: deque[dict[str, str]] = deque(maxlen=10)

    def maxlen_set(self, capacity: int) -> None:
        with self.lock:
            self.items = deque(self.items, maxlen=capacity)

    def add(self, item: dict[str, str]) -> None:
        with self.lock:
            self.items.append(item)

    def list(self) -> list[dict[str, str]]:
        with self.lock:
            return list(self.items)


_recent = _Recent()


def recent_errors() -> list[dict[str, str]]:
    return _recent.list()


def sentry_before_send(event: Event, hint: Hint) -> Event:
    """Sentry's ``before_send``: the event with the same scrubbing as a log line (the request's
    cookies and headers go whole, as do local variables, which may hold a hand's state)."""
    event = scrub_value(event)
    request = event.get("request")
    if isinstance(request, dict):
        for key in ("cookies", "data", "headers"):
            if key in request:
                request[key] = REDACTED
    for exception in (event.get("exception") or {}).get("values") or ():
        for frame in (exception.get("stacktrace") or {}).get("frames") or ():
            frame.pop("vars", None)
    crumbs = event.get("breadcrumbs")
    if isinstance(crumbs, dict) and isinstance(crumbs.get("values"), list):
        # a query's breadcrumb holds its text and parameters, as the query log does
        crumbs["values"] = [c for c in crumbs["values"] if c.get("category") != "query"]
    return event


def sentry_init(dsn: str, *, environment: str = "") -> None:
    """Send exceptions to Sentry (``SENTRY_DSN``): no personal data, scrubbed."""
    import sentry_sdk

    sentry_sdk.init(
        dsn=dsn,
        environment=environment or None,
        send_default_pii=False,
        include_local_variables=False,
        before_send=sentry_before_send,
    )


def request_context_middleware(
    get_response: Callable[[Any], Any],
) -> Callable[[Any], Any]:
    """Binds a request id (nginx's X-Request-ID, else a fresh one) and the signed-in user's id
    to the log records of the request."""

    def request_id(request: Any) -> str:
        return request.headers.get("X-Request-ID") or uuid.uuid4().hex

    if iscoroutinefunction(get_response):

        async def middleware(request: Any) -> Any:
            user = await request.auser()
            token = bind(request_id=request_id(request), user_id=user.pk)
            try:
                return await get_response(request)
            finally:
                unbind(token)

        return markcoroutinefunction(middleware)

    def sync_middleware(request: Any) -> Any:
        token = bind(request_id=request_id(request), user_id=request.user.pk)
        try:
            return get_response(request)
        finally:
            unbind(token)

    return sync_middleware


request_context_middleware.sync_capable = True  # type: ignore[attr-defined]
request_context_middleware.async_capable = True  # type: ignore[attr-defined]
