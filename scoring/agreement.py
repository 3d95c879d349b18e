"""Agreement between annotators and their majority answers: what `agreement` and `majority` run.

One submission file = one annotator. ``read_answers`` reads the files as the scorer reads
them, ``agreement_figures`` and ``majority_answer`` apply the subtask's figures and majority
rule (statistics: scoring.reliability).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from scoring.checks import comma_markers
from scoring.discourse import tree_problems
from scoring.problems import Problem
from scoring.reliability import (
    AnswerTable,
    Figures,
    Undefined,
    alpha,
    fleiss_kappa,
    fleiss_units,
    masi_distances,
    nominal_alpha,
    observed_agreement,
    strict_majority,
)
from scoring.subtasks import get_subtask
from scoring.validation import check_inputs, read_answer_file, sorted_by_line, without_id

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
    subtask = get_subtask(key)
    items, errors = check_inputs(key, inputs_data, inputs_name)
    if errors:
        return ReadAnswers(None, errors, [])
    faults: list[Problem] = []
    tables: list[dict[str, dict]] = []
    for name, data in files:
        lines, _, problems = read_answer_file(subtask, "output", data, name, items)
        without_string_id = {line.number for line in lines if not isinstance(line.record.get("id"), str)}
        faulty_lines = set()
        for problem in sorted_by_line(problems):
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
    _RULES[key].figures(table, figures)
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
    if not answers:
        return None, "no answer"
    if len(answers) == 1:
        return None, "one answer"
    subtask = get_subtask(key)
    return _RULES[key].majority([subtask.normalise(answer) for answer in answers], item)


# Per subtask ------------------------------------------------------------------------------
# Each subtask has a ``figures(table, figures)`` adding its figures and a
# ``majority(normalised answers (two or more), item)`` rule.

def answer_value(key: str, answer: dict) -> Hashable:
    """A valid, normalised answer of subtask ``key`` as one comparable value: two answers are
    equal when their values are (a discourse tree by its attachments, whatever their order)."""
    if key == "discourse":
        return frozenset((unit["du_id"], unit["head"], unit["relation"]) for unit in answer["discourse_units"])
    return tuple(tuple(value) if isinstance(value, list) else value
                 for value in (answer[name] for name in get_subtask(key).answer_fields))


def _whole_answer_majority(key: str) -> Callable[[list[dict], dict], tuple[dict | None, str | None]]:
    def majority(answers: list[dict], item: dict) -> tuple[dict | None, str | None]:
        winner = strict_majority([answer_value(key, answer) for answer in answers])
        if winner is None:
            return None, "no majority"
        return dict(zip(get_subtask(key).answer_fields, winner)), None
    return majority


def _label_figures(table: AnswerTable, figures: Figures) -> None:
    """wsd, coreference: nominal alpha, Fleiss' kappa over A-D, observed agreement."""
    counts = [Counter(answer["answer"] for answer in answers) for _, answers in table.answered]
    figures.add("alpha", lambda: nominal_alpha(counts))
    kappa_units = fleiss_units(counts)
    figures.add("fleiss_kappa", lambda: fleiss_kappa(kappa_units, ("A", "B", "C", "D")))
    figures.add("fleiss_kappa_n_items", lambda: len(kappa_units))
    figures.add("observed_agreement", lambda: observed_agreement(counts))


def _numerals_figures(table: AnswerTable, figures: Figures) -> None:
    counts = [Counter(answer["answer"] for answer in answers) for _, answers in table.answered]
    figures.add("alpha", lambda: nominal_alpha(counts))
    figures.add("observed_agreement", lambda: observed_agreement(counts))


def _morphosyntax_figures(table: AnswerTable, figures: Figures) -> None:
    answered = table.answered
    figures.add("label_alpha", lambda: nominal_alpha(Counter(answer["answer"] for answer in answers) for _, answers in answered))
    pairs = equal_pairs = 0
    for _, answers in answered:
        corrections = Counter(answer["corrected_sentence"] for answer in answers if answer["answer"] == "NIEPOPRAWNE")
        given = sum(corrections.values())
        pairs += given * (given - 1) // 2
        equal_pairs += sum(count * (count - 1) // 2 for count in corrections.values())

    def correction_agreement() -> float:
        if not pairs:
            raise Undefined("no two valid answers to the same item both say NIEPOPRAWNE")
        return equal_pairs / pairs

    figures.add("correction_agreement", correction_agreement)
    figures.add("correction_agreement_n_pairs", lambda: pairs)


def marker_counts(answers: list[dict], n_markers: int) -> list[dict[str, int]]:
    """For every marker 1..n of a commas item, how many of ``answers`` make it ``required``
    (in ``commas``), ``optional`` or ``none``; values no answer gives are left out."""
    required = [0] * (n_markers + 1)
    optional = [0] * (n_markers + 1)
    for answer in answers:
        for marker in answer["commas"]:
            required[marker] += 1
        for marker in answer["optional"]:
            optional[marker] += 1
    counts = []
    for marker in range(1, n_markers + 1):
        given = {"required": required[marker], "optional": optional[marker],
                 "none": len(answers) - required[marker] - optional[marker]}
        counts.append({value: count for value, count in given.items() if count})
    return counts


def _n_markers(item: dict) -> int:
    return len(comma_markers(item["sentence_with_positions"]))


def _commas_figures(table: AnswerTable, figures: Figures) -> None:
    marker_units: list[dict[str, int]] = []
    required_sets: list[Counter] = []
    for item, answers in table.answered:
        marker_units.extend(marker_counts(answers, _n_markers(item)))
        required_sets.append(Counter(frozenset(answer["commas"]) for answer in answers))
    figures.add("marker_alpha", lambda: nominal_alpha(marker_units))
    figures.add("exact_set_agreement", lambda: observed_agreement(required_sets))
    figures.add("masi_alpha", lambda: alpha(required_sets, masi_distances))


def _commas_majority(answers: list[dict], item: dict) -> tuple[dict | None, str | None]:
    winners = []
    for counts in marker_counts(answers, _n_markers(item)):
        value, count = max(counts.items(), key=lambda pair: pair[1])
        if 2 * count <= len(answers):
            return None, "no majority"
        winners.append(value)
    return {
        "commas": [marker for marker, value in enumerate(winners, start=1) if value == "required"],
        "optional": [marker for marker, value in enumerate(winners, start=1) if value == "optional"],
    }, None


ROOT = "ROOT"


def _heads(answer: dict) -> dict[str, tuple[str, str | None]]:
    """du_id -> (head, relation) of a valid discourse answer, the root's head written ROOT."""
    return {unit["du_id"]: (ROOT if unit["head"] is None else unit["head"], unit["relation"])
            for unit in answer["discourse_units"]}


def _discourse_figures(table: AnswerTable, figures: Figures) -> None:
    subtask = get_subtask("discourse")
    uas, las = [], []
    for reference_index, reference in enumerate(table.files):
        for other_index, other in enumerate(table.files):
            if other_index == reference_index:
                continue
            common = [item["id"] for item in table.items if item["id"] in reference and item["id"] in other]
            if not common:
                continue
            scored = subtask.metric([{"id": item_id, **reference[item_id]} for item_id in common],
                                    {item_id: other[item_id] for item_id in common})
            if scored["n_attachments"]:
                uas.append(scored["uas"])
                las.append(scored["las"])

    def mean_over_pairs(values: list[float]) -> float:
        if not values:
            raise Undefined("no two files answer a passage with a non-root DU validly")
        return sum(values) / len(values)

    figures.add("pairwise_uas", lambda: mean_over_pairs(uas))
    figures.add("pairwise_las", lambda: mean_over_pairs(las))
    head_units: list[Counter] = []
    labelled_units: list[Counter] = []
    for item, answers in table.answered:
        trees = [_heads(answer) for answer in answers]
        for unit in item["discourse_units"]:
            attachments = [tree[unit["du_id"]] for tree in trees]
            head_units.append(Counter(head for head, _ in attachments))
            labelled_units.append(Counter(attachments))
    figures.add("head_alpha", lambda: nominal_alpha(head_units))
    figures.add("labelled_alpha", lambda: nominal_alpha(labelled_units))


def _discourse_majority(answers: list[dict], item: dict) -> tuple[dict | None, str | None]:
    trees = [_heads(answer) for answer in answers]
    units = []
    for unit in item["discourse_units"]:
        winner = strict_majority([tree[unit["du_id"]] for tree in trees])
        if winner is None:
            return None, "no majority"
        head, relation = winner
        units.append({"du_id": unit["du_id"], "head": None if head == ROOT else head, "relation": relation})
    if tree_problems([unit["du_id"] for unit in item["discourse_units"]], units):
        return None, "invalid tree"
    return {"discourse_units": units}, None


@dataclass(frozen=True)
class _Rules:
    figures: Callable[[AnswerTable, Figures], None]
    majority: Callable[[list[dict], dict], tuple[dict | None, str | None]]


_RULES: dict[str, _Rules] = {
    "morphosyntax": _Rules(_morphosyntax_figures, _whole_answer_majority("morphosyntax")),
    "numerals": _Rules(_numerals_figures, _whole_answer_majority("numerals")),
    "wsd": _Rules(_label_figures, _whole_answer_majority("wsd")),
    "coreference": _Rules(_label_figures, _whole_answer_majority("coreference")),
    "discourse": _Rules(_discourse_figures, _discourse_majority),
    "commas": _Rules(_commas_figures, _commas_majority),
}
