"""The rendering memo (games/screen/render_cache.py): keyed by exactly what a template can read."""

from __future__ import annotations

import sys

from cachetools import LRUCache
from django.template import engines

from games.models import Room
from games.screen import render_cache


def _names(source: str) -> tuple[str, ...] | None:
    return render_cache.template_names(engines["django"].from_string(source).template)


def _key(source: str, context: dict) -> bytes | None:
    names = _names(source)
    assert names is not None
    return render_cache.memo_key(context.get, names, scope="t", language="en")


def test_names_are_lookup_paths_and_a_whole_value_covers_its_fields():
    names = _names("{{ a.b }}{% if c %}{{ c.d }}{% endif %}{% for x in e %}{{ x.y }}{% endfor %}")
    assert {"a.b", "c", "e"} <= set(names)
    assert "c.d" not in names


def test_the_key_follows_only_what_is_read():
    source = "{{ status.deadline }}"
    one = _key(source, {"status": {"deadline": "t1", "now": "a"}})
    assert one == _key(source, {"status": {"deadline": "t1", "now": "b"}})
    assert one != _key(source, {"status": {"deadline": "t2", "now": "a"}})
    # a lookup that finds nothing renders the same whatever holds it
    assert _key("{{ s.gone }}", {"s": {"x": 1}}) == _key("{{ s.gone }}", {"s": {"y": 2}})


def test_values_known_by_identity_only_are_never_kept():
    assert _key("{% if room %}x{% endif %}", {"room": Room(name="r")}) is None
    assert _key("{{ room.name }}", {"room": Room(name="r")}) is not None  # a field is data
    assert _key("{{ thing }}", {"thing": object()}) is None


def test_a_template_that_may_read_anything_is_not_keyed():
    assert _names("{% include name %}") is None
    # a tag of the project's own may read the database (the session region's does)
    assert _names("{% load session_panels %}{% session_panel table user None as panel %}") is None
    assert _names("{% load i18n %}{% translate 'Pass' %}{{ x }}") == ("csrf_token", "x")


def test_a_pure_tag_is_keyed_by_its_arguments():
    names = _names('{% load cards %}{% card top.card "sm" %}{% cards row size %}')
    assert names is not None
    assert {"top.card", "row", "size"} <= set(names)
    source = "{% load cards %}{% card c %}"
    face = {"code": "9h", "red": True, "joker": False, "big": False}
    one = _key(source, {"c": {**face, "rank": "9", "suit": "♥", "label": "9 of hearts"}})
    assert one != _key(source, {"c": {**face, "rank": "9", "suit": "♥", "label": "红桃9"}})


def test_cached_renders_once_per_key():
    render_cache.clear()
    calls = []

    def render() -> str:
        calls.append(1)
        return "html"

    assert render_cache.cached(b"k", render) == render_cache.cached(b"k", render) == "html"
    assert render_cache.cached(None, render) == "html"
    assert len(calls) == 2


def test_the_kept_renderings_stay_within_their_bytes_the_least_recently_used_going_first(
    monkeypatch,
):
    render_cache.clear()
    page = "x" * 1000
    kept = LRUCache(maxsize=3 * sys.getsizeof(page), getsizeof=sys.getsizeof)
    monkeypatch.setattr(render_cache, "_renderings", kept)
    for key in (b"a", b"b", b"c"):
        render_cache.cached(key, lambda: page)
    render_cache.cached(b"a", lambda: "a fresh rendering")  # used again: kept
    render_cache.cached(b"d", lambda: page)
    kept, size = render_cache.footprint()
    assert (kept, size) == (3, 3 * sys.getsizeof(page))
    assert render_cache.cached(b"a", lambda: "a fresh rendering") == page
    assert render_cache.cached(b"b", lambda: "b again") == "b again"  # evicted, rendered anew
    render_cache.clear()
    assert render_cache.footprint() == (0, 0)


def test_a_template_that_includes_itself_is_not_keyed(settings):
    """What a recursive include reads depends on how deep it goes; collecting its names must
    end, and give none."""
    tree = "{{ node.name }}{% for node in node.children %}{% include 'tree.html' %}{% endfor %}"
    settings.TEMPLATES = [
        {
            "BACKEND": "django.template.backends.django.DjangoTemplates",
            "OPTIONS": {
                "loaders": [("django.template.loaders.locmem.Loader", {"tree.html": tree})]
            },
        }
    ]
    from django.template.loader import get_template

    assert render_cache.template_names(get_template("tree.html").template) is None


def test_a_rendering_keeps_one_line_break_of_each_indented_run():
    html = '<div id="a">\n  \n    <span>x</span> <b>y</b>\n\t</div>\n'
    assert render_cache.squeezed(html) == '<div id="a">\n<span>x</span> <b>y</b>\n</div>\n'
