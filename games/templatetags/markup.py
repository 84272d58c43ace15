"""What the table's regions written by Python share (the tags of games/templatetags/): the
escaping of what they write, a page's CSRF input, a table's URLs, and their words, translated
and escaped, made once per process and language."""

from __future__ import annotations

import functools
import html
from collections.abc import Callable
from typing import Any, TypeVar

from django.urls import get_script_prefix, reverse
from django.utils.translation import get_language

Words = TypeVar("Words")

# a region's root sent on its own: the htmx websocket extension swaps it in by its id
OOB = ' hx-swap-oob="true"'


def escape(value: Any) -> str:
    """``value`` as text in HTML: what ``django.utils.html.escape`` writes, without its check
    of every argument for a lazy translation (a push's regions escape some 130 values, and
    that check cost more than the escaping). A lazy text is translated here, in the active
    language, as the region is written."""
    return html.escape(str(value))


def csrf_input(csrf_token: Any) -> str:
    """What ``{% csrf_token %}`` writes for ``csrf_token``: nothing without one (a push has
    none to give; a page has it)."""
    if not csrf_token or csrf_token == "NOTPROVIDED":
        return ""
    return f'<input type="hidden" name="csrfmiddlewaretoken" value="{escape(csrf_token)}">'


def table_url(url_name: str, table_id: Any) -> str:
    """``{% url url_name table_id %}``, escaped."""
    return _table_url(url_name, table_id, get_script_prefix())


@functools.lru_cache(maxsize=1024)
def _table_url(url_name: str, table_id: Any, script_prefix: str) -> str:
    # a ``reverse`` takes some 25 µs, more than the rest of a region: a table's few URLs are
    # kept (``reverse`` writes the script prefix in, so it is part of the key)
    return escape(reverse(url_name, args=[table_id]))


def in_language(made: dict[str, Words], make: Callable[[], Words]) -> Words:
    """``make()`` for the active language, made once per process and language and kept in
    ``made``."""
    language = get_language()
    words = made.get(language)
    if words is None:
        words = made[language] = make()
    return words
