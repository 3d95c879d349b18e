"""Export of one annotator's submitted answers as a benchmark submission file.

Lines are built by `scoring.submission_line` in input order and the whole file is checked by
`scoring.check_submission(partial=True)` (what `python -m scoring validate --partial` does)
before anything is written; a file on disk is written under a temporary name and renamed
when complete, so a failure never leaves half a file.
"""

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth.models import User

from annotation.errors import NotExportable
from annotation.models import Annotation, Assignment, Dataset
from scoring.validation import check_submission, submission_line


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
        for external_id in Assignment.objects.filter(dataset=dataset, annotator=annotator, item__withdrawn_at__isnull=True)
        .order_by("item__ordinal")
        .values_list("item__external_id", flat=True)
        if external_id not in answered
    ]
    withdrawn = list(
        dataset.items.filter(withdrawn_at__isnull=False).order_by("ordinal").values_list("external_id", flat=True)
    )
    submission = Submission(
        dataset=dataset, annotator=annotator, lines=lines, unanswered=unanswered, withdrawn=withdrawn
    )
    inputs = list(dataset.items.order_by("ordinal").values_list("payload", flat=True))
    _records, problems = check_submission(
        dataset.subtask, submission.to_bytes(), submission.filename, inputs, partial=True
    )
    if problems:
        raise NotExportable(problems)
    return submission


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temporary file in the same folder, then rename."""
    path = Path(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
