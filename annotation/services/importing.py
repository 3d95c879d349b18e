"""Import of a dataset's input records and of its gold, all or nothing.

Every record is checked by `scoring` (JSON, schema, the subtask's own checks, duplicate ids,
gold against the inputs); on any problem nothing is written and every problem is reported.
"""

import hashlib
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from annotation.models import Dataset, GoldAnswer, Item
from annotation.storable import UNSTORABLE, unstorable_fields
from annotation.errors import Refused
from scoring.jsonl import Line, read_jsonl
from scoring.problems import Problem
from scoring.validation import check_gold, check_inputs

BATCH_SIZE = 2000


@dataclass(frozen=True)
class SourceFile:
    """An uploaded or read file: its name (as reported in problems) and its bytes."""

    name: str
    data: bytes

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def import_dataset(
    *,
    subtask: str,
    name: str,
    inputs: SourceFile,
    gold: SourceFile | None = None,
    gold_synthetic: bool = False,
    created_by: AbstractBaseUser | None = None,
) -> Dataset:
    """Create a dataset from one inputs file (and optionally its gold) or raise Refused."""
    problems = _name_problems(name)
    records, input_problems = check_inputs(subtask, inputs.data, inputs.name)
    problems += input_problems
    if not records and not input_problems:
        problems.append(Problem("file", "holds no records", "empty", file=inputs.name))
    # The lines again, with their numbers, for the checks that point at a line.
    lines, _ = read_jsonl(inputs.data, inputs.name)
    problems += _storage_problems(inputs.name, lines)
    gold_records: list[dict] = []
    if gold is not None:
        problems += _storage_problems(gold.name, read_jsonl(gold.data, gold.name)[0])
        # The gold is checked even when some input lines are wrong, so that one run reports
        # everything; it is checked against the input lines without problems only.
        gold_records, gold_problems = check_gold(
            subtask, gold.data, gold.name, _sound_records(lines, input_problems) if input_problems else records
        )
        problems += gold_problems
    if problems:
        raise Refused(problems)

    try:
        with transaction.atomic():
            dataset = Dataset.objects.create(
                name=name,
                subtask=subtask,
                source_filename=inputs.name,
                source_sha256=inputs.sha256,
                created_by=created_by,
                gold_synthetic=gold is not None and gold_synthetic,
            )
            Item.objects.bulk_create(
                (
                    Item(dataset=dataset, external_id=record["id"], payload=record, ordinal=ordinal)
                    for ordinal, record in enumerate(records)
                ),
                batch_size=BATCH_SIZE,
            )
            if gold_records:
                _create_gold(dataset, gold_records)
    except IntegrityError:
        # Another import created the same name between the check and the insert.
        raise Refused([_dataset_exists(name)]) from None
    return dataset


def import_gold(*, dataset: Dataset, gold: SourceFile, gold_synthetic: bool = False) -> int:
    """Add the gold of an existing dataset that has none yet; returns the number of gold lines."""
    with transaction.atomic():
        # The row lock serialises two gold imports of the same dataset.
        dataset = Dataset.objects.select_for_update().get(pk=dataset.pk)
        if GoldAnswer.objects.filter(item__dataset=dataset).exists():
            raise Refused(
                [Problem("dataset", _("dataset “%(name)s” already has gold; it is never replaced") % {"name": dataset.name}, file=gold.name)]
            )
        inputs = list(dataset.items.order_by("ordinal").values_list("payload", flat=True))
        records, problems = check_gold(dataset.subtask, gold.data, gold.name, inputs)
        problems += _storage_problems(gold.name, read_jsonl(gold.data, gold.name)[0])
        if problems:
            raise Refused(problems)
        _create_gold(dataset, records)
        dataset.gold_synthetic = gold_synthetic
        dataset.save(update_fields=["gold_synthetic"])
    return len(records)


def _storage_problems(filename: str, lines: list[Line]) -> list[Problem]:
    """What the schema allows but the database columns cannot hold."""
    problems = []
    for line in lines:
        for field in unstorable_fields(line.record):
            problems.append(Problem(field, UNSTORABLE, "unstorable", file=filename, line=line.number))
    if len(filename) > Dataset._meta.get_field("source_filename").max_length:
        problems.append(Problem("file", _("the file name is too long"), file=filename))
    max_id = Item._meta.get_field("external_id").max_length
    for line in lines:
        item_id = line.record.get("id")
        if isinstance(item_id, str) and len(item_id) > max_id:
            problems.append(Problem("id", _("longer than %(max)d characters") % {"max": max_id}, file=filename, line=line.number))
    return problems


def _sound_records(lines: list[Line], problems: list[Problem]) -> list[dict]:
    bad_lines = {problem.line for problem in problems}
    return [line.record for line in lines if line.number not in bad_lines]


def _create_gold(dataset: Dataset, records: list[dict]) -> None:
    item_ids = dict(dataset.items.values_list("external_id", "id"))
    GoldAnswer.objects.bulk_create(
        (GoldAnswer(item_id=item_ids[record["id"]], payload=record) for record in records),
        batch_size=BATCH_SIZE,
    )


def _name_problems(name: str) -> list[Problem]:
    max_length = Dataset._meta.get_field("name").max_length
    if not name.strip():
        return [Problem("dataset", _("a dataset needs a name"))]
    if len(name) > max_length:
        return [Problem("dataset", _("a dataset name has at most %(max)d characters") % {"max": max_length})]
    if Dataset.objects.filter(name=name).exists():
        return [_dataset_exists(name)]
    return []


def _dataset_exists(name: str) -> Problem:
    return Problem("dataset", _("a dataset named “%(name)s” exists already; choose another name") % {"name": name})
