"""Subtask 2, numerals, in the app: the sentence and a text field checked against Morfeusz 2, the
forms written for adjudication, the answer's length, no digits, a caution for unknown words, and
a demo rater's slips.

The parts annotation.subtasks asks for, by name; the others take their defaults."""

from django.utils.translation import gettext_lazy as _

from annotation.subtasks.numerals.answers import answer_limits, caution, rules
from annotation.subtasks.numerals.demo import demo_slip
from annotation.subtasks.numerals.differences import differences
from annotation.subtasks.numerals.widget import WIDGET

__all__ = ["answer_limits", "BREAKDOWN_TEMPLATE", "caution", "demo_slip", "differences", "GUIDELINE_TEMPLATE", "rules", "SCORE_NAME", "WIDGET"]

GUIDELINE_TEMPLATE = "annotation/guidelines/numerals.html"
BREAKDOWN_TEMPLATE = "annotation/organizer/breakdowns/numerals.html"

# The main score, named on the report's pages, plots and downloads.
SCORE_NAME = _("exact match")
