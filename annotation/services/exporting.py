"""Exports of a dataset's answers, one per source, as files the benchmark's scorer accepts.

Sources (``build_export``):

- ``annotator:NAME``: that annotator's submitted answers (``build_submission``); their assigned
  items without one are left out and listed;
- ``majority``: what `python -m scoring majority` gives for the per-annotator exports
  (``scoring.agreement.majority_answer`` over the same answers); items without a majority are
  left out and listed with the reason;
  with ``fill="adjudicated"`` those are filled from the adjudicated source where it has them
  (listed as filled);
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

import csv
import io
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from django.contrib.auth.models import User
from django.db.models import Count
from django.utils.translation import gettext as _

from annotation.errors import NotExportable, NothingToExport, Refused
from annotation.models import Adjudication, Annotation, AnnotationRevision, Assignment, Dataset, Flag
from scoring.agreement import majority_answer
from scoring.problems import Problem
from scoring.validation import check_submission, submission_line

SOURCE_KINDS = ("annotator", "majority", "adjudicated", "all")
FILLS = ("adjudicated",)  # what may fill the majority export's items without a majority
WITHDRAWN = "withdrawn"
FORMATS = ("jsonl", "csv")
CONTENT_TYPES = {"jsonl": "application/jsonl; charset=utf-8", "csv": "text/csv; charset=utf-8"}
CHUNK_BYTES = 64 * 1024
# The columns of the ``all`` export, in order.
ALL_FIELDS = ("id", "annotator", "answer", "version", "revisions", "active_ms", "submitted_at", "flags", "adjudication")


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


def jsonl_bytes(records: list[dict]) -> bytes:
    """JSON Lines in UTF-8, one record a line, Polish letters as they are."""
    return b"".join(json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n" for record in records)


def build_submission(dataset: Dataset, annotator: User) -> Submission:
    """The annotator's submitted answers of the dataset (withdrawn items left out and listed),
    checked; raises NotExportable."""
    answers = (
        Annotation.objects.filter(
            item__dataset=dataset, item__withdrawn_at__isnull=True, annotator=annotator,
            status=Annotation.Status.SUBMITTED,
        )
        .order_by("item__ordinal")
        .values_list("item__external_id", "answer")
    )
    lines = [submission_line(dataset.subtask, external_id, answer) for external_id, answer in answers]
    answered = {line["id"] for line in lines}
    unanswered = [
        external_id
        for external_id in Assignment.objects.filter(
            dataset=dataset, item__dataset=dataset, annotator=annotator, item__withdrawn_at__isnull=True
        )
        .order_by("item__ordinal")
        .values_list("item__external_id", flat=True)
        if external_id not in answered
    ]
    withdrawn = withdrawn_ids(dataset)
    submission = Submission(
        dataset=dataset, annotator=annotator, lines=lines, unanswered=unanswered, withdrawn=withdrawn
    )
    checked_submission(dataset, lines, submission.filename)
    return submission


def withdrawn_ids(dataset: Dataset) -> list[str]:
    """External ids of the dataset's withdrawn items, in input order: in no export."""
    return list(dataset.items.filter(withdrawn_at__isnull=False).order_by("ordinal").values_list("external_id", flat=True))


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
    data: bytes
    n_records: int
    left_out: list[tuple[str, str]]
    filled: list[tuple[str, str]] = field(default_factory=list)  # majority --fill: (external id, why no majority)
    fill: str = ""  # what filled the items without a majority ("adjudicated"), or ""

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
        message = _("unknown source %(source)s; expected annotator:NAME, majority, adjudicated or all") % {"source": source}
        raise Refused([Problem("source", message)])
    return kind, username


def build_export(dataset: Dataset, source: str, format: str = "jsonl", fill: str | None = None) -> Export:
    """The export of ``source`` (see the module), checked; ``fill="adjudicated"`` (majority
    only) fills the items without a majority. Raises Refused (NotExportable when the stored
    answers do not make a valid file)."""
    kind, username = parse_source(source)
    if fill and (fill not in FILLS or kind != "majority"):
        raise Refused([Problem("fill", _("fill %(fill)s is not available for %(source)s; only majority can be filled, from adjudicated")
                               % {"fill": fill, "source": source})])
    if format not in FORMATS or (format == "csv" and kind != "all"):
        raise Refused.because(_("format %(format)s is not available for %(source)s; submissions are jsonl, all is jsonl or csv")
                              % {"format": format, "source": source})
    if kind == "annotator":
        annotator = User.objects.filter(username=username).first()
        if annotator is None:
            raise Refused.because(_("no user named %(name)s") % {"name": username})
        submission = build_submission(dataset, annotator)
        left_out = [(external_id, "unanswered") for external_id in submission.unanswered]
        left_out += [(external_id, WITHDRAWN) for external_id in submission.withdrawn]
        export = Export(dataset, source, format, submission.to_bytes(), len(submission.lines), left_out)
    elif kind == "majority":
        export = majority_export(dataset, fill)
    elif kind == "adjudicated":
        export = adjudicated_export(dataset)
    else:
        export = all_answers_export(dataset, format)
    if not export.n_records:
        raise NothingToExport(source, dataset.name, len(export.left_out))
    return export


def checked_submission(dataset: Dataset, lines: list[dict], filename: str) -> bytes:
    """The submission file of ``lines``, checked against the dataset's inputs; raises NotExportable."""
    data = jsonl_bytes(lines)
    inputs = list(dataset.items.order_by("ordinal").values_list("payload", flat=True))
    _records, problems = check_submission(dataset.subtask, data, filename, inputs, partial=True)
    if problems:
        raise NotExportable(problems)
    return data


def majority_export(dataset: Dataset, fill: str | None = None) -> Export:
    """The majority answer of every item, from the answers the per-annotator exports hold;
    with ``fill="adjudicated"`` an item without one takes its adjudicated answer, if any."""
    from annotation.selectors.agreement import dataset_answers  # the selector builds on this module

    answers = dataset_answers(dataset)
    fill_from = adjudicated_by_external_id(dataset) if fill else None
    lines, left_out, filled = [], [], []
    for item in answers.table.items:
        answer, reason = majority_answer(dataset.subtask, answers.table.answers_of(item["id"]), item)
        if answer is None and fill_from is not None and item["id"] in fill_from:
            answer = fill_from[item["id"]]
            filled.append((item["id"], reason))
        if answer is None:
            left_out.append((item["id"], reason))
        else:
            lines.append(submission_line(dataset.subtask, item["id"], answer))
    left_out += [(external_id, WITHDRAWN) for external_id in withdrawn_ids(dataset)]
    data = checked_submission(dataset, lines, f"{dataset.name}.majority.submission.jsonl")
    return Export(dataset, "majority", "jsonl", data, len(lines), left_out, filled, fill or "")


def adjudicated_by_external_id(dataset: Dataset) -> dict[str, dict]:
    """The adjudicated source (``adjudicated_answers``) by external id, in input order."""
    from annotation.selectors.adjudication import adjudicated_answers
    from annotation.selectors.agreement import counted_items

    answers = adjudicated_answers(dataset)
    return {
        external_id: answers[pk]
        for pk, external_id in counted_items(dataset).filter(pk__in=answers).values_list("pk", "external_id")
    }


def adjudicated_export(dataset: Dataset) -> Export:
    """The adjudicated answer of every item that has one; the others listed with the reason:
    ``open`` or ``stale`` (a case to settle), ``no answer``, ``not ready`` (an assigned annotator
    has not submitted), ``withdrawn``."""
    from annotation.selectors.adjudication import adjudicated_answers, case_statuses
    from annotation.selectors.agreement import counted_items

    answers = adjudicated_answers(dataset)
    statuses = case_statuses(dataset)
    answered = set(
        Annotation.objects.filter(item__dataset=dataset, status=Annotation.Status.SUBMITTED).values_list("item_id", flat=True)
    )
    lines, left_out = [], []
    for pk, external_id in counted_items(dataset).values_list("pk", "external_id"):
        if pk in answers:
            lines.append(submission_line(dataset.subtask, external_id, answers[pk]))
        else:
            left_out.append((external_id, statuses.get(pk) or ("not ready" if pk in answered else "no answer")))
    left_out += [(external_id, WITHDRAWN) for external_id in withdrawn_ids(dataset)]
    data = checked_submission(dataset, lines, f"{dataset.name}.adjudicated.submission.jsonl")
    return Export(dataset, "adjudicated", "jsonl", data, len(lines), left_out)


def all_answer_records(dataset: Dataset) -> Iterator[dict]:
    """One record per submitted answer of the counted items (drafts excluded), in input order
    then by annotator: four queries (answers, revision counts, flag counts, adjudication
    sources), each a plain scan of the dataset."""
    from annotation.selectors.agreement import counted_items

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
    rows = (
        Annotation.objects.filter(item__in=counted_items(dataset), status=Annotation.Status.SUBMITTED)
        .order_by("item__ordinal", "annotator__username")
        .values_list("pk", "item_id", "annotator_id", "item__external_id", "annotator__username", "answer",
                     "version", "active_ms", "submitted_at")
    )
    for pk, item_id, user_id, external_id, username, answer, version, active_ms, submitted_at in rows:
        fields = submission_line(dataset.subtask, external_id, answer)
        del fields["id"]
        yield dict(zip(ALL_FIELDS, (external_id, username, fields, version, revisions.get(pk, 0), active_ms,
                                    submitted_at.isoformat() if submitted_at else None, flags.get((item_id, user_id), 0),
                                    adjudications.get(item_id))))


def csv_bytes(records: Iterable[dict]) -> bytes:
    """CSV (RFC 4180 line ends) of ``all`` records, the answer as one JSON column."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=ALL_FIELDS, lineterminator="\r\n")
    writer.writeheader()
    for record in records:
        writer.writerow({**record, "answer": json.dumps(record["answer"], ensure_ascii=False),
                         "adjudication": record["adjudication"] or ""})
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
