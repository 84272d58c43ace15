"""``{% include_cached "name" with a=b %}``: an include whose rendering is kept and reused while
everything the included template can read stays the same (games/screen/render_cache.py). For the
partials repeated in every push: the seat panels. The values given with ``with`` are
keyed whole, so give the partial only what it shows."""

from __future__ import annotations

from typing import Any

from django import template
from django.template.loader_tags import IncludeNode, do_include

from games.screen import render_cache

register = template.Library()


class CachedIncludeNode(IncludeNode):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # included template name -> the lookups keyed (None: not cacheable); a node belongs to
        # one compiled template, which the engine compiles again when its source changes
        self._names: dict[str, tuple[str, ...] | None] = {}

    def _keyed_names(self, context: Any, name: str) -> tuple[str, ...] | None:
        if name not in self._names:
            names = render_cache.template_names(context.template.engine.get_template(name))
            # what the include is given (``with card=c``) is keyed whole: one value, not a
            # lookup per field; pass it only what the partial shows
            given = tuple(self.extra_context)
            self._names[name] = (
                None if names is None else (*given, *render_cache.unbound(names, given))
            )
        return self._names[name]

    def render(self, context: Any) -> str:
        name = self.template.resolve(context)
        if not isinstance(name, str):
            return super().render(context)
        names = self._keyed_names(context, name)
        if names is None:
            return super().render(context)
        values = {key: var.resolve(context) for key, var in self.extra_context.items()}

        def get(key: str) -> Any:
            if key in values or self.isolated_context:
                return values.get(key)
            return context.get(key)

        language = context.get(render_cache.LANGUAGE_KEY)
        key = render_cache.memo_key(get, names, scope=name, language=language)
        return render_cache.cached(key, lambda: super(CachedIncludeNode, self).render(context))


@register.tag("include_cached")
def do_include_cached(parser: Any, token: Any) -> CachedIncludeNode:
    node = do_include(parser, token)
    return CachedIncludeNode(
        node.template, extra_context=node.extra_context, isolated_context=node.isolated_context
    )
