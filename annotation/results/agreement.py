"""How far the annotators of a dataset agree: the scorer's figures over their submitted answers,
per-annotator agreement, and the items where they disagree.

One annotator = one submission file: each annotator's submitted answers are turned into the
lines their export holds and read by `scoring.agreement.answer_lines_table`, the part of
`read_answers` after the JSON is parsed: exactly as `python -m scoring agreement` reads the
exported files. Every function here runs a fixed
number of queries, whatever the size of the dataset and the number of annotators.
"""

import json
import statistics
from collections import Counter, defaultdict
from collections.abc import Collection
from dataclasses import dataclass, field

from django.db.models import QuerySet
from django.utils.translation import gettext, gettext_lazy

from annotation.answers.counted import counted_answers
from annotation.datasets.progress import withdrawn_items
from annotation.models import Annotation, Dataset, GoldAnswer, Item
from scoring.agreement import agreement_figures, answer_lines_table
from scoring.dawid_skene import dawid_skene_answers, offered
from scoring.jsonl import Line
from scoring.problems import Problem
from scoring.reliability import AnswerTable
from scoring.subtasks import get_subtask
from scoring.validation import submission_line


def counted_items(dataset: Dataset) -> QuerySet[Item]:
    """The items of the dataset whose answers count for agreement, in input order: the one
    place that decides which items count (withdrawn items do not)."""
    return Item.objects.filter(dataset=dataset, withdrawn_at__isnull=True).order_by("ordinal")


@dataclass(frozen=True)
class DatasetAnswers:
    """The submitted answers of a dataset, one annotator = one file (annotators by username)."""

    dataset: Dataset
    items: list[Item]
    annotators: list[str]
    table: AnswerTable  # valid answers, normalised, files in the order of ``annotators``
    submitted: dict[str, set[str]]  # username -> external ids of their submitted answers
    active_ms: dict[str, list[int]]  # username -> active time of each submitted answer
    lines: dict[str, list[dict]]  # username -> their submission lines (every submitted answer), in input order
    faults: list[Problem]  # the lines that are no valid answer (each names its file and line)

    @property
    def files(self) -> dict[str, dict[str, dict]]:
        """username -> external id -> valid normalised answer."""
        return dict(zip(self.annotators, self.table.files))

    def answer_counts(self) -> list[tuple[int, int]]:
        """(k, number of items with k submitted answers) for k = 0..the largest k."""
        per_item = Counter(sum(item.external_id in ids for ids in self.submitted.values()) for item in self.items)
        return [(k, per_item[k]) for k in range(max(per_item, default=0) + 1)]

    def without(self, excluded: Collection[str]) -> AnswerTable:
        """The answer table without the files of the ``excluded`` annotators."""
        return AnswerTable(self.table.items, [answers for name, answers in self.files.items() if name not in excluded])


def submission_filename(dataset: Dataset, username: str) -> str:
    """The name of an annotator's submission file (its download and every problem in it)."""
    return f"{dataset.name}.{username}.submission.jsonl"


def dataset_answers(dataset: Dataset, usernames: Collection[str] | None = None) -> DatasetAnswers:
    """Two queries: the items that count, and their submitted answers that count
    (annotation.answers.counted; of ``usernames`` only, when given)."""
    items = list(counted_items(dataset).only("pk", "external_id", "payload", "ordinal"))
    rows = counted_answers(Annotation.objects.filter(item__in=counted_items(dataset)))
    if usernames is not None:
        rows = rows.filter(annotator__username__in=usernames)
    rows = rows.order_by("annotator__username", "item__ordinal").values_list(
        "annotator__username", "item__external_id", "answer", "active_ms"
    )
    lines: dict[str, list[dict]] = defaultdict(list)
    active_ms: dict[str, list[int]] = defaultdict(list)
    for username, external_id, answer, active in rows:
        lines[username].append(submission_line(dataset.subtask, external_id, answer))
        active_ms[username].append(active)
    annotators = sorted(lines)
    # The inputs were checked on import; each file's lines are read as `scoring agreement` reads
    # the file (line n of the export is its n-th answer).
    read = answer_lines_table(
        dataset.subtask,
        [item.payload for item in items],
        [(submission_filename(dataset, username), [Line(number, line) for number, line in enumerate(lines[username], 1)], [])
         for username in annotators],
    )
    if read.table is None:  # stored answers always have a string id of the dataset, once each
        raise ValueError("; ".join(map(str, read.errors)))
    submitted = {username: {line["id"] for line in lines[username]} for username in annotators}
    return DatasetAnswers(dataset, items, annotators, read.table, submitted, dict(active_ms), dict(lines), read.faults)


# What a cell of the annotator-by-annotator table is, for a subtask whose folder does not say
# (scoring's default pair_agreement; annotation.subtasks).
PAIR_AGREEMENT_TEXT = gettext_lazy(
    "Each cell: the share of the items both answered on which their answers are equal (their number in brackets)."
)


@dataclass(frozen=True)
class PairAgreement:
    other: str
    common: int  # items both answered validly
    value: float | None  # the subtask's pair_agreement; None when there is no common item (or it says none)


@dataclass(frozen=True)
class AnnotatorAgreement:
    username: str
    cells: list[PairAgreement | None]  # one per annotator of the dataset, None for themselves
    gold_score: float | None  # the subtask's main score on their answered items that have gold
    gold_items: int
    median_active_seconds: float | None
    dawid_skene_accuracy: float | None = None  # Dawid and Skene's estimate, without gold (scoring.dawid_skene)

    @property
    def pairs(self) -> list[PairAgreement]:
        return [cell for cell in self.cells if cell is not None]

    @property
    def weighted_mean(self) -> float | None:
        """The mean of the pair figures weighted by the number of common items."""
        weighted = [(pair.value, pair.common) for pair in self.pairs if pair.value is not None]
        total = sum(common for _, common in weighted)
        return sum(value * common for value, common in weighted) / total if total else None


def annotator_agreement(answers: DatasetAnswers, gold: dict[str, dict],
                        estimated: dict[str, float | None] | None = None) -> list[AnnotatorAgreement]:
    """Per annotator: agreement with each other annotator on their common items, the main
    score against ``gold`` (external id -> gold line) on their answered items, median active
    time, and ``estimated`` (username -> Dawid–Skene's estimated accuracy), where given."""
    estimated = estimated or {}
    subtask = get_subtask(answers.dataset.subtask)
    order = [item.external_id for item in answers.items]
    files = answers.files
    rows = []
    for username in answers.annotators:
        mine = files[username]
        cells: list[PairAgreement | None] = []
        for other in answers.annotators:
            if other == username:
                cells.append(None)
            else:
                common = [item_id for item_id in order if item_id in mine and item_id in files[other]]
                cells.append(PairAgreement(other, len(common), subtask.pair_agreement(
                    subtask, {item_id: mine[item_id] for item_id in common}, files[other])))
        graded = [gold[item_id] for item_id in order if item_id in mine and item_id in gold]
        score = subtask.metric(graded, mine)["score"] if graded else None
        times = answers.active_ms.get(username, [])
        rows.append(AnnotatorAgreement(
            username=username,
            cells=cells,
            gold_score=score,
            gold_items=len(graded),
            median_active_seconds=statistics.median(times) / 1000 if times else None,
            dawid_skene_accuracy=estimated.get(username),
        ))
    return rows


def dataset_gold(dataset: Dataset) -> dict[str, dict]:
    """External id -> gold line of the counted items that have gold (one query). Organizers only."""
    return {
        external_id: payload
        for external_id, payload in GoldAnswer.objects.filter(item__in=counted_items(dataset))
        .values_list("item__external_id", "payload")
    }


@dataclass(frozen=True)
class Disagreement:
    item: Item
    kinds: list[str]  # what differs: a label pair, a marker, a relation...
    answers: dict[str, str] = field(default_factory=dict)  # username -> their valid normalised answer as JSON


def disagreements(answers: DatasetAnswers) -> list[Disagreement]:
    """The items where two submitted (valid) answers differ after normalisation, in input order."""
    subtask = get_subtask(answers.dataset.subtask)
    files = answers.files
    found = []
    for item in answers.items:
        given = {username: mine[item.external_id] for username, mine in files.items() if item.external_id in mine}
        if len({subtask.answer_value(answer) for answer in given.values()}) > 1:
            kinds = subtask.disagreement_kinds(list(given.values()), item.payload)
            shown = {username: json.dumps(answer, ensure_ascii=False) for username, answer in given.items()}
            found.append(Disagreement(item, kinds, shown))
    return found


@dataclass(frozen=True)
class FigureRow:
    key: str
    value: float | int | None
    reason: str | None

    @property
    def is_count(self) -> bool:
        return isinstance(self.value, int)


@dataclass(frozen=True)
class AgreementReport:
    dataset: Dataset
    answer_counts: list[tuple[int, int]]
    figures: dict  # what `python -m scoring agreement --json` prints
    annotators: list[AnnotatorAgreement]
    disagreements: list[Disagreement]
    withdrawn: list[Item]  # left out of every figure, listed as withdrawn
    dawid_skene: dict | None = None  # the fit's figures (scoring.dawid_skene); None: not offered for the subtask

    @property
    def figure_rows(self) -> list[FigureRow]:
        # The scorer's reasons are English sentences (it never imports Django); each is a msgid of
        # the catalogue, kept there by hand (a test holds every one translated).
        reasons = {key: gettext(reason) for key, reason in self.figures["reasons"].items()}
        return [FigureRow(key, value, reasons.get(key)) for key, value in self.figures.items() if key != "reasons"]

    @property
    def kinds(self) -> list[str]:
        return sorted({kind for disagreement in self.disagreements for kind in disagreement.kinds})


def dawid_skene_figures(answers: DatasetAnswers) -> dict | None:
    """Dawid–Skene's figures over every submitted answer (what `python -m scoring dawid-skene
    --json` says of the annotators' exports), or None for a subtask that does not offer it."""
    if not offered(get_subtask(answers.dataset.subtask)):
        return None
    return dawid_skene_answers(answers.dataset.subtask, answers.table, answers.annotators).figures()


def agreement_report(dataset: Dataset) -> AgreementReport:
    """Everything the organizer's agreement page shows (four queries)."""
    answers = dataset_answers(dataset)
    dawid_skene = dawid_skene_figures(answers)
    estimated = {row["annotator"]: row["accuracy"] for row in dawid_skene["annotators"]} if dawid_skene else None
    return AgreementReport(
        dataset=dataset,
        answer_counts=answers.answer_counts(),
        figures=agreement_figures(dataset.subtask, answers.table),
        annotators=annotator_agreement(answers, dataset_gold(dataset), estimated),
        dawid_skene=dawid_skene,
        disagreements=disagreements(answers),
        withdrawn=list(withdrawn_items(dataset)),
    )
