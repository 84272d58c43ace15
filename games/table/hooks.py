"""What the club and competitions apps add to a table, without games importing them (layers
point one way: games/engine <- games <- club <- competitions). Each hook is a Protocol with
the parameters games calls it with; an app registers its functions here when it starts
(``ready()`` of ``club.apps.ClubConfig`` and ``competitions.apps.CompetitionsConfig``), and
``register`` checks each one's signature against its hook there, so a mismatch stops the
start-up instead of failing on the first call. Games calls them as ``hooks.<name>(...)``.

The defaults are what a table does without the apps: every reader gets the club's default
language, nobody is suspended, sockets (opened, closed, expired) have nothing more to record,
chat is refused, no seat shows a rating, every table may be watched and every hand read, the
deadline runner's rounds do nothing more, and a finished hand is kept by nobody else.

``hand_finished`` is a list: every app that keeps something of a hand (the club's outcomes,
season standings and ratings; the events' next step) registers a handler, and the service that
finishes a hand calls them all inside its transaction (``hooks.hand_finished(hand=...)``), so a
handler that raises rolls the finish back. Nothing of this is done from model signals
(docs/conventions.md §3)."""

from __future__ import annotations

import datetime
import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol, TypeAlias, get_type_hints

from django.conf import settings
from django.contrib.auth.models import AnonymousUser

from accounts.models import User
from games.models import Hand, Table
from games.table.errors import ActionRejected, ErrorCode


class HookMismatch(TypeError):
    """A registration that does not fit its hook (a programming error, raised at start-up)."""


# --------------------------------------------------------------------------- what hooks see


class TableSocket(Protocol):
    """What a table's socket shows the hooks (games.live.consumers.TableConsumer)."""

    table_id: int
    user: User
    scope: Mapping[str, object]


class ChatWords(Protocol):
    """A chat intent: a phrase key, or free text (games.live.intents.Intent, frozen)."""

    @property
    def chat_key(self) -> str: ...

    @property
    def text(self) -> str: ...


class ShownRating(Protocol):
    """A seated player's skill rating as a seat shows it."""

    @property
    def shown(self) -> int: ...

    @property
    def provisional(self) -> bool: ...


Reader: TypeAlias = User | AnonymousUser


# --------------------------------------------------------------------------- the hooks


class UserMaySit(Protocol):
    """May this user sit down? (an operator may have suspended him)"""

    def __call__(self, *, user: User) -> bool: ...


class SocketLanguage(Protocol):
    """The language a player's socket reads, from what his browser sent."""

    def __call__(self, *, user: User, cookie: str | None, accept_language: str) -> str: ...


class PushLanguages(Protocol):
    """One push's languages: each seated player's, and the set its spectators read."""

    def __call__(
        self, *, table_id: int, seated_user_ids: Iterable[int]
    ) -> tuple[dict[int, str], set[str]]: ...


class LanguagesOf(Protocol):
    """The stored languages of some players: {user id: language}."""

    def __call__(self, *, user_ids: Iterable[int]) -> dict[int, str]: ...


class SocketOpened(Protocol):
    """A table socket opened (``seated``: its user holds a seat there)."""

    async def __call__(self, consumer: TableSocket, *, seated: bool) -> None: ...


class SocketClosed(Protocol):
    """A table socket closed."""

    async def __call__(self, consumer: TableSocket) -> None: ...


class Chat(Protocol):
    """A chat intent sent on a table socket."""

    async def __call__(self, consumer: TableSocket, intent: ChatWords) -> None: ...


class LeasesExpired(Protocol):
    """The sweep deleted dead sockets' leases at a table (after commit)."""

    def __call__(self, *, table_id: int, user_ids: Iterable[int]) -> None: ...


class RatingsOf(Protocol):
    """The skill ratings shown next to the seated players' names (read once per push)."""

    def __call__(
        self, *, user_ids: Iterable[int], variant_key: str
    ) -> Mapping[int, ShownRating]: ...


class RunnerRound(Protocol):
    """The deadline runner finished a round (the club begins the seasons that are due)."""

    def __call__(self) -> object: ...


class MayWatch(Protocol):
    """May this reader watch the table now? (an app may hide a table for a while)"""

    def __call__(self, *, table: Table, user: Reader) -> bool: ...


class HiddenHands(Protocol):
    """Which of these hands' records, replays and verify pages the reader may not open yet
    (``user`` None: any reader, e.g. the club's leaderboards)."""

    def __call__(self, *, hand_ids: Iterable[int], user: Reader | None) -> set[int]: ...


class TableBanner(Protocol):
    """HTML shown above a table's screen."""

    def __call__(self, *, table: Table, user: Reader) -> str: ...


class LobbyBanner(Protocol):
    """HTML shown in the lobby."""

    def __call__(self, *, user: Reader) -> str: ...


class DueWork(Protocol):
    """The deadline runner's other work: do what is due, return seconds until more is."""

    def __call__(self, *, now: datetime.datetime) -> float | None: ...


class HandFinished(Protocol):
    """A hand was finished and settled (inside the transaction that finishes it)."""

    def __call__(self, *, hand: Hand) -> None: ...


# --------------------------------------------------------------------------- the defaults


def _default_language(*, user: User, cookie: str | None, accept_language: str) -> str:
    return settings.LANGUAGE_CODE


def _default_push_languages(
    *, table_id: int, seated_user_ids: Iterable[int]
) -> tuple[dict[int, str], set[str]]:
    return {}, {settings.LANGUAGE_CODE}


async def _nothing_opened(consumer: TableSocket, *, seated: bool) -> None:
    return None


async def _nothing_closed(consumer: TableSocket) -> None:
    return None


async def _no_chat(consumer: TableSocket, intent: ChatWords) -> None:
    raise ActionRejected.of(ErrorCode.UNKNOWN_ACT, detail="no chat without the club")


@dataclass
class TableHooks:
    user_may_sit: UserMaySit = lambda *, user: True
    socket_language: SocketLanguage = _default_language
    push_languages: PushLanguages = _default_push_languages
    languages_of: LanguagesOf = lambda *, user_ids: {}
    socket_opened: SocketOpened = _nothing_opened
    socket_closed: SocketClosed = _nothing_closed
    chat: Chat = _no_chat
    leases_expired: LeasesExpired = lambda *, table_id, user_ids: None
    ratings_of: RatingsOf = lambda *, user_ids, variant_key: {}
    runner_round: RunnerRound = lambda: None
    may_watch: MayWatch = lambda *, table, user: True
    hidden_hands: HiddenHands = lambda *, hand_ids, user: set()
    table_banner: TableBanner = lambda *, table, user: ""
    lobby_banner: LobbyBanner = lambda *, user: ""
    due_work: DueWork = lambda *, now: None
    # every app's handler, in the order the apps started
    hand_finished_handlers: tuple[HandFinished, ...] = field(default=())

    def hand_finished(self, *, hand: Hand) -> None:
        """Let every app keep what it keeps of the finished ``hand`` (in its transaction)."""
        for handler in self.hand_finished_handlers:
            handler(hand=hand)


hooks = TableHooks()

# each single hook's Protocol, by the name games calls it by
_PROTOCOLS: dict[str, type] = {
    name: hint
    for name, hint in get_type_hints(TableHooks).items()
    if name != "hand_finished_handlers"
} | {"hand_finished": HandFinished}

# hooks that hold only together: an app that replaces one of a group replaces all of it
TOGETHER: tuple[frozenset[str], ...] = (
    # what a socket's opening records, its closing (or the sweep of its lease) closes
    frozenset({"socket_opened", "socket_closed", "leases_expired"}),
    # a socket and the pushes to its seat speak the same stored language
    frozenset({"socket_language", "push_languages", "languages_of"}),
    # a table hidden from its watchers hides its hands' records and replays too
    frozenset({"may_watch", "hidden_hands"}),
)


def register(
    *,
    user_may_sit: UserMaySit | None = None,
    socket_language: SocketLanguage | None = None,
    push_languages: PushLanguages | None = None,
    languages_of: LanguagesOf | None = None,
    socket_opened: SocketOpened | None = None,
    socket_closed: SocketClosed | None = None,
    chat: Chat | None = None,
    leases_expired: LeasesExpired | None = None,
    ratings_of: RatingsOf | None = None,
    runner_round: RunnerRound | None = None,
    may_watch: MayWatch | None = None,
    hidden_hands: HiddenHands | None = None,
    table_banner: TableBanner | None = None,
    lobby_banner: LobbyBanner | None = None,
    due_work: DueWork | None = None,
    hand_finished: HandFinished | None = None,
) -> None:
    """An app's hooks (from its ``ready()``): replaces the named hooks and adds a
    ``hand_finished`` handler, after checking every one against its hook's Protocol and that
    no group of ``TOGETHER`` is given in part. Raises ``HookMismatch`` (nothing registered)."""
    # (first: ``locals()`` holds exactly the parameters here)
    given: dict[str, Callable[..., object]] = {
        name: function for name, function in locals().items() if function is not None
    }
    for group in TOGETHER:
        missing = group - given.keys()
        if missing and missing != group:
            raise HookMismatch(
                f"table hooks {', '.join(sorted(group))} are registered together: "
                f"{', '.join(sorted(missing))} missing"
            )
    for name, function in given.items():
        hook_check(name=name, function=function)
    for name, function in given.items():
        if name != "hand_finished":
            setattr(hooks, name, function)
    if hand_finished is not None:
        hooks.hand_finished_handlers = (*hooks.hand_finished_handlers, hand_finished)


def hook_check(*, name: str, function: Callable[..., object]) -> None:
    """Raise ``HookMismatch`` unless ``function`` takes exactly what hook ``name`` is called
    with: every argument games passes (positional ones in order, keyword ones by name), no
    other argument without a default, and ``async`` where the hook is awaited."""
    wanted = inspect.signature(_PROTOCOLS[name].__call__)
    expected = list(wanted.parameters.values())[1:]  # without the Protocol's ``self``
    shown = f"({', '.join(str(p) for p in expected)})"
    label = getattr(function, "__qualname__", repr(function))
    label = f"{getattr(function, '__module__', '?')}.{label}"
    try:
        actual = inspect.signature(function)
    except (TypeError, ValueError) as error:
        raise HookMismatch(f"table hook {name!r}: {label} has no signature") from error
    problem = _mismatch(expected, list(actual.parameters.values()))
    awaited = inspect.iscoroutinefunction(_PROTOCOLS[name].__call__)
    if problem is None and awaited != inspect.iscoroutinefunction(function):
        problem = "must be async" if awaited else "must not be async"
    if problem is not None:
        raise HookMismatch(
            f"table hook {name!r} is called as {shown}, but {label}{actual} {problem}"
        )


def _mismatch(expected: list[inspect.Parameter], actual: list[inspect.Parameter]) -> str | None:
    """What keeps a function with parameters ``actual`` from being called as ``expected``."""
    positional_kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    passed_by_position = [p for p in expected if p.kind in positional_kinds]
    passed_by_name = {p.name for p in expected if p.kind == inspect.Parameter.KEYWORD_ONLY}
    takes_more_positions = any(p.kind == inspect.Parameter.VAR_POSITIONAL for p in actual)
    takes_more_names = any(p.kind == inspect.Parameter.VAR_KEYWORD for p in actual)
    positions = [p for p in actual if p.kind in positional_kinds]
    if len(positions) < len(passed_by_position) and not takes_more_positions:
        return f"takes {len(positions)} positional arguments, not {len(passed_by_position)}"
    by_position = {p.name for p in positions[: len(passed_by_position)]}
    by_name = {
        p.name
        for p in actual
        if p.kind == inspect.Parameter.KEYWORD_ONLY
        or (p.kind == inspect.Parameter.POSITIONAL_OR_KEYWORD and p.name not in by_position)
    }
    unknown = sorted(passed_by_name - by_name)
    if unknown and not takes_more_names:
        return f"does not take {', '.join(unknown)}"
    unfilled = sorted(
        p.name
        for p in actual
        if p.default is inspect.Parameter.empty
        and p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
        and p.name not in by_position
        and p.name not in passed_by_name
    )
    if unfilled:
        return f"also requires {', '.join(unfilled)}"
    return None
