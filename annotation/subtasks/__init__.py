"""Everything the app knows of each subtask: the folder ``annotation/subtasks/<key>/``, found by
its key (a subtask without one gets every default).

The folder's ``__init__.py`` may define these parts; the module that asks for one holds its
default (the raw JSON widget shows how a default stands in for a whole part):

- ``WIDGET`` (``annotation.subtasks.widgets.widget_for``): the answer area of the item page;
  default the raw JSON form;
- ``differences(payload, answers, counted)`` (``annotation.subtasks.differences``): how an
  item's answers differ, for adjudication and training feedback; default each distinct answer
  and who gave it;
- ``answer_limits(answer, item)`` (``annotation.subtasks.limits``): the sizes of an answer
  derived from its item; default every string at most ``MAX_LABEL`` characters;
- ``rules(answer, payload)`` and ``caution(answer, payload)`` (``annotation.subtasks.rules``):
  what a person's submit is refused for or asked to confirm, each a problem made from the
  subtask's own ``MESSAGES`` table and parameters (``annotation.core.problems.problem_from``);
  default none;
- ``demo_slip(item, answer, rng)`` (``annotation.demo_answers``): a typical slip of a demo
  rater; default none (the rater gives the gold answer);
- ``GUIDELINE_TEMPLATE`` (the item page): the guidelines beside the item; default a page saying
  there are none beyond the organizer's instructions;
- ``BREAKDOWN_TEMPLATE`` (the report page): draws ``breakdown`` of one source; default every
  figure of the breakdown by its name;
- ``PAIR_AGREEMENT_TEXT`` (the agreement page): what a cell of the annotator-by-annotator table
  is; default the share of common items with equal answers (scoring's default ``pair_agreement``);
- ``SCORE_NAME`` (the report's pages, plots and downloads): the main score's name for people;
  default "main score" (annotation.results.labels).

Code shared by a family of subtasks sits in a module of its own beside the folders
(``annotation/subtasks/choice.py``: the four-way choices), so no subtask key is the name of a
module here. The folders' own modules are imported only through here or by each other.
"""

from __future__ import annotations

import importlib
from functools import cache
from types import ModuleType


@cache
def app_module(key: str) -> ModuleType | None:
    """The app's folder of subtask ``key`` as a module; None when it has none."""
    name = f"{__name__}.{key}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name != name:  # a missing dependency of an existing folder is a real error
            raise
        return None


def part(key: str, name: str, default: object) -> object:
    """Part ``name`` of subtask ``key``'s folder, ``default`` where it does not define it."""
    return getattr(app_module(key), name, default)
