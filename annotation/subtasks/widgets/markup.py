"""Item text with markers turned into highlighting, safely.

The text of an item is escaped FIRST; markers are found in the escaped text and only then
replaced by markup. Markers are written with brackets, slashes, letters and digits, none of
which escaping changes, so they survive it, while anything else an item holds (<script>,
&, quotes, tags) stays text. A pattern used here must therefore match only such characters
outside its `body` group.

A pattern may have a named group `body` (the marked text): the body is marked up again
with the same pattern, so properly nested markers ([A]... [T]...[/T] ...[/A]) nest in HTML.
A marker without its partner is left as visible text rather than guessed at.
"""

import re
from collections.abc import Callable, Mapping
from html import escape

from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe

# The patterns are the scorer's, each in its subtask's module (e.g. wsd's [[TARGET]]zamku[[/TARGET]]).


# (the match in the escaped text, its body already marked up or None) -> HTML
Renderer = Callable[[re.Match[str], SafeString | None], str]


def element(tag: str, inner: SafeString | str, attrs: Mapping[str, str] | None = None) -> SafeString:
    """<tag attrs>inner</tag>; attributes in name order (as Django's flatatt writes them),
    their values escaped; `inner` is escaped unless safe. Written out rather than with
    format_html and flatatt, which took most of the time of marking an item's text up."""
    attributes = "".join(f' {name}="{escape(value)}"' for name, value in sorted((attrs or {}).items()))
    return mark_safe(f"<{tag}{attributes}>{conditional_escape(inner)}</{tag}>")


def _replace(escaped: str, pattern: re.Pattern[str], render: Renderer) -> str:
    def replace(match: re.Match[str]) -> str:
        body = match.groupdict().get("body")
        inner = mark_safe(_replace(body, pattern, render)) if body is not None else None
        return str(render(match, inner))

    return pattern.sub(replace, escaped)


def mark_up(text: str, pattern: re.Pattern[str], render: Renderer) -> SafeString:
    """The item text escaped, with every match of `pattern` replaced by `render(...)`."""
    return mark_safe(_replace(str(conditional_escape(text)), pattern, render))


def highlight(text: str, pattern: re.Pattern[str], tag: str = "mark", css_class: str = "target") -> SafeString:
    """The common case: each marked body becomes <mark class="target">body</mark>."""
    return mark_up(text, pattern, lambda _match, inner: element(tag, inner or "", {"class": css_class}))
