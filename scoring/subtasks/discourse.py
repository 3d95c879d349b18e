"""Subtask 5, discourse: a rooted tree over the discourse units (DUs) of a passage, each DU
attached to its head by one of 21 relations. ``tree_problems`` is the one tree check of the
project."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable
from typing import TYPE_CHECKING

from scoring.metrics import column_totals, combined, ratio
from scoring.problems import MESSAGES, TREE_CODES, Problem, problem
from scoring.reliability import AnswerTable, Figures, Undefined, nominal_alpha, strict_majority

if TYPE_CHECKING:
    from scoring.subtasks import Subtask

NUMBER = 5
TITLE = "Universal discourse parsing"
ANSWER_FIELDS = ("discourse_units",)
UNIT_FIELDS = ("du_id", "head", "relation")

# Spelled exactly as in the task description, including its "Co-occurence".
RELATIONS: tuple[str, ...] = (
    "Alternative",
    "Attribution",
    "Cause",
    "Co-occurence",
    "Comment",
    "Concession",
    "Condition",
    "Contrast",
    "Elaboration",
    "Entity-elaboration",
    "Exemplification",
    "Feedback dependence",
    "Formatting",
    "Manner",
    "Metatext",
    "Purpose",
    "Question-Answer",
    "Repetition",
    "Sequence-Elaboration",
    "Similarity",
    "Substitution",
)
_RELATION_SET = frozenset(RELATIONS)

PASSAGE = ""  # the key of problems that concern the passage as a whole

# The English text of each tree code (the one table: scoring.problems.MESSAGES).
TREE_MESSAGES: dict[str, str] = {code: MESSAGES[code] for code in TREE_CODES}


def tree_problems(du_ids: list[str], units: list[dict]) -> dict[str, list[str]]:
    """Problem codes per du_id of a predicted tree; ``{}`` means a valid tree.

    ``du_ids`` are the passage's DUs; ``units`` the answer's ``{"du_id", "head",
    "relation"}`` entries, possibly malformed. A valid tree gives every DU exactly
    once, has one root (head and relation null), heads that name other DUs of the
    passage, no cycle, and relations from ``RELATIONS``.

    Codes on the passage key ``""``: ``no_root``, and ``unknown_du`` for an entry
    that is not an object with a string du_id. Codes on a du_id: ``duplicate_du``,
    ``unknown_du``, ``missing_du``, ``multiple_roots`` (on each root),
    ``root_with_relation``, ``unknown_head``, ``self_attachment``, ``cycle`` (on each
    DU of the cycle), ``missing_relation``, ``unknown_relation``. When a du_id is
    given twice, its first entry is the one checked.
    """
    problems: dict[str, list[str]] = {}

    def add(key: str, code: str) -> None:
        codes = problems.setdefault(key, [])
        if code not in codes:
            codes.append(code)

    known = set(du_ids)
    heads: dict[str, object] = {}
    for unit in units:
        du_id = unit.get("du_id") if isinstance(unit, dict) else None
        if not isinstance(du_id, str):
            add(PASSAGE, "unknown_du")
            continue
        if du_id in heads:
            add(du_id, "duplicate_du")
            continue
        if du_id not in known:
            add(du_id, "unknown_du")
        heads[du_id] = unit.get("head")
        relation = unit.get("relation")
        head = heads[du_id]
        if head is None:
            if relation is not None:
                add(du_id, "root_with_relation")
        else:
            if head == du_id:
                add(du_id, "self_attachment")
            elif not isinstance(head, str) or head not in known:
                add(du_id, "unknown_head")
            if relation is None or relation == "":
                add(du_id, "missing_relation")
        if relation is not None and relation != "" and (not isinstance(relation, str) or relation not in _RELATION_SET):
            add(du_id, "unknown_relation")

    for du_id in du_ids:
        if du_id not in heads:
            add(du_id, "missing_du")

    roots = [du_id for du_id, head in heads.items() if head is None]
    if not roots:
        add(PASSAGE, "no_root")
    elif len(roots) > 1:
        for du_id in roots:
            add(du_id, "multiple_roots")

    for du_id in _cycle_members(heads):
        add(du_id, "cycle")
    return problems


def _cycle_members(heads: dict[str, object]) -> list[str]:
    """DUs on a cycle of length two or more (a self-attachment is reported apart)."""
    on_cycle: list[str] = []
    settled: set[str] = set()
    for start in heads:
        path: dict[str, int] = {}
        node: object = start
        while isinstance(node, str) and node in heads and node not in settled and node not in path:
            path[node] = len(path)
            node = heads[node]
        if isinstance(node, str) and node in path and heads[node] != node:
            members = list(path)[path[node]:]
            on_cycle.extend(members)
        settled.update(path)
    return on_cycle


def check_input(record: dict) -> list[Problem]:
    problems = []
    seen: set[str] = set()
    for index, unit in enumerate(record["discourse_units"]):
        du_id = unit["du_id"]
        if du_id in seen:
            problems.append(problem("duplicate_du/input", f"discourse_units[{index}].du_id", du=du_id))
        seen.add(du_id)
    return problems


def check_answer(answer: dict, item: dict | None) -> list[Problem]:
    """The answer is a valid tree over the item's DUs (without the item: over the DUs it gives)."""
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
            problems.append(problem(code, field) if du_id == PASSAGE else problem(f"{code}/du", field, du=du_id))
    return problems


def normalise(answer: dict) -> dict:
    result = dict(answer)
    units = result.get("discourse_units")
    if isinstance(units, list):
        result["discourse_units"] = [
            {key: unit.get(key) for key in UNIT_FIELDS} if isinstance(unit, dict) else unit
            for unit in units
        ]
    return result


# Metric, over all passages: LAS (main) = non-root gold DUs whose predicted head and relation
# both match / all non-root gold DUs; UAS the same for heads alone; root accuracy = share of
# passages whose prediction has exactly one root and it is the gold root; tree validity =
# share of passages whose prediction is a valid tree (``tree_problems`` finds nothing). An
# invalid tree still earns credit for each correct attachment; when a DU is given twice, its
# first entry counts.
# A passage is as right as its LAS (see ITEM_FIGURE in the registry).
ITEM_FIGURE = "las"
GRADED_ITEMS = True  # a passage can be partly right
COUNT_NAMES = ("labelled", "unlabelled", "attachments", "root_right", "valid", "missing")


def line_counts(gold: dict, prediction: dict | None) -> tuple[int, ...]:
    gold_units = gold["discourse_units"]
    dependents = [unit for unit in gold_units if unit["head"] is not None]
    if prediction is None:
        return (0, 0, len(dependents), 0, 0, 1)
    units = prediction.get("discourse_units")
    units = units if isinstance(units, list) else []
    predicted: dict[object, dict] = {}
    for unit in units:
        if isinstance(unit, dict) and isinstance(unit.get("du_id"), Hashable):  # a list as du_id names no DU
            predicted.setdefault(unit.get("du_id"), unit)
    labelled = unlabelled = 0
    for unit in dependents:
        guess = predicted.get(unit["du_id"])
        if guess is not None and guess.get("head") == unit["head"]:
            unlabelled += 1
            labelled += guess.get("relation") == unit["relation"]
    gold_roots = [unit["du_id"] for unit in gold_units if unit["head"] is None]
    predicted_roots = [du_id for du_id, unit in predicted.items() if "head" in unit and unit["head"] is None]
    root_right = predicted_roots == gold_roots and len(gold_roots) == 1
    valid = not tree_problems([unit["du_id"] for unit in gold_units], units)
    return (labelled, unlabelled, len(dependents), int(root_right), int(valid), 0)


# The figures besides the main score that `score --ci` gives an interval for.
INTERVAL_FIGURES = ("las", "uas", "root_accuracy", "tree_validity")


def combine(totals: tuple[int, ...], n_lines: int) -> dict:
    labelled, unlabelled, attachments, root_right, valid, missing = totals
    return {
        "score": ratio(labelled, attachments),
        "las": ratio(labelled, attachments),
        "uas": ratio(unlabelled, attachments),
        "root_accuracy": ratio(root_right, n_lines),
        "tree_validity": ratio(valid, n_lines),
        "n_attachments": attachments,
        "n_gold": n_lines,
        "n_missing": missing,
    }


# Agreement: pairwise UAS and LAS, for each ordered pair (R, P) of distinct files over the
# passages both answered validly, of P with R as gold exactly as the metric computes them
# (pooled over R's non-root DUs); pairs without such a passage or non-root DU are left out;
# the mean over the other pairs. Head alpha (nominal; units = (passage, du_id) for every DU
# of the passage; value = the head, the root written ROOT) and labelled alpha (value = head
# and relation together). The majority answer: every DU's (head, relation) given by more
# than half of the answers, and together a valid tree.
ROOT = "ROOT"


def answer_value(answer: dict) -> frozenset:
    """A tree by its attachments, whatever the order of its DUs."""
    return frozenset((unit["du_id"], unit["head"], unit["relation"]) for unit in answer["discourse_units"])


def _attachments(answer: dict) -> dict[str, tuple[str, str | None]]:
    """du_id -> (head, relation) of a valid answer, the root's head written ROOT."""
    return {unit["du_id"]: (ROOT if unit["head"] is None else unit["head"], unit["relation"])
            for unit in answer["discourse_units"]}


def _pairwise(table: AnswerTable) -> tuple[list[float], list[float]]:
    """UAS and LAS of every ordered pair of files that share a passage with a non-root DU."""
    uas, las = [], []
    for reference_index, reference in enumerate(table.files):
        for other_index, other in enumerate(table.files):
            if other_index == reference_index:
                continue
            common = [item["id"] for item in table.items if item["id"] in reference and item["id"] in other]
            rows = [line_counts(reference[item_id], other[item_id]) for item_id in common]
            figures = combine(column_totals(rows, len(COUNT_NAMES)), len(common))
            if figures["n_attachments"]:
                uas.append(figures["uas"])
                las.append(figures["las"])
    return uas, las


def agreement_figures(table: AnswerTable, figures: Figures) -> None:
    uas, las = _pairwise(table)

    def mean_over_pairs(values: list[float]) -> float:
        if not values:
            raise Undefined("no two files answer a passage with a non-root DU validly")
        return sum(values) / len(values)

    figures.add("pairwise_uas", lambda: mean_over_pairs(uas))
    figures.add("pairwise_las", lambda: mean_over_pairs(las))
    head_units: list[Counter] = []
    labelled_units: list[Counter] = []
    for item, answers in table.answered:
        trees = [_attachments(answer) for answer in answers]
        for unit in item["discourse_units"]:
            given = [tree[unit["du_id"]] for tree in trees]
            head_units.append(Counter(head for head, _ in given))
            labelled_units.append(Counter(given))
    figures.add("head_alpha", lambda: nominal_alpha(head_units))
    figures.add("labelled_alpha", lambda: nominal_alpha(labelled_units))


def majority(answers: list[dict], item: dict) -> tuple[dict | None, str | None]:
    trees = [_attachments(answer) for answer in answers]
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


# The report: the figures with an interval, and the most frequent relation confusions.
TOP_RELATION_PAIRS = 10


def breakdown(subtask: Subtask, gold: list[dict], pred: dict[str, dict], rows: list[tuple[int, ...]]) -> dict:
    figures = combined(subtask, rows)
    pairs: Counter[tuple[str, str]] = Counter()
    for record in gold:
        units = pred.get(record["id"], {}).get("discourse_units")
        predicted: dict[str, dict] = {}
        for unit in units if isinstance(units, list) else []:
            if isinstance(unit, dict) and isinstance(unit.get("du_id"), str):
                predicted.setdefault(unit["du_id"], unit)  # the first unit of a du_id, as the metric reads it
        for unit in record["discourse_units"]:
            guess = predicted.get(unit["du_id"])
            if unit["head"] is not None and guess is not None and guess.get("head") == unit["head"] \
                    and guess.get("relation") != unit["relation"]:
                pairs[(unit["relation"], str(guess.get("relation")))] += 1
    top = sorted(pairs.items(), key=lambda pair: (-pair[1], pair[0]))[:TOP_RELATION_PAIRS]
    return {
        **{name: figures[name] for name in INTERVAL_FIGURES},
        "relation_confusions": [{"gold": gold_relation, "predicted": predicted, "count": count}
                                for (gold_relation, predicted), count in top],
    }


def pair_agreement(subtask: Subtask, reference: dict[str, dict], other: dict[str, dict]) -> float | None:
    """The LAS of ``other`` with ``reference`` as gold; None without an attachment to score."""
    scored = subtask.metric([{"id": item_id, **answer} for item_id, answer in reference.items()], other)
    return scored["las"] if scored["n_attachments"] else None


def disagreement_kinds(answers: list[dict], item: dict) -> list[str]:
    """Every relation (ROOT for the root) given to a DU on which the answers differ."""
    relations: set[str] = set()
    units = [{unit["du_id"]: unit for unit in answer["discourse_units"]} for answer in answers]
    for du in item["discourse_units"]:
        attachments = {(tree[du["du_id"]]["head"], tree[du["du_id"]]["relation"]) for tree in units}
        if len(attachments) > 1:
            relations.update(relation or ROOT for _, relation in attachments)
    return sorted(relations)
