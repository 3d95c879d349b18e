"""Subtask 3, wsd, in the app: four candidate cards; the rest is the choice family's
(annotation.subtasks.choice).

The parts annotation.subtasks asks for, by name; the others take their defaults."""

from django.utils.translation import gettext_lazy as _

from annotation.subtasks.choice import choice_differences as differences
from annotation.subtasks.choice import demo_slip
from annotation.subtasks.wsd.widget import WIDGET

__all__ = ["BREAKDOWN_TEMPLATE", "demo_slip", "differences", "GUIDELINE_TEMPLATE", "SCORE_NAME", "WIDGET"]

GUIDELINE_TEMPLATE = "annotation/guidelines/wsd.html"
BREAKDOWN_TEMPLATE = "annotation/organizer/breakdowns/choice.html"

# The main score, named on the report's pages, plots and downloads.
SCORE_NAME = _("macro-F1")
