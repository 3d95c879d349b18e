"""Checks beyond the JSON Schemas: of input records and of answers against their item.

Each check takes a record (or answer) that already satisfies its schema and returns
``Problem``s without file or line; the caller locates them.
"""

from __future__ import annotations

import re

from scoring.discourse import PASSAGE, TREE_MESSAGES, tree_problems
from scoring.problems import Problem

COMMA_MARKER = re.compile(r"\[(\d+)\]")
NUMERAL_TARGET = re.compile(r"\[\[(\d+)\]\]")
WSD_OPEN, WSD_CLOSE = "[[TARGET]]", "[[/TARGET]]"
COREFERENCE_LABELS = ("T", "A", "B", "C", "D")
CANDIDATE_LABELS = ("A", "B", "C", "D")


# Input records -------------------------------------------------------------------------

def comma_markers(sentence: str) -> list[int]:
    """The marker numbers of a commas sentence, in text order."""
    return [int(number) for number in COMMA_MARKER.findall(sentence)]


def check_commas_input(record: dict) -> list[Problem]:
    markers = comma_markers(record["sentence_with_positions"])
    field = "sentence_with_positions"
    if not markers:
        return [Problem(field, "no position markers [1]..[n]", "no_markers")]
    if markers != list(range(1, len(markers) + 1)):
        shown = " ".join(f"[{number}]" for number in markers)
        return [Problem(field, f"markers must be [1]..[{len(markers)}], consecutive from 1, each once; found {shown}", "bad_markers")]
    return []


def check_numerals_input(record: dict) -> list[Problem]:
    sentence = record["sentence"]
    targets = NUMERAL_TARGET.findall(sentence)
    if len(targets) != 1:
        return [Problem("sentence", f"expected exactly one target [[digits]], found {len(targets)}", "bad_target")]
    if sentence.count("[[") != 1 or sentence.count("]]") != 1:
        return [Problem("sentence", "a [[...]] other than the one [[digits]] target", "bad_target")]
    return []


def _wsd_marker_problem(field: str, text: str) -> Problem | None:
    opened, closed = text.count(WSD_OPEN), text.count(WSD_CLOSE)
    if opened != 1 or closed != 1:
        return Problem(field, f"expected [[TARGET]]...[[/TARGET]] exactly once, found {opened} [[TARGET]] and {closed} [[/TARGET]]", "bad_target")
    start, end = text.index(WSD_OPEN) + len(WSD_OPEN), text.index(WSD_CLOSE)
    if end <= start or not text[start:end].strip():
        return Problem(field, "[[TARGET]]...[[/TARGET]] must enclose a word, in that order", "bad_target")
    return None


def check_wsd_input(record: dict) -> list[Problem]:
    texts = [("reference_sentence", record["reference_sentence"])]
    texts += [(f"candidates.{label}", record["candidates"][label]) for label in CANDIDATE_LABELS]
    return [problem for field, text in texts if (problem := _wsd_marker_problem(field, text))]


def _mention(context: str, label: str) -> tuple[str | None, str | None]:
    """(the text inside [label]..[/label], or None; an error message, or None)."""
    opening, closing = f"[{label}]", f"[/{label}]"
    opened, closed = context.count(opening), context.count(closing)
    if opened != 1 or closed != 1:
        return None, f"expected {opening}...{closing} exactly once, found {opened} {opening} and {closed} {closing}"
    start, end = context.index(opening) + len(opening), context.index(closing)
    if end < start:
        return None, f"{closing} comes before {opening}"
    return context[start:end], None


def check_coreference_input(record: dict) -> list[Problem]:
    problems = []
    context, candidates = record["context"], record["candidates"]
    for label in COREFERENCE_LABELS:
        text, error = _mention(context, label)
        if error:
            problems.append(Problem("context", error, "bad_mention"))
        elif label != "T" and text != candidates[label]:
            problems.append(Problem(f"candidates.{label}", f"differs from the text marked [{label}]...[/{label}] in the context ({text!r})", "candidate_mismatch"))
    return problems


def check_discourse_input(record: dict) -> list[Problem]:
    problems = []
    seen: set[str] = set()
    for index, unit in enumerate(record["discourse_units"]):
        du_id = unit["du_id"]
        if du_id in seen:
            problems.append(Problem(f"discourse_units[{index}].du_id", f"du_id {du_id!r} is used twice", "duplicate_du"))
        seen.add(du_id)
    return problems


def check_no_input(record: dict) -> list[Problem]:
    """morphosyntax: the schema says it all."""
    return []


# Answers (and gold lines) against their item ----------------------------------------------
# ``item`` is None when no input is at hand (scoring without inputs): then only the
# answer's own consistency is checked.

def check_morphosyntax_answer(answer: dict, item: dict | None) -> list[Problem]:
    correction = answer["corrected_sentence"].strip()
    if answer["answer"] == "POPRAWNE" and correction:
        return [Problem("corrected_sentence", "must be empty for POPRAWNE", "correction_for_correct")]
    if answer["answer"] == "NIEPOPRAWNE" and not correction:
        return [Problem("corrected_sentence", "must hold the full corrected sentence for NIEPOPRAWNE", "missing_correction")]
    return []


def check_numerals_answer(answer: dict, item: dict | None) -> list[Problem]:
    written = answer.get("answer")
    if isinstance(written, str) and not written.strip():
        return [Problem("answer", "must not be blank", "blank")]
    return []


def check_label_answer(answer: dict, item: dict | None) -> list[Problem]:
    """wsd and coreference: the schema's A-D enum says it all."""
    return []


def check_discourse_answer(answer: dict, item: dict | None) -> list[Problem]:
    units = answer["discourse_units"]
    if item is None:
        du_ids = list(dict.fromkeys(unit["du_id"] for unit in units))
    else:
        du_ids = [unit["du_id"] for unit in item["discourse_units"]]
    found = tree_problems(du_ids, units)
    index_of: dict[str, int] = {}
    for index, unit in enumerate(units):
        index_of.setdefault(unit["du_id"], index)
    problems = []
    for du_id, codes in found.items():
        field = "discourse_units" if du_id == PASSAGE or du_id not in index_of else f"discourse_units[{index_of[du_id]}]"
        for code in codes:
            message = TREE_MESSAGES[code] if du_id == PASSAGE else f"DU {du_id}: {TREE_MESSAGES[code]}"
            problems.append(Problem(field, message, code))
    return problems


def check_commas_answer(answer: dict, item: dict | None) -> list[Problem]:
    problems = []
    for field in ("commas", "optional"):
        indices = answer[field]
        if indices != sorted(set(indices)):
            problems.append(Problem(field, "indices must be ascending without duplicates", "unsorted"))
    both = sorted(set(answer["commas"]) & set(answer["optional"]))
    if both:
        problems.append(Problem("optional", f"positions {both} are also in commas", "in_both"))
    if item is not None:
        count = len(comma_markers(item["sentence_with_positions"]))
        for field in ("commas", "optional"):
            unknown = [index for index in answer[field] if index > count]
            if unknown:
                problems.append(Problem(field, f"positions {unknown} are not markers of the item (it has [1]..[{count}])", "unknown_marker"))
    return problems
