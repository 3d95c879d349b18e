"""Subtask 6, commas, in the app: the sentence with a button per position, the positions where
answers differ for adjudication, the positions an answer may name, and a demo rater's slips.

The parts annotation.subtasks asks for, by name; the others take their defaults."""

from django.utils.translation import gettext_lazy as _

from annotation.subtasks.commas.answers import answer_limits
from annotation.subtasks.commas.demo import demo_slip
from annotation.subtasks.commas.differences import differences
from annotation.subtasks.commas.widget import WIDGET

__all__ = ["answer_limits", "BREAKDOWN_TEMPLATE", "demo_slip", "differences", "GUIDELINE_TEMPLATE", "SCORE_NAME", "WIDGET"]

GUIDELINE_TEMPLATE = "annotation/guidelines/commas.html"
BREAKDOWN_TEMPLATE = "annotation/organizer/breakdowns/commas.html"

# The main score, named on the report's pages, plots and downloads.
SCORE_NAME = _("exact-set accuracy")
