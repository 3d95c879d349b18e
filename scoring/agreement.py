"""Agreement between annotators and their majority answers: what `agreement` and `majority` run.

One submission file = one annotator. ``read_answers`` reads the files as the scorer reads
them, ``agreement_figures`` and ``majority_answer`` apply the subtask's figures and majority
rule, both defined in the subtask's module (statistics: scoring.reliability).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from scoring.jsonl import Line, read_jsonl
from scoring.problems import Problem
from scoring.reliability import AnswerTable, Figures
from scoring.subtasks import get_subtask
from scoring.validation import check_answer_lines, check_inputs, sorted_by_line, without_id


@dataclass
class ReadAnswers:
    """What reading the files gave: the table (None after an error), the errors that stop
    the command (exit 1), and the faults that make single answers "not given"."""

    table: AnswerTable | None
    errors: list[Problem]
    faults: list[Problem]


# Problems of a line that make the file unusable, rather than one answer not given.
_FILE_ERROR_CODES = frozenset({"encoding", "json", "not_object", "duplicate_id", "unknown_id"})


def read_answers(key: str, inputs_data: bytes, inputs_name: str, files: Sequence[tuple[str, bytes]]) -> ReadAnswers:
    """Read an inputs file and several submission files of subtask ``key``.

    Errors: any fault of the inputs file; in a submission file, an unreadable JSON line, a
    line without a string id, an id twice (on the line of the repeat), an id not in the
    inputs. Any other fault of a line (what ``validate --partial --inputs`` reports for it)
    makes that answer not given and is listed in ``faults``. Valid answers are normalised.
    """
    items, errors = check_inputs(key, inputs_data, inputs_name)
    if errors:
        return ReadAnswers(None, errors, [])
    return answer_lines_table(key, items, [(name, *read_jsonl(data, name)) for name, data in files])


def answer_lines_table(key: str, items: list[dict],
                       files: Sequence[tuple[str, list[Line], list[Problem]]]) -> ReadAnswers:
    """``read_answers`` for inputs already checked and submission files already read as JSON
    Lines (name, lines, the problems of reading them)."""
    subtask = get_subtask(key)
    errors: list[Problem] = []
    faults: list[Problem] = []
    tables: list[dict[str, dict]] = []
    for name, lines, read_problems in files:
        _answered, found = check_answer_lines(subtask, "output", lines, name, items)
        without_string_id = {line.number for line in lines if not isinstance(line.record.get("id"), str)}
        faulty_lines = set()
        for problem in sorted_by_line(read_problems + found):
            faulty_lines.add(problem.line)
            fatal = problem.code in _FILE_ERROR_CODES or (problem.line in without_string_id and problem.field == "id")
            (errors if fatal else faults).append(problem)
        tables.append({
            line.record["id"]: subtask.normalise(without_id(line.record))
            for line in lines
            if line.number not in faulty_lines
        })
    if errors:
        return ReadAnswers(None, errors, faults)
    return ReadAnswers(AnswerTable(items, tables), [], faults)


# The figures ---------------------------------------------------------------------------------

def agreement_figures(key: str, table: AnswerTable) -> dict:
    """``n_items``, ``n_answers``, the figures of subtask ``key`` and ``reasons``."""
    figures = Figures(table)
    get_subtask(key).agreement_figures(table, figures)
    return figures.result()


def figures_text(figures: dict, as_json: bool) -> str:
    """What `agreement` prints: one JSON object, or a line per figure (a null with its reason)."""
    if as_json:
        return json.dumps(figures, ensure_ascii=False)
    lines = []
    for name, value in figures.items():
        if name == "reasons":
            continue
        if value is None:
            lines.append(f"{name}: null ({figures['reasons'][name]})")
        else:
            lines.append(f"{name}: {value:.4f}" if isinstance(value, float) else f"{name}: {value}")
    return "\n".join(lines)


def majority_answer(key: str, answers: list[dict], item: dict) -> tuple[dict | None, str | None]:
    """The majority answer of one item from its valid answers (answer fields, no id).

    Returns (the majority answer's fields, normalised, None), or (None, reason) with reason
    "no answer", "one answer", "no majority" or "invalid tree".
    """
    normalise = get_subtask(key).normalise
    return normalised_majority_answer(key, [normalise(answer) for answer in answers], item)


def normalised_majority_answer(key: str, answers: list[dict], item: dict) -> tuple[dict | None, str | None]:
    """``majority_answer`` of answers normalised already (an ``AnswerTable``'s)."""
    if not answers:
        return None, "no answer"
    if len(answers) == 1:
        return None, "one answer"
    return get_subtask(key).majority(answers, item)

