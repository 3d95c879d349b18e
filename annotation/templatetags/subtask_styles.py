"""``{% subtask_stylesheets %}``: a link to each subtask's own stylesheet, on every page.

A subtask's CSS is its file ``static/annotation/widgets/<key>.css`` (found by its name, as its
widget module is; a subtask without one has none), read after ``css/app.css``: its widget,
its differences on the adjudication and feedback pages, its summaries in "My answers" and its
guideline all draw with it. Rules shared by a family of subtasks sit in a file of their own
that each member's file imports (the choice cards: ``choice.css``)."""

from functools import cache

from django import template
from django.contrib.staticfiles import finders
from django.templatetags.static import static
from django.utils.html import format_html_join
from django.utils.safestring import SafeString

from scoring.subtasks import SUBTASKS

register = template.Library()


@cache
def _stylesheet_paths(keys: tuple[str, ...]) -> tuple[str, ...]:
    paths = (f"annotation/widgets/{key}.css" for key in keys)
    return tuple(path for path in paths if finders.find(path))


@register.simple_tag
def subtask_stylesheets() -> SafeString:
    return format_html_join(
        "\n  ", '<link rel="stylesheet" href="{}">', ((static(path),) for path in _stylesheet_paths(tuple(SUBTASKS)))
    )
