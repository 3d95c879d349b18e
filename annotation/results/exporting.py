"""Exports of a dataset's answers, one per source, as files the benchmark's scorer accepts.

Sources (``build_export``):

- ``annotator:NAME``: that annotator's submitted answers (``build_submission``); their assigned
  items without one are left out and listed;
- ``majority``: what `python -m scoring majority` gives for the per-annotator exports
  (``scoring.agreement.majority_answer`` over the same answers); items without a majority are
  left out and listed with the reason;
  with ``fill="adjudicated"`` those are filled from the adjudicated source where it has them
  (listed as filled);
- ``dawid-skene``: the answers of `python -m scoring dawid-skene` for the per-annotator exports
  (``scoring.dawid_skene.dawid_skene_answers`` over the same answers: Dawid and Skene's model
  fitted to every valid answer; items with fewer than two answers, or without the answer the
  chosen classes make, left out with the reason); refused for a subtask whose answers share no
  classes (numerals, discourse);
- ``adjudicated``: for every item, the common answer where the annotators agreed, else the
  adjudication (``adjudicated_answers``); open and stale cases, items nobody answered and items
  still waiting for an assigned annotator are left out and listed;
- ``all``: one record per submitted answer (drafts excluded) with its metadata and the item's
  adjudication source, as JSONL or CSV.

Withdrawn items are in no export and are listed (reason ``withdrawn``); the items that count
are those of ``counted_items``. An export that leaves out an item for any other reason is
*incomplete* (``Export.complete``), which the page, the command and the API say.

Submission lines are built by `scoring.submission_line` in input order and the whole file is
checked by `scoring.check_submission(partial=True)` (what `python -m scoring validate
--partial --inputs` does) before anyone receives it. A file on disk is written under a
temporary name and renamed when complete, so a failure never leaves half a file; a download
streams the checked bytes.
"""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from collections import Counter
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property
from operator import itemgetter
from pathlib import Path

from django.contrib.auth.models import User
from django.db.models import Count, Exists, OuterRef

from annotation.adjudicate.selectors import adjudicated_source
from annotation.answers.counted import counted_answers, counted_people
from annotation.core.errors import NotExportable, NothingToExport, Refused
from annotation.core.snapshot import one_snapshot
from annotation.datasets.progress import withdrawn_items
from annotation.models import Adjudication, Annotation, AnnotationRevision, Assignment, Dataset, Flag, RoutedItem
from annotation.results.agreement import DatasetAnswers, counted_items, dataset_answers, submission_filename
from annotation.results.formats import spreadsheet_text
from scoring.agreement import normalised_majority_answer
from scoring.dawid_skene import DawidSkeneAnswers, dawid_skene_answers, offered
from scoring.jsonl import jsonl_bytes
from scoring.subtasks import get_subtask
from scoring.validation import check_submission, submission_line

SOURCE_KINDS = ("annotator", "majority", "dawid-skene", "adjudicated", "all")


POOLED = ("majority", "dawid-skene", "adjudicated")  # the sources made of several annotators' answers


FILLS = ("adjudicated",)  # what may fill the majority export's items without a majority


WITHDRAWN = "withdrawn"


FORMATS = ("jsonl", "csv")


CONTENT_TYPES = {"jsonl": "application/jsonl; charset=utf-8", "csv": "text/csv; charset=utf-8"}


CHUNK_BYTES = 64 * 1024


# The columns of the ``all`` export, in order.
# "pilot": the item is one of a routed dataset's pilot items (annotation.datasets.routing).
ALL_FIELDS = ("id", "annotator", "answer", "version", "revisions", "active_ms", "submitted_at", "flags", "adjudication",
              "pilot")


@dataclass(frozen=True)
class Submission:
    dataset: Dataset
    annotator: User
    lines: list[dict]
    unanswered: list[str]  # external ids of assigned items without a submitted answer
    withdrawn: list[str]  # external ids of withdrawn items: never exported

    @property
    def filename(self) -> str:
        return f"{self.dataset.name}.{self.annotator.get_username()}.submission.jsonl"

    @property
    def unanswered_filename(self) -> str:
        return f"{self.dataset.name}.{self.annotator.get_username()}.unanswered.txt"

    def to_bytes(self) -> bytes:
        return jsonl_bytes(self.lines)


@one_snapshot()
def build_submission(dataset: Dataset, annotator: User, reads: DatasetReads | None = None) -> Submission:
    """The annotator's submitted answers of the dataset (withdrawn items left out and listed),
    checked; raises NotExportable. ``reads``: what other exports of the dataset read already
    (else only this annotator's answers are read)."""
    username = annotator.get_username()
    reads = reads or DatasetReads(dataset, usernames=[username])
    answers = reads.answers
    filename = submission_filename(dataset, username)
    # The answers were read as `scoring agreement` reads this file: its problems are exactly what
    # `scoring validate --partial --inputs` finds in it.
    problems = [fault for fault in answers.faults if fault.file == filename]
    if problems:
        raise NotExportable(problems)
    return Submission(dataset=dataset, annotator=annotator, lines=answers.lines.get(username, []),
                      unanswered=reads.unanswered.get(username, []), withdrawn=reads.withdrawn)


class DatasetReads:
    """What the exports of one dataset read, each read once however many sources are built
    from it (the report builds every source, the export page most): the inputs, the withdrawn
    items, the submitted answers (every annotator's, or ``usernames``' only) as
    `scoring agreement` reads their files, the assigned items without an answer, and the
    adjudicated source. Made for one request or command: later writes are not seen."""

    def __init__(self, dataset: Dataset, usernames: list[str] | None = None):
        self.dataset = dataset
        self.usernames = usernames
        # excluded usernames -> (adjudicated answers, case statuses): adjudicated_source
        self.adjudicated_by_exclusion: dict[frozenset[str], tuple[dict[int, dict], dict[int, str]]] = {}
        self.dawid_skene_by_exclusion: dict[frozenset[str], DawidSkeneAnswers] = {}

    @cached_property
    def inputs(self) -> list[dict]:
        """Every item's input record, in input order (withdrawn ones too: any may be named): the
        counted items' as the answers were read with them, and the withdrawn items'."""
        by_ordinal = [(item.ordinal, item.payload) for item in self.answers.items]
        by_ordinal += [(ordinal, payload) for ordinal, _external_id, payload in self.withdrawn_items]
        return [payload for _ordinal, payload in sorted(by_ordinal, key=itemgetter(0))]

    @cached_property
    def withdrawn_items(self) -> list[tuple[int, str, dict]]:
        """(ordinal, external id, input record) of the withdrawn items, in input order."""
        return list(withdrawn_items(self.dataset).values_list("ordinal", "external_id", "payload"))

    @cached_property
    def withdrawn(self) -> list[str]:
        """External ids of the withdrawn items, in input order (``withdrawn_ids``)."""
        return [external_id for _ordinal, external_id, _payload in self.withdrawn_items]

    @cached_property
    def answers(self) -> DatasetAnswers:
        return dataset_answers(self.dataset, self.usernames)

    @cached_property
    def unanswered(self) -> dict[str, list[str]]:
        """username -> external ids of their assigned counted items without a submitted answer,
        in input order (control items are the control pool's, never the dataset's)."""
        assigned = counted_people(Assignment.objects.filter(dataset=self.dataset, item__in=counted_items(self.dataset)))
        if self.usernames is not None:
            assigned = assigned.filter(annotator__username__in=self.usernames)
        found: dict[str, list[str]] = {}
        submitted = self.answers.submitted
        for username, external_id in assigned.order_by("item__ordinal").values_list("annotator__username",
                                                                                   "item__external_id"):
            if external_id not in submitted.get(username, ()):
                found.setdefault(username, []).append(external_id)
        return found

    def complete_items(self, excluded: frozenset[str] = frozenset()) -> list[str]:
        """External ids of the complete items, in input order: every assigned annotator (but the
        ``excluded`` usernames) submitted (routed: k answers are in), or the dataset is frozen, and at least two submitted
        answers count. The pooled sources are scored on these (a complete item without an answer
        of the source counts as missing): leaving such items out would favour the easy ones."""
        answered = Counter(external_id for username, ids in self.answers.submitted.items()
                           if username not in excluded for external_id in ids)
        if self.dataset.frozen:
            waiting = set()
        elif self.dataset.routing:
            # A routed item is complete at k submitted answers (annotation.annotate.routing): its
            # lapsed reservations are no answers to wait for.
            every = Counter(external_id for ids in self.answers.submitted.values() for external_id in ids)
            waiting = {item.external_id for item in self.answers.items if every[item.external_id] < self.dataset.answers_per_item}
        else:
            waiting = {external_id for username, ids in self.unanswered.items() if username not in excluded
                       for external_id in ids}
        return [item.external_id for item in self.answers.items
                if answered[item.external_id] >= 2 and item.external_id not in waiting]

    def dawid_skene(self, excluded: frozenset[str] = frozenset()) -> DawidSkeneAnswers:
        """Dawid–Skene over the answers without those of ``excluded`` usernames, fitted once
        (the export and the report's estimated accuracies are one fit); the subtask must offer it."""
        if excluded not in self.dawid_skene_by_exclusion:
            answers = self.answers
            names = [name for name in answers.annotators if name not in excluded]
            self.dawid_skene_by_exclusion[excluded] = dawid_skene_answers(
                self.dataset.subtask, answers.without(excluded), names)
        return self.dawid_skene_by_exclusion[excluded]

    def adjudicated(self, excluded: frozenset[str] = frozenset()) -> dict[int, dict]:
        """``adjudicated_answers`` (item id -> answer) without the answers of ``excluded`` usernames."""
        return self.adjudicated_with_cases(excluded)[0]

    def adjudicated_with_cases(self, excluded: frozenset[str] = frozenset()) -> tuple[dict[int, dict], dict[int, str]]:
        """``adjudicated(excluded)`` and the status of every case, read with it (``adjudicated_source``)."""
        if excluded not in self.adjudicated_by_exclusion:
            excluded_ids = User.objects.filter(username__in=excluded).values_list("pk", flat=True)
            self.adjudicated_by_exclusion[excluded] = adjudicated_source(self.dataset, list(excluded_ids))
        return self.adjudicated_by_exclusion[excluded]


def withdrawn_ids(dataset: Dataset) -> list[str]:
    """External ids of the dataset's withdrawn items, in input order: in no export."""
    return list(withdrawn_items(dataset).values_list("external_id", flat=True))


def write_atomically(path: Path, data: bytes | Iterable[bytes]) -> None:
    """Write `data` (bytes or pieces of it) to `path` through a temporary file in the same
    folder, then rename."""
    path = Path(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as out:
            for piece in [data] if isinstance(data, bytes) else data:
                out.write(piece)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


@dataclass(frozen=True)
class Export:
    """One source of a dataset, checked: the file's bytes, how many records it holds, and the
    items left out of it with the reason (external id, reason)."""

    dataset: Dataset
    source: str
    format: str
    # The file's bytes (``data``); None for a submission, whose bytes are its ``records`` as JSON
    # Lines, made when first asked for (the report scores an annotator's lines, never their bytes).
    encoded: bytes | None
    n_records: int
    left_out: list[tuple[str, str]]
    filled: list[tuple[str, str]] = field(default_factory=list)  # majority --fill: (external id, why no majority)
    fill: str = ""  # what filled the items without a majority ("adjudicated"), or ""
    records: list[dict] = field(default_factory=list)  # what ``data`` holds, one a line (submissions)
    excluded: list[str] = field(default_factory=list)  # usernames whose answers a pooled source leaves out
    pilot: list[str] = field(default_factory=list)  # external ids of its pilot items (routed datasets), input order

    @cached_property
    def data(self) -> bytes:
        """The file's bytes."""
        return self.encoded if self.encoded is not None else jsonl_bytes(self.records)

    @property
    def complete(self) -> bool:
        """Nothing left out but withdrawn items."""
        return all(reason == WITHDRAWN for _external_id, reason in self.left_out)

    @property
    def filename(self) -> str:
        kind = "answers" if self.source == "all" else "submission"
        return f"{self.dataset.name}.{self.slug}.{kind}.{self.format}"

    @property
    def left_out_filename(self) -> str:
        return f"{self.dataset.name}.{self.slug}.left-out.tsv"

    @property
    def slug(self) -> str:
        """The source in file names: ``annotator-NAME``, ``majority-filled``..."""
        return self.source.replace(":", "-") + (f"-filled-{self.fill}" if self.fill else "")

    @property
    def content_type(self) -> str:
        return CONTENT_TYPES[self.format]

    def chunks(self) -> Iterator[bytes]:
        """The file in pieces of CHUNK_BYTES, for a streamed download or write."""
        return (self.data[start:start + CHUNK_BYTES] for start in range(0, len(self.data), CHUNK_BYTES))

    def left_out_bytes(self) -> bytes:
        """The left-out items as tab-separated lines: external id, reason; then the filled ones
        (reason ``filled (<why no majority>)``)."""
        listed = [*self.left_out, *((external_id, f"filled ({reason})") for external_id, reason in self.filled)]
        return "".join(f"{external_id}\t{reason}\n" for external_id, reason in listed).encode("utf-8")


def parse_source(source: str) -> tuple[str, str]:
    """(kind, username) of a source name; refuses an unknown one."""
    kind, _colon, username = source.partition(":")
    if kind not in SOURCE_KINDS or (kind == "annotator") != bool(username):
        raise Refused.of("unknown_source", "source", source=source)
    return kind, username


@one_snapshot()
def build_export(dataset: Dataset, source: str, format: str = "jsonl", fill: str | None = None, *,
                 excluded: Collection[str] = (), reads: DatasetReads | None = None) -> Export:
    """The export of ``source`` (see the module), checked; ``fill="adjudicated"`` (majority
    only) fills the items without a majority; ``excluded`` (majority and adjudicated only):
    usernames whose answers do not count; ``reads``: what other exports of the dataset read
    already. Raises Refused (NotExportable when the stored answers do not make a valid file)."""
    kind, username = parse_source(source)
    if fill and (fill not in FILLS or kind != "majority"):
        raise Refused.of("fill", "fill", fill=fill, source=source)
    if excluded and kind not in POOLED:
        raise Refused.of("exclude", "exclude", source=source)
    if format not in FORMATS or (format == "csv" and kind != "all"):
        raise Refused.of("format", format=format, source=source)
    reads = reads or DatasetReads(dataset, usernames=[username] if kind == "annotator" else None)
    excluded = frozenset(excluded)
    if kind == "annotator":
        annotator = User.objects.filter(username=username).first()
        if annotator is None:
            raise Refused.of("no_such_user", name=username)
        submission = build_submission(dataset, annotator, reads)
        left_out = [(external_id, "unanswered") for external_id in submission.unanswered]
        left_out += [(external_id, WITHDRAWN) for external_id in submission.withdrawn]
        export = Export(dataset, source, format, None, len(submission.lines), left_out, records=submission.lines)
    elif kind == "majority":
        export = majority_export(reads, fill, excluded)
    elif kind == "dawid-skene":
        export = dawid_skene_export(reads, excluded)
    elif kind == "adjudicated":
        export = adjudicated_export(reads, excluded)
    else:
        export = all_answers_export(dataset, format)
    if not export.n_records:
        raise NothingToExport(source, dataset.name, len(export.left_out))
    return replace(export, pilot=pilot_ids(dataset))


def pilot_ids(dataset: Dataset) -> list[str]:
    """External ids of a routed dataset's pilot items, in input order (none without a pilot):
    every export and the report name them."""
    pilot = RoutedItem.objects.filter(dataset=dataset, pilot_rank__isnull=False)
    return list(pilot.order_by("item__ordinal").values_list("item__external_id", flat=True))


def checked_submission(reads: DatasetReads, lines: list[dict], filename: str) -> bytes:
    """The submission file of ``lines``, checked against the dataset's inputs; raises NotExportable."""
    data = jsonl_bytes(lines)
    _records, problems = check_submission(reads.dataset.subtask, data, filename, reads.inputs, partial=True)
    if problems:
        raise NotExportable(problems)
    return data


def majority_export(reads: DatasetReads, fill: str | None = None, excluded: frozenset[str] = frozenset()) -> Export:
    """The majority answer of every item, from the answers the per-annotator exports hold
    (without those of ``excluded`` usernames); with ``fill="adjudicated"`` an item without one
    takes its adjudicated answer, if any."""
    dataset = reads.dataset
    table = reads.answers.without(excluded)
    fill_from = adjudicated_by_external_id(reads, excluded) if fill else None
    lines, left_out, filled = [], [], []
    for item in table.items:
        answer, reason = normalised_majority_answer(dataset.subtask, table.answers_of(item["id"]), item)
        if answer is None and fill_from is not None and item["id"] in fill_from:
            answer = fill_from[item["id"]]
            filled.append((item["id"], reason))
        if answer is None:
            left_out.append((item["id"], reason))
        else:
            lines.append(submission_line(dataset.subtask, item["id"], answer))
    left_out += [(external_id, WITHDRAWN) for external_id in reads.withdrawn]
    data = checked_submission(reads, lines, f"{dataset.name}.majority.submission.jsonl")
    return Export(dataset, "majority", "jsonl", data, len(lines), left_out, filled, fill or "", records=lines,
                  excluded=sorted(excluded))


def dawid_skene_export(reads: DatasetReads, excluded: frozenset[str] = frozenset()) -> Export:
    """The Dawid–Skene answer of every item that has one (``DatasetReads.dawid_skene``), the
    others listed with the reason; refused for a subtask that does not offer it."""
    dataset = reads.dataset
    if not offered(get_subtask(dataset.subtask)):
        raise Refused.of("dawid_skene_not_offered", "source", subtask=dataset.subtask)
    lines, left_out = [], []
    for external_id, (answer, reason) in reads.dawid_skene(excluded).answers.items():
        if answer is None:
            left_out.append((external_id, reason))
        else:
            lines.append(submission_line(dataset.subtask, external_id, answer))
    left_out += [(external_id, WITHDRAWN) for external_id in reads.withdrawn]
    data = checked_submission(reads, lines, f"{dataset.name}.dawid-skene.submission.jsonl")
    return Export(dataset, "dawid-skene", "jsonl", data, len(lines), left_out, records=lines, excluded=sorted(excluded))


def adjudicated_by_external_id(reads: DatasetReads, excluded: frozenset[str] = frozenset()) -> dict[str, dict]:
    """The adjudicated source (``adjudicated_answers``) by external id, in input order."""
    answers = reads.adjudicated(excluded)
    return {item.external_id: answers[item.pk] for item in reads.answers.items if item.pk in answers}


def adjudicated_export(reads: DatasetReads, excluded: frozenset[str] = frozenset()) -> Export:
    """The adjudicated answer of every item that has one; the others listed with the reason:
    ``open`` or ``stale`` (a case to settle), ``no answer``, ``not ready`` (an assigned annotator
    has not submitted), ``withdrawn``. ``excluded``: usernames whose answers do not count."""
    dataset = reads.dataset
    answers, statuses = reads.adjudicated_with_cases(excluded)
    answered = {external_id for username, ids in reads.answers.submitted.items() if username not in excluded
                for external_id in ids}
    lines, left_out = [], []
    for item in reads.answers.items:
        if item.pk in answers:
            lines.append(submission_line(dataset.subtask, item.external_id, answers[item.pk]))
        elif item.external_id not in answered:
            left_out.append((item.external_id, "no answer"))
        else:  # a case (open or stale), or an assigned annotator has not submitted
            left_out.append((item.external_id, statuses.get(item.pk, "not ready")))
    left_out += [(external_id, WITHDRAWN) for external_id in reads.withdrawn]
    data = checked_submission(reads, lines, f"{dataset.name}.adjudicated.submission.jsonl")
    return Export(dataset, "adjudicated", "jsonl", data, len(lines), left_out, records=lines, excluded=sorted(excluded))


def all_answer_records(dataset: Dataset) -> Iterator[dict]:
    """One record per submitted answer of the counted items (drafts excluded), in input order
    then by annotator: four queries (answers with their pilot mark, revision counts, flag
    counts, adjudication sources), each a plain scan of the dataset."""
    revisions = dict(
        AnnotationRevision.objects.filter(annotation__item__dataset=dataset).order_by()
        .values("annotation_id").annotate(count=Count("pk")).values_list("annotation_id", "count")
    )
    flags = {
        (item_id, user_id): count
        for item_id, user_id, count in Flag.objects.filter(item__dataset=dataset).order_by()
        .values("item_id", "raised_by_id").annotate(count=Count("pk")).values_list("item_id", "raised_by_id", "count")
    }
    adjudications = dict(Adjudication.objects.filter(item__dataset=dataset).values_list("item_id", "source"))
    # A routed dataset's pilot item (annotation.datasets.routing), read with the answer.
    pilot = Exists(RoutedItem.objects.filter(item=OuterRef("item"), pilot_rank__isnull=False))
    rows = (
        counted_answers(Annotation.objects.filter(item__in=counted_items(dataset)))
        .annotate(pilot=pilot)
        .order_by("item__ordinal", "annotator__username")
        .values_list("pk", "item_id", "annotator_id", "item__external_id", "annotator__username", "answer",
                     "version", "active_ms", "submitted_at", "pilot")
    )
    for pk, item_id, user_id, external_id, username, answer, version, active_ms, submitted_at, is_pilot in rows:
        fields = submission_line(dataset.subtask, external_id, answer)
        del fields["id"]
        yield dict(zip(ALL_FIELDS, (external_id, username, fields, version, revisions.get(pk, 0), active_ms,
                                    submitted_at.isoformat() if submitted_at else None, flags.get((item_id, user_id), 0),
                                    adjudications.get(item_id), is_pilot)))


def csv_bytes(records: Iterable[dict]) -> bytes:
    """CSV (RFC 4180 line ends) of ``all`` records, the answer as one JSON column. The CSV is
    for spreadsheets (no scorer reads it; programs read the JSONL, which keeps every value as
    stored): a text cell a spreadsheet would run as a formula (an item id or a user name
    starting with =, +, -, @) is written as text, as in the report's CSV (``spreadsheet_text``)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=ALL_FIELDS, lineterminator="\r\n")
    writer.writeheader()
    for record in records:
        row = {**record, "answer": json.dumps(record["answer"], ensure_ascii=False),
               "adjudication": record["adjudication"] or ""}
        writer.writerow({name: spreadsheet_text(value) for name, value in row.items()})
    return out.getvalue().encode("utf-8")


def all_answers_export(dataset: Dataset, format: str) -> Export:
    """Every submitted answer with its metadata, as JSONL or CSV."""
    records = list(all_answer_records(dataset))
    data = csv_bytes(records) if format == "csv" else jsonl_bytes(records)
    left_out = [(external_id, WITHDRAWN) for external_id in withdrawn_ids(dataset)]
    return Export(dataset, "all", format, data, len(records), left_out)


def write_export(export: Export, path: Path) -> None:
    """Write the export's file to ``path`` (temporary name, then rename)."""
    write_atomically(path, export.chunks())
