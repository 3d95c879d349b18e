"""Subtask 1, morphosyntax, in the app: the verdict buttons and correction editor, a word diff of
the corrections for adjudication, the correction's length, the rule that a correction corrects
something, and a demo rater's slips.

The parts annotation.subtasks asks for, by name; the others take their defaults."""

from django.utils.translation import gettext_lazy as _

from annotation.subtasks.morphosyntax.answers import answer_limits, rules
from annotation.subtasks.morphosyntax.demo import demo_slip
from annotation.subtasks.morphosyntax.differences import differences
from annotation.subtasks.morphosyntax.widget import WIDGET

__all__ = ["answer_limits", "BREAKDOWN_TEMPLATE", "demo_slip", "differences", "GUIDELINE_TEMPLATE", "rules", "SCORE_NAME", "WIDGET"]

GUIDELINE_TEMPLATE = "annotation/guidelines/morphosyntax.html"
BREAKDOWN_TEMPLATE = "annotation/organizer/breakdowns/morphosyntax.html"

# The main score, named on the report's pages, plots and downloads.
SCORE_NAME = _("full-task accuracy")
