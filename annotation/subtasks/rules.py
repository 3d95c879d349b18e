"""Rules that guide a person answering, beyond what the benchmark states.

The benchmark's own rules (shapes, labels, markers, tree validity) are the scorer's
(``scoring.subtasks.<key>``); a model's submission that breaks only a rule here is valid,
and simply wrong. A person saving such an answer has most likely slipped, so the save
service (``annotation.annotate.services.save_answer``, for the item page and the API
alike) refuses it with these messages. One function per subtask, named by its key; a
subtask without one has no such rules.

A caution (``rule_caution``) is softer: the first submit is refused with its message, the
same submit confirmed by the annotator is saved, and the caution's metadata is kept with
the annotation (numerals: words Morfeusz 2 does not know as numeral forms).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from annotation.subtasks.numeral_forms import check_words
from scoring.subtasks import morphosyntax as morphosyntax_subtask
from scoring.subtasks import numerals as numerals_subtask

# (answer fields, item payload) -> refusals, as translated messages
Rule = Callable[[dict, dict], list[str]]


_DIGIT = re.compile(r"\d")


def numerals(answer: dict, payload: dict) -> list[str]:
    """The number is written out in words: no digits, and not the target's [[ ]] brackets."""
    value = answer.get("answer")
    if not isinstance(value, str):
        return []
    refusals = []
    if _DIGIT.search(value):
        refusals.append(_("Write the number in words: the answer may not contain digits."))
    if numerals_subtask.TARGET_OPEN in value or numerals_subtask.TARGET_CLOSE in value:
        refusals.append(_("Write only the numeral, without the [[ ]] brackets."))
    return refusals


def morphosyntax(answer: dict, payload: dict) -> list[str]:
    """A correction differs from the sentence (after the scorer's normalisation)."""
    correction = answer.get("corrected_sentence")
    if answer.get("answer") != morphosyntax_subtask.INCORRECT or not isinstance(correction, str):
        return []
    normalise = morphosyntax_subtask.normalise
    original = normalise({"corrected_sentence": str(payload.get("sentence", ""))})["corrected_sentence"]
    if normalise({"corrected_sentence": correction})["corrected_sentence"] == original:
        return [_("The correction is the same as the original sentence: correct it, or choose POPRAWNE.")]
    return []


def no_rules(answer: dict, payload: dict) -> list[str]:
    return []


RULES: dict[str, Rule] = {"numerals": numerals, "morphosyntax": morphosyntax}


def rule_refusals(subtask: str, answer: dict, payload: dict) -> list[str]:
    """What the subtask's rules for people refuse in ``answer`` to the item ``payload``."""
    return RULES.get(subtask, no_rules)(answer, payload)


@dataclass(frozen=True)
class Caution:
    """A submit the annotator is asked to confirm; once confirmed it is saved, and
    `metadata` is kept with the annotation (annotation.metadata) to say so."""

    message: str
    metadata: dict


def numerals_caution(answer: dict, payload: dict) -> Caution | None:
    """Words of the answer Morfeusz 2 does not know as numeral forms (a typo, or a form
    missing from the dictionary): asked once, then saved as confirmed."""
    value = answer.get("answer")
    if not isinstance(value, str):
        return None
    unknown = [word.text for word in check_words(value) if not word.is_numeral]
    if not unknown:
        return None
    words = ", ".join(f"„{word}”" for word in unknown)
    message = ngettext(
        "The dictionary does not know %(words)s as a numeral form. Check the spelling; if the form is right, "
        "press Enter again (or “Save anyway”).",
        "The dictionary does not know %(words)s as numeral forms. Check the spelling; if the forms are right, "
        "press Enter again (or “Save anyway”).",
        len(unknown),
    ) % {"words": words}
    return Caution(message, {"confirmed_unknown_words": unknown})


CAUTIONS: dict[str, Callable[[dict, dict], Caution | None]] = {"numerals": numerals_caution}


def rule_caution(subtask: str, answer: dict, payload: dict) -> Caution | None:
    """What the subtask asks a person to confirm before ``answer`` is submitted (None: nothing)."""
    caution = CAUTIONS.get(subtask)
    return caution(answer, payload) if caution else None
