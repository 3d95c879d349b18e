"""Subtask 5, discourse, in the app: the tree editor, the units whose attachment differs and each
answer's tree for adjudication, the answer's size, a demo rater's slips, and agreement between
two annotators as LAS.

The parts annotation.subtasks asks for, by name; the others take their defaults."""

from django.utils.translation import gettext_lazy as _

from annotation.subtasks.discourse.answers import answer_limits
from annotation.subtasks.discourse.demo import demo_slip
from annotation.subtasks.discourse.differences import differences
from annotation.subtasks.discourse.widget import WIDGET

__all__ = ["answer_limits", "BREAKDOWN_TEMPLATE", "demo_slip", "differences", "GUIDELINE_TEMPLATE", "PAIR_AGREEMENT_TEXT", "SCORE_NAME", "WIDGET"]

GUIDELINE_TEMPLATE = "annotation/guidelines/discourse.html"
BREAKDOWN_TEMPLATE = "annotation/organizer/breakdowns/discourse.html"

PAIR_AGREEMENT_TEXT = _(
    "Each cell: LAS of the row's annotator with the column's annotator as reference, on the passages both answered "
    "(their number in brackets)."
)

# The main score, named on the report's pages, plots and downloads.
SCORE_NAME = _("LAS (labelled attachment score)")
