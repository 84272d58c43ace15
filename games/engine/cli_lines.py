"""The JSON-lines protocol shared by ``judge`` and ``moves`` (docs/rules.md §8.2, §8.3).

One request per input line, one answer per output line, in order; a line that cannot be
answered gets ``{"error": ...}`` and the command goes on with the next one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, TextIO

from games.engine.cards import parse_ranks
from games.engine.combos import Combo, reading_to_lead
from games.engine.errors import EngineError
from games.engine.variants import Variant, find_variant

Answer = dict[str, Any]


class BadRequest(EngineError):
    """A request that is not shaped as §8.2 / §8.3 say."""


def request_variant(request: Any) -> Variant:
    """The variant (with its rule options) a request names."""
    if not isinstance(request, Mapping):
        raise BadRequest("a request must be a JSON object")
    variant_key = request.get("variant")
    if not isinstance(variant_key, str):
        raise BadRequest('"variant" must be a string')
    options = request.get("options")
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise BadRequest('"options" must be an object')
    return find_variant(variant_key, **options)


def request_notation(request: Mapping[str, Any], name: str) -> str:
    """A required card-notation field."""
    text = request.get(name)
    if not isinstance(text, str):
        raise BadRequest(f'"{name}" must be a card notation string')
    return text


def request_top(request: Mapping[str, Any], variant: Variant) -> Combo | None:
    """The play to beat, read as it was led; None when ``prev`` is null, absent or blank."""
    prev = request.get("prev")
    if prev is not None and not isinstance(prev, str):
        raise BadRequest('"prev" must be a card notation string or null')
    if not prev or not prev.strip():
        return None
    top = reading_to_lead(variant, parse_ranks(prev))
    if top is None:
        raise BadRequest(f"prev {prev!r} is no combination of {variant.key}")
    return top


def answer_line(answer: Callable[[Any], Answer], line: str) -> Answer:
    """One input line to one answer; never raises on bad input."""
    try:
        request = json.loads(line)
    except ValueError as exc:
        return {"error": f"not a JSON line: {exc}"}
    try:
        return answer(request)
    except (EngineError, TypeError) as exc:
        return {"error": str(exc)}


def answer_lines(answer: Callable[[Any], Answer], stdin: TextIO, stdout: TextIO) -> int:
    for line in stdin:
        stdout.write(json.dumps(answer_line(answer, line), ensure_ascii=False) + "\n")
        stdout.flush()
    return 0
