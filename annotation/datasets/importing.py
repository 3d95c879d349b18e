"""Import of a dataset's input records and of its gold, all or nothing, read as a stream.

Every record is checked by `scoring` (JSON, schema, the subtask's own checks, duplicate ids,
gold against the inputs) and by the application's limits (annotation.subtasks.limits) and answer keys
(annotation.subtasks.item_fields); on any problem nothing is written and every problem is reported
(the first ``MAX_LISTED_PROBLEMS`` of them, and how many more there were).

Files are read ``CHUNK_LINES`` lines at a time, each byte read and parsed once (the inputs'
SHA-256 is computed from the same reads), and the items of each chunk are inserted in the
import's one transaction, which a problem anywhere rolls back: memory holds one chunk, the ids
seen and the problems, whatever the file's size. Lines are numbered in the file before they
are checked, so every problem, a repeated id's first line too, names the file's line.

Gold covers every item unless the organizer says it is partial; the missing items' gold can
be added later (``import_gold``, each line with the time it was added), but a gold answer
given is never replaced here.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.core.errors import Refused
from annotation.core.files import SourceFile
from annotation.core.problems import MAX_LISTED_PROBLEMS, problem
from annotation.core.statistics import analyze_after_commit
from annotation.core.storable import unstorable_fields
from annotation.models import Dataset, GoldAnswer, Item
from annotation.subtasks import limits
from annotation.subtasks.item_fields import answer_key_problems
from scoring.jsonl import Line, read_jsonl
from scoring.problems import Problem
from scoring.subtasks import SUBTASKS, get_subtask
from scoring.validation import answer_line_problems, input_line_problems, repeated_ids, schema_problems, validator

BATCH_SIZE = 2000


CHUNK_LINES = 2000


@dataclass(frozen=True)
class Chunk:
    """Up to CHUNK_LINES consecutive lines of a file, each read and parsed once: the JSON objects
    and the problems of the lines that are none (too long, not UTF-8, not JSON, not an object),
    all numbered in the file."""

    lines: list[Line]
    problems: list[Problem]


def _chunks(source: SourceFile, update: Callable[[bytes], object] = lambda _data: None) -> Iterator[Chunk]:
    """The file in chunks, read once as a stream; every byte read is also given to ``update``
    (e.g. a hash's)."""
    with source.open() as stream:
        offset = 0
        while True:
            raw_lines: list[bytes] = []
            problems: list[Problem] = []
            while len(raw_lines) < CHUNK_LINES:
                raw = stream.readline(limits.MAX_LINE_BYTES + 1)
                if not raw:
                    break
                update(raw)
                if len(raw) > limits.MAX_LINE_BYTES and not raw.endswith(b"\n"):
                    while rest := stream.readline(limits.MAX_LINE_BYTES):
                        update(rest)  # the rest of the line, read and dropped piece by piece
                        if rest.endswith(b"\n"):
                            break
                    number = offset + len(raw_lines) + 1
                    problems.append(
                        problem("too_long/line", "line", source.name, number, max=limits.MAX_LINE_BYTES)
                    )
                    raw = b"\n"  # counted, not read
                raw_lines.append(raw if raw.endswith(b"\n") else raw + b"\n")
            if not raw_lines:
                return
            lines, found = read_jsonl(b"".join(raw_lines), source.name)
            yield Chunk(
                [Line(line.number + offset, line.record) for line in lines],
                problems + [replace(problem, line=problem.line + offset) for problem in found],
            )
            offset += len(raw_lines)


# How many of a refused file's first records are tried against the other subtasks' schemas.
GUESS_RECORDS = 20


def other_subtask(kind: str, records: list, expected: str) -> str | None:
    """The subtask whose ``kind`` schema ("input", "gold" or "output", a submission line) takes every one of
    the first GUESS_RECORDS ``records`` while ``expected``'s refuses one: a file of another
    subtask chosen by mistake, said as such rather than as a problem on every line."""
    sample = records[:GUESS_RECORDS]
    if not sample or all(not schema_problems(validator(expected, kind), record) for record in sample):
        return None
    return next((key for key in SUBTASKS if key != expected
                 and all(not schema_problems(validator(key, kind), record) for record in sample)), None)


def other_subtask_problems(kind: str, records: list, expected: str, filename: str) -> list[Problem]:
    """The problem "this looks like a <subtask> file" for a file of another subtask, else none."""
    guess = other_subtask(kind, records, expected)
    return [problem("other_subtask", "file", filename, subtask=guess, expected=expected)] if guess else []


class _Problems:
    """The problems of one import: every one counted, the first MAX_LISTED_PROBLEMS kept."""

    def __init__(self) -> None:
        self.kept: list[Problem] = []
        self.count = 0

    def add(self, problems: list[Problem]) -> None:
        self.count += len(problems)
        self.kept.extend(problems[: MAX_LISTED_PROBLEMS - len(self.kept)])

    def refusal(self) -> Refused:
        problems = sorted(self.kept, key=lambda problem: (problem.file or "", problem.line or 0))
        if self.count > len(self.kept):
            problems.append(problem("more_problems", "file", count=self.count - len(self.kept)))
        return Refused(problems)


def import_dataset(
    *,
    subtask: str,
    name: str,
    inputs: SourceFile,
    gold: SourceFile | None = None,
    gold_synthetic: bool = False,
    gold_partial: bool = False,
    created_by: AbstractBaseUser | None = None,
) -> Dataset:
    """Create a dataset from one inputs file (and optionally its gold, which covers every item
    unless ``gold_partial``) or raise Refused."""
    if subtask not in SUBTASKS:  # the schema lists no keys: the registry is the one list
        raise Refused.of("unknown_subtask", "subtask", keys=", ".join(SUBTASKS), value=subtask)
    problems = _Problems()
    problems.add(_name_problems(name) + _file_name_problems(inputs) + (_file_name_problems(gold) if gold else []))
    try:
        with transaction.atomic():
            dataset = Dataset.objects.create(
                # A refused name still needs a row for the items checked on the way; it is rolled back.
                name=name if not problems.count else f"refused-{uuid.uuid4().hex}",
                subtask=subtask,
                source_filename=inputs.name[: Dataset._meta.get_field("source_filename").max_length],
                source_sha256="",
                created_by=created_by,
                gold_synthetic=gold is not None and gold_synthetic,
            )
            item_count, sha256 = _add_items(dataset, inputs, problems)
            if not item_count and not problems.count:
                problems.add([problem("empty", "file", inputs.name)])
            # The gold is checked even when some input lines are wrong, so that one run reports
            # everything; it is checked against the input lines without problems only.
            if gold is not None:
                _add_gold(dataset, gold, problems, partial=gold_partial)
            if problems.count:
                raise problems.refusal()
            dataset.source_sha256 = sha256
            dataset.save(update_fields=["source_sha256"])
            analyze_after_commit(Dataset, Item, GoldAnswer)
    except IntegrityError:
        # Another import created the same name between the check and the insert.
        raise Refused([_dataset_exists(name)]) from None
    return dataset


@dataclass(frozen=True)
class GoldImport:
    """What a gold import did: the lines added, the lines equal to the gold already there, and
    the items (withdrawn ones aside) still without gold."""

    added: int
    unchanged: int
    missing: int


def import_gold(*, dataset: Dataset, gold: SourceFile, gold_synthetic: bool = False, partial: bool = False) -> GoldImport:
    """Add gold to an existing dataset: to every item, or (``partial``) to some, the rest
    later. A line equal to an item's gold is passed over; one that differs is refused, since
    a gold answer is never replaced here."""
    problems = _Problems()
    problems.add(_file_name_problems(gold))
    with transaction.atomic():
        # The row lock serialises two gold imports of the same dataset.
        dataset = Dataset.objects.select_for_update().get(pk=dataset.pk)
        had_gold = GoldAnswer.objects.filter(item__dataset=dataset).exists()
        added, unchanged = _add_gold(dataset, gold, problems, partial=partial)
        if problems.count:
            raise problems.refusal()
        if not had_gold:
            # Synthetic or not is said by the first gold; later lines complete the same key.
            dataset.gold_synthetic = gold_synthetic
            dataset.save(update_fields=["gold_synthetic"])
        analyze_after_commit(GoldAnswer)
    return GoldImport(added, unchanged, _without_gold(dataset).count())


def _without_gold(dataset: Dataset):
    return dataset.items.filter(gold__isnull=True, withdrawn_at__isnull=True)


def _add_items(dataset: Dataset, inputs: SourceFile, problems: _Problems) -> tuple[int, str]:
    """Check the input file chunk by chunk and insert the items of its sound lines; returns
    the number of items and the file's SHA-256, computed on the way."""
    first_line: dict[str, int] = {}  # id -> line, across chunks
    digest = hashlib.sha256()
    ordinal = 0
    for number, chunk in enumerate(_chunks(inputs, digest.update)):
        found = chunk.problems + input_line_problems(dataset.subtask, chunk.lines, inputs.name)
        if not number and found:  # first, so that it is among the problems kept
            found[:0] = other_subtask_problems("input", [line.record for line in chunk.lines], dataset.subtask,
                                               inputs.name)
        found += _storage_problems(inputs.name, chunk.lines, input_of=dataset.subtask)
        found += repeated_ids(chunk.lines, inputs.name, first_line)
        problems.add(found)
        bad_lines = {problem.line for problem in found}
        items = []
        for line in chunk.lines:
            if line.number not in bad_lines:
                items.append(Item(dataset=dataset, external_id=line.record["id"], payload=line.record, ordinal=ordinal))
                ordinal += 1
        Item.objects.bulk_create(items, batch_size=BATCH_SIZE)
    return ordinal, digest.hexdigest()


def _add_gold(dataset: Dataset, gold: SourceFile, problems: _Problems, *, partial: bool) -> tuple[int, int]:
    """Check the gold file chunk by chunk against the dataset's items and insert it; returns
    the lines added and the lines equal to the gold the item has already. A file of no
    records is refused, as an inputs file is, and one that leaves items without gold unless
    ``partial``."""
    first_line: dict[str, int] = {}
    subtask = get_subtask(dataset.subtask)
    added_at = timezone.now()
    added = unchanged = read = 0
    for number, chunk in enumerate(_chunks(gold)):
        read += len(chunk.lines) + len(chunk.problems)
        ids = [line.record["id"] for line in chunk.lines if isinstance(line.record.get("id"), str)]
        items = {
            external_id: (pk, payload, given)
            for external_id, pk, payload, given in dataset.items.filter(external_id__in=ids).values_list(
                "external_id", "pk", "payload", "gold__payload"
            )
        }
        found = chunk.problems + answer_line_problems(
            subtask, "gold", chunk.lines, gold.name, [payload for _, payload, _given in items.values()]
        )
        if not number and found:
            found[:0] = other_subtask_problems("gold", [line.record for line in chunk.lines], dataset.subtask, gold.name)
        found += _storage_problems(gold.name, chunk.lines, input_of=None)
        found += repeated_ids(chunk.lines, gold.name, first_line)
        new_lines = []
        for line in chunk.lines:
            given = items.get(line.record.get("id"), (None, None, None))[2]
            if given is None:
                new_lines.append(line)
            elif given == line.record:
                unchanged += 1
            else:
                found.append(problem("gold_given", "id", gold.name, line.number, id=line.record["id"]))
        problems.add(found)
        if not found:
            GoldAnswer.objects.bulk_create(
                (GoldAnswer(item_id=items[line.record["id"]][0], payload=line.record, added_at=added_at)
                 for line in new_lines),
                batch_size=BATCH_SIZE,
            )
            added += len(new_lines)
    if not read and not problems.count:
        problems.add([problem("empty", "file", gold.name)])
    elif not partial and not problems.count:
        missing = list(_without_gold(dataset).order_by("ordinal").values_list("external_id", flat=True)[:6])
        if missing:
            total = _without_gold(dataset).count() if len(missing) > 5 else len(missing)
            problems.add([problem("partial_gold", "gold", gold.name, missing=total, first=missing[:5])])
    return added, unchanged


def _storage_problems(filename: str, lines: list[Line], *, input_of: str | None) -> list[Problem]:
    """What the schema allows but the application's limits or database columns refuse, and
    (for the input lines of subtask ``input_of``) fields that would give the answer away."""
    problems = []
    max_id = Item._meta.get_field("external_id").max_length
    for line in lines:
        found = limits.item_problems(line.record)
        if not any(problem.code == "too_deep" for problem in found):
            found += [problem("unstorable/value", field) for field in unstorable_fields(line.record)]
        if input_of is not None:
            found += answer_key_problems(input_of, line.record)
        item_id = line.record.get("id")
        if isinstance(item_id, str) and len(item_id) > max_id:
            found.append(problem("too_long/id", "id", max=max_id))
        problems += [problem.at(filename, line.number) for problem in found]
    return problems


def _file_name_problems(source: SourceFile) -> list[Problem]:
    if len(source.name) > Dataset._meta.get_field("source_filename").max_length:
        return [problem("too_long/file_name", "file", source.name)]
    return []


def _name_problems(name: str) -> list[Problem]:
    max_length = Dataset._meta.get_field("name").max_length
    if not name.strip():
        return [problem("required/dataset_name", "dataset")]
    if len(name) > max_length:
        return [problem("too_long/dataset_name", "dataset", max=max_length)]
    if Dataset.objects.filter(name=name).exists():
        return [_dataset_exists(name)]
    return []


def _dataset_exists(name: str) -> Problem:
    return problem("exists/dataset", "dataset", name=name)
