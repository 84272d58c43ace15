"""Renderings of the table's partials, kept and reused while their inputs stay the same.

A push renders one table state for up to six audiences, and from one push to the next most of
what it renders is unchanged: the hands of the seats that did not act, the controls of the seats
still waiting, the seat panels nobody touched, every card face. A partial's output depends only
on the context values its template can read, so each rendering is keyed by those values (and
the language) and kept in a bounded, process-wide LRU. The names are read from the compiled
template, includes followed, with their whole lookup path (``status.deadline``, not all of
``status``), so a template edit that reads something else is keyed by it too. A template that
could read the whole context (a ``takes_context`` tag, an include of a computed name) or run
code of its own (a project's simple or inclusion tag, which may read the database) is never
cached.

The cache holds renderings only; the state is always read from the database, and a process
that starts cold renders everything once.
"""

from __future__ import annotations

import hashlib
import io
import pickle
import re
import sys
import threading
import weakref
from collections.abc import Callable, Container, Iterable, Sequence
from typing import Any

from cachetools import LRUCache
from django.db.models import Model
from django.template import Context
from django.utils.translation import get_language

# read by the {% csrf_token %} tag, not as a variable of the template
ALWAYS_KEYED = ("csrf_token",)
# What the kept renderings may take of a process's memory, their strings' sizes summed. Each is
# one partial's HTML, about 0.2–25 KB in memory (3.3 KB on average over qq5 hands): some
# 10,000 renderings, many times what 200 tables' last pushes reuse. Bounded by bytes, not by
# count, so that a process's memory levels off at the same figure whatever its tables render.
CACHE_BYTES = 32 * 2**20

_names_cache: weakref.WeakKeyDictionary[Any, tuple[str, ...] | None] = weakref.WeakKeyDictionary()
_names_lock = threading.Lock()
# the templates whose names this thread is collecting (an include of one of them is a cycle)
_expanding = threading.local()
# key -> rendering, the least recently used dropped past CACHE_BYTES of strings
_renderings: LRUCache[bytes, str] = LRUCache(maxsize=CACHE_BYTES, getsizeof=sys.getsizeof)
_renderings_lock = threading.Lock()
# A run of white space that holds a line break: the templates' indentation and the lines their
# tags leave empty. The table's partials have no preformatted text, so the browser shows any such
# run as one space (or nothing between blocks), as it shows one line break: some 5% of what a
# push sends, saved.
_LINE_BREAK_RUN = re.compile(r"\s*\n\s*")


PURE = "ddz_pure_tag"


def pure_tag(func: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a template tag whose output depends on its arguments and the active language only:
    a rendering that uses it can be kept under the key of what it reads (``template_names``
    collects the tag's arguments like any other lookup)."""
    setattr(func, PURE, True)
    return func


class _Unkeyable(Exception):
    pass


class _Unshareable(Exception):
    """A context value known by its identity only (a model instance): no key can stand for
    it, so the rendering is not kept."""


def _collect_names(obj: Any, names: set[str], seen: set[int]) -> None:
    from django.template import base as tbase
    from django.template.library import InclusionNode, SimpleNode
    from django.template.loader_tags import IncludeNode

    if id(obj) in seen or obj is None or isinstance(obj, str | int | float | bool | bytes):
        return
    seen.add(id(obj))
    if isinstance(obj, list | tuple | set | frozenset):
        for item in obj:
            _collect_names(item, names, seen)
        return
    if isinstance(obj, dict):
        for item in obj.values():
            _collect_names(item, names, seen)
        return
    if isinstance(obj, tbase.Variable):
        if obj.lookups:
            names.add(".".join(obj.lookups))
        return
    if isinstance(obj, tbase.Token):
        if obj.token_type == tbase.TokenType.VAR:
            names.add(obj.contents.split("|")[0].strip())
        return
    if isinstance(obj, tbase.Template):
        _collect_names(obj.nodelist, names, seen)
        return
    if isinstance(obj, IncludeNode):  # ours (include_cached) too
        target = obj.template
        literal = getattr(getattr(target, "var", None), "literal", None)
        if not isinstance(literal, str):
            literal = target.var if isinstance(getattr(target, "var", None), str) else None
        if not isinstance(literal, str):
            raise _Unkeyable("include of a computed name")
        from django.template.loader import get_template

        included = template_names(get_template(literal).template)
        if included is None:
            raise _Unkeyable(f"include of {literal}")
        # inside the include, its ``with`` names are its own (keyed by what they are given,
        # collected below); with ``only`` nothing else of the context reaches it
        if not obj.isolated_context:
            names.update(unbound(included, obj.extra_context))
    else:
        module = type(obj).__module__ or ""
        if not module.startswith(("django.template", "django.templatetags", "django.contrib")):
            if callable(obj) or module in ("builtins", "re", "enum"):  # filters, patterns, flags
                return
            raise _Unkeyable(f"{module}.{type(obj).__name__}")
        if getattr(obj, "takes_context", False):
            raise _Unkeyable(type(obj).__name__)
        if isinstance(obj, SimpleNode | InclusionNode) and not getattr(obj.func, PURE, False):
            # a project's tag runs code of its own: it may read what no context value shows
            raise _Unkeyable(f"tag {getattr(obj.func, '__name__', '?')}")
    fields = dict(getattr(obj, "__dict__", {}))
    for cls in type(obj).__mro__:
        for slot in getattr(cls, "__slots__", ()):
            if hasattr(obj, slot):
                fields[slot] = getattr(obj, slot)
    scope = _scope(obj)
    inner: set[str] = set()
    for key, value in fields.items():
        if key in ("origin", "source", "engine"):
            continue
        _collect_names(value, inner if scope and key in scope[0] else names, seen)
    if scope:
        names.update(unbound(inner, scope[1]))


def _scope(obj: Any) -> tuple[tuple[str, ...], set[str]] | None:
    """The parts of a tag that bind names of their own, and those names: a name read there
    comes from the tag, not from the context (a loop variable, a ``with`` value)."""
    from django.template.defaulttags import ForNode, WithNode
    from django.templatetags.i18n import BlockTranslateNode

    if isinstance(obj, ForNode):
        return ("nodelist_loop",), {*obj.loopvars, "forloop"}
    if isinstance(obj, WithNode):
        return ("nodelist",), set(obj.extra_context)
    if isinstance(obj, BlockTranslateNode):
        return ("singular", "plural"), {*obj.extra_context, *filter(None, [obj.countervar])}
    return None


def unbound(paths: Iterable[str], bound: Container[str]) -> tuple[str, ...]:
    """The ``paths`` (in their order) that do not start at one of the ``bound`` names."""
    return tuple(path for path in paths if path.split(".", 1)[0] not in bound)


def template_names(inner: Any) -> tuple[str, ...] | None:
    """The context lookups (dotted paths) a compiled template (``django.template.base.Template``)
    can make, or None when that is not knowable."""
    with _names_lock:
        if inner in _names_cache:
            return _names_cache[inner]
    # by source: a loader without a cache compiles a new template for every include
    origin = getattr(inner.origin, "name", None)
    expanding = _expanding.__dict__.setdefault("origins", set())
    if origin in expanding:
        return None  # it includes itself: what it reads depends on how deep it goes
    expanding.add(origin)
    names: set[str] = set(ALWAYS_KEYED)
    try:
        _collect_names(inner.nodelist, names, set())
        # a path under one that is keyed whole adds nothing to the key
        found: tuple[str, ...] | None = tuple(
            sorted(path for path in names if not _under_any(path, names))
        )
    except _Unkeyable:
        found = None
    finally:
        expanding.discard(origin)
    with _names_lock:
        _names_cache[inner] = found
    return found


def _under_any(path: str, names: set[str]) -> bool:
    parts = path.split(".")
    return any(".".join(parts[:i]) in names for i in range(1, len(parts)))


_MISSING = object()
# The context entry that names the rendering's language, read by every key of a push's many
# partials instead of asking Django each time (a slow lookup). Templates cannot read it: no
# template variable starts with an underscore.
LANGUAGE_KEY = "_memo_language"


def _step(value: Any, part: str) -> Any:
    """One step of a template lookup, in Django's order: key, attribute, list index."""
    try:
        return value[part]
    except (TypeError, AttributeError, KeyError, ValueError, IndexError):
        pass
    try:
        return getattr(value, part)
    except (TypeError, AttributeError):
        pass
    try:
        return value[int(part)]
    except (IndexError, ValueError, KeyError, TypeError, AttributeError):
        return _MISSING


_split: dict[str, tuple[str, ...]] = {}


def _parts(path: str) -> tuple[str, ...]:
    parts = _split.get(path)
    if parts is None:
        parts = _split[path] = tuple(path.split("."))
    return parts


def _path_value(get: Callable[[str], Any], path: str) -> Any:
    """What ``path`` reads, as a key part. A lookup that finds nothing renders the same
    whatever the object (Django's invalid value); one that finds a callable (which Django
    would call) keys by the whole top-level value instead."""
    first, *rest = _parts(path)
    value = get(first)
    for part in rest:
        if value is None:
            break
        # a dict holding the key is the common case: no exception to raise and catch
        step = value[part] if type(value) is dict and part in value else _step(value, part)
        if step is _MISSING:
            return ("missing",)
        if callable(step) and not isinstance(step, type):
            return ("whole", get(first))
        value = step
    return value


class _KeyPickler(pickle.Pickler):
    """Serialises a key's values by their content. Called back only for values that are not
    plain data (dicts, lists, strings, numbers ...): a model instance, or anything that would
    render as its address, has no content that stands for it."""

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, Model):
            raise _Unshareable
        cls = type(obj)
        if cls.__repr__ is object.__repr__ and cls.__str__ is object.__str__:
            raise _Unshareable
        return NotImplemented


def memo_key(
    get: Callable[[str], Any], names: Sequence[str], *, scope: str, language: str | None = None
) -> bytes | None:
    """The key of a rendering of ``scope`` (a template name): the language and the value of
    every lookup its template can make. None when a value is known by identity only (a model
    instance itself, not only its fields; an object that would render as its address) or has
    no serial form."""
    if language is None:
        language = get_language()
    tops: dict[str, Any] = {}

    def get_once(name: str) -> Any:
        if name not in tops:
            tops[name] = get(name)
        return tops[name]

    buffer = io.BytesIO()
    try:
        parts = [_path_value(get_once, path) for path in names]
        _KeyPickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump((scope, language, names, parts))
    except (_Unshareable, pickle.PicklingError, TypeError, AttributeError):
        return None
    return hashlib.blake2b(buffer.getbuffer(), digest_size=20).digest()


def cached(key: bytes | None, render: Callable[[], str]) -> str:
    """``render()``, or the rendering kept under ``key``."""
    if key is None:
        return render()
    with _renderings_lock:
        html = _renderings.get(key)
    if html is not None:
        return html
    html = render()
    with _renderings_lock:
        _renderings[key] = html
    return html


def template_key(template: Any, context: dict[str, Any], *, name: str) -> bytes | None:
    """The memo key of ``template`` (a backend template) rendered with ``context``: equal keys,
    equal renderings. None when there is no key."""
    names = template_names(template.template)
    if names is None:
        return None
    return memo_key(context.get, names, scope=name, language=context.get(LANGUAGE_KEY))


def render_template(template: Any, context: dict[str, Any], *, name: str, keep: bool = True) -> str:
    """``template.render(context)`` (a backend template), reusing an identical rendering.
    The context may name its language under ``LANGUAGE_KEY`` (the active one). ``keep``:
    False renders without a key, for a partial whose renderings are hardly ever met again
    (its key would cost more than it saves, and its renderings would crowd out the others)."""
    if not keep:
        return _render(template, context)
    return cached(template_key(template, context, name=name), lambda: _render(template, context))


def squeezed(html: str) -> str:
    """``html`` with each run of white space that holds a line break made one line break: what
    the browser shows of it stays the same."""
    return _LINE_BREAK_RUN.sub("\n", html)


def _render(template: Any, context: dict[str, Any]) -> str:
    # Numbers print as str() prints them: with thousands grouping off (the settings' default)
    # that is what localising them gives, after a format lookup per number. A partial that
    # wants grouping asks for it (``intcomma``).
    engine = template.backend.engine
    context = Context(context, autoescape=engine.autoescape, use_l10n=False)
    return squeezed(template.template.render(context))


def footprint() -> tuple[int, int]:
    """The renderings kept and their size in bytes (the strings alone, not the keys), at most
    ``CACHE_BYTES``."""
    with _renderings_lock:
        return len(_renderings), int(_renderings.currsize)


def clear() -> None:
    with _renderings_lock:
        _renderings.clear()
