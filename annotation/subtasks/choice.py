"""What the four-way choice subtasks (wsd, coreference) share in the app: the choice cards,
how their answers differ (the candidates chosen and how many chose each), and a demo rater's slip."""

from __future__ import annotations

import random

from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext

from annotation.subtasks.differences import Differences, LabelledAnswers, tally
from scoring.choice import LABELS

# The attributes of a choice card (a candidate): a radio the letter, the digit or a click
# chooses. Built here, not by a template included once per card: the include took as long as
# the rest of the widget.

ATTRIBUTES = (
    'role="radio" data-choice="{}" data-codes="Key{} Digit{} Numpad{}" data-label="{}" aria-checked="{}" '
    'tabindex="{}" data-focus-hint="{}"\n'
)


def card_attributes(letter: str, number: int, choice: str | None) -> SafeString:
    """The card of ``letter`` (typed also as ``number``); ``choice`` is the chosen letter (None:
    none yet, then the first card takes the focus)."""
    chosen = choice == letter
    return format_html(
        ATTRIBUTES, letter, letter, number, number, gettext("Choose %(letter)s") % {"letter": letter},
        "true" if chosen else "false", "0" if chosen or (choice is None and number == 1) else "-1",
        gettext("Enter: choose"),
    )


def choice_differences(payload: dict, answers: LabelledAnswers, counted: int) -> Differences:
    letters = tuple(sorted((payload.get("candidates") or {}).keys())) or LABELS
    chosen = [(label, str(answer.get("answer", ""))) for label, answer in answers]
    return Differences(
        template="annotation/adjudicate/differences/choice.html",
        summaries=[value for _, value in chosen],
        details={"tallies": tally(chosen, counted, letters)},
    )


def demo_slip(item: dict, answer: dict, rng: random.Random) -> dict:
    """Another label than the gold's."""
    return {"answer": rng.choice([label for label in LABELS if label != answer["answer"]])}
