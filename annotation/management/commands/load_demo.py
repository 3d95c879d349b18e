import json
from collections.abc import Collection
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import Group, User
from django.core.management.base import CommandError
from django.db import transaction

from annotation.core.files import SourceFile
from annotation.core.roles import ADJUDICATOR, ANNOTATOR, ORGANIZER
from annotation.datasets.assigning import assign
from annotation.datasets.importing import import_dataset
from annotation.demo_answers import submit_demo_answers
from annotation.management.commands._common import DataCommand, source_file
from annotation.models import Dataset
from annotation.training.selectors import pool
from annotation.training.services import EXPLANATION_FIELD, import_pool, set_qualification
from scoring.subtasks import SUBTASKS

DEMO_PASSWORD = "polis-demo"
DEMO_USERS = (
    ("organizer", ORGANIZER),
    ("adjudicator", ADJUDICATOR),
    ("annotator1", ANNOTATOR),
    ("annotator2", ANNOTATOR),
    ("annotator3", ANNOTATOR),
)
# The demo raters have already answered the "demo-answered-*" datasets (so that agreement
# and adjudication have something to show); the demo annotators' own queues stay fresh.
DEMO_RATERS = ("rater1", "rater2", "rater3")
PER_ITEM = 3
# Per subtask, the demo dataset's training pool (sample items with an explanation each) and
# control pool (sample items), taken out of the dataset's own items, with the threshold and
# the control rate and seed (demo/pools.json).
DEMO_POOLS = settings.BASE_DIR / "demo" / "pools.json"


class Command(DataCommand):
    help = (
        "Demo only: create demo accounts (one organizer, one adjudicator, three annotators), import "
        "the sample data of every subtask (that has a folder of it) with its gold and assign each dataset to the three "
        "annotators (some datasets with a training and a control pool: demo/pools.json); import it "
        "once more as demo-answered-<subtask>, answered by three demo raters with realistic "
        "disagreements. Running it again adds only what is missing."
    )
    refused_outcome = "the demo is not loaded"

    def add_arguments(self, parser):
        parser.add_argument(
            "--data",
            default=str(settings.BASE_DIR / "demo" / "data"),
            help="folder with one sub-folder per subtask (default: demo/data)",
        )
        parser.add_argument(
            "--pools",
            default=str(DEMO_POOLS),
            help="the training and control pools of the demo datasets (default: demo/pools.json)",
        )

    def run(self, *, data, pools, **options):
        data_dir = Path(data)
        pool_specs = json.loads(Path(pools).read_text(encoding="utf-8"))
        # Every registered subtask with a folder of sample data (a subtask may come without one).
        subtasks = [key for key in SUBTASKS if (data_dir / key).is_dir()]
        with transaction.atomic():
            users = {username: self._user(username, role) for username, role in DEMO_USERS}
            annotators = [users[username] for username, role in DEMO_USERS if role == ANNOTATOR]
            for subtask in subtasks:
                spec = pool_specs.get(subtask)
                pooled = _pooled_ids(spec) if spec else set()
                dataset = self._dataset(data_dir / subtask, subtask, users["organizer"], leave_out=pooled)
                if spec:
                    # Before the assignment: control items are interleaved as queues are made.
                    self._pools(dataset, data_dir / subtask, spec, users["organizer"])
                result = assign(dataset, annotators, PER_ITEM)
                self.stdout.write(f"  {dataset.name}: {result.total_added} assignments added")
            raters = [self._user(username, ANNOTATOR) for username in DEMO_RATERS]
            for subtask in subtasks:
                dataset = self._dataset(data_dir / subtask, subtask, users["organizer"], f"demo-answered-{subtask}")
                added = submit_demo_answers(dataset, raters)
                self.stdout.write(f"  {dataset.name}: {added} answers of the demo raters added")
        self.stdout.write("Demo accounts (demo only; never use these on a real server):")
        for username, role in DEMO_USERS:
            self.stdout.write(f"  {username:<12} {role:<12} password: {DEMO_PASSWORD}")
        self.stdout.write(f"  {', '.join(DEMO_RATERS)}: annotators who have answered the demo-answered-* datasets")

    def _user(self, username: str, role: str) -> User:
        user, _created = User.objects.get_or_create(username=username)
        user.is_staff = role == ORGANIZER
        user.set_password(DEMO_PASSWORD)
        user.save()
        user.groups.set([Group.objects.get_or_create(name=role)[0]])
        return user

    def _dataset(
        self, folder: Path, subtask: str, organizer: User, name: str | None = None, leave_out: Collection[str] = ()
    ) -> Dataset:
        """The dataset of the folder's sample items, imported unless it exists; without the
        items whose ids are in ``leave_out`` (the items of its pools)."""
        name = name or f"demo-{subtask}"
        existing = Dataset.objects.filter(name=name).first()
        if existing is not None:
            self.stdout.write(f"{name}: exists, kept")
            return existing
        inputs, gold = _sample_files(folder)
        if leave_out:
            inputs, gold = (
                _jsonl(path.name, [line for item_id, line in _lines_by_id(path).items() if item_id not in leave_out])
                for path in (inputs, gold)
            )
        else:
            inputs, gold = source_file(str(inputs)), source_file(str(gold))
        dataset = import_dataset(
            subtask=subtask,
            name=name,
            inputs=inputs,
            gold=gold,
            # The sample data names synthetic gold so (dev.SYNTHETIC-gold.jsonl).
            gold_synthetic="SYNTHETIC" in gold.name,
            created_by=organizer,
        )
        self.stdout.write(f"{name}: {dataset.items.count()} items imported")
        return dataset

    def _pools(self, dataset: Dataset, folder: Path, spec: dict, organizer: User) -> None:
        """The dataset's training and control pools, each imported unless it exists, in the
        order of ``spec``; the threshold and the control settings come with the pools."""
        if dataset.items.filter(external_id__in=_pooled_ids(spec)).exists():
            # A demo loaded before it had pools holds their items: a pool may share none.
            self.stdout.write(f"  {dataset.name}: holds the pools' items, so no pools are added "
                              "(load the demo into a new database to have them)")
            return
        inputs, gold = _sample_files(folder)
        inputs_by_id, gold_by_id = _lines_by_id(inputs), _lines_by_id(gold)
        explanations = {entry["id"]: entry["explanation"] for entry in spec["training"]}
        missing = sorted(_pooled_ids(spec) - (set(inputs_by_id) & set(gold_by_id)))
        if missing:
            raise CommandError(f"{folder}: no sample item with the pool's ids {', '.join(missing)}")
        added = False
        for kind, ids in ((Dataset.PoolKind.TRAINING, list(explanations)), (Dataset.PoolKind.CONTROL, spec["control"])):
            if pool(dataset, kind) is not None:
                continue
            gold_lines = [gold_by_id[item_id] for item_id in ids]
            if kind == Dataset.PoolKind.TRAINING:
                gold_lines = [{**line, EXPLANATION_FIELD: explanations[line["id"]]} for line in gold_lines]
            imported = import_pool(
                kind=kind, dataset=dataset, subtask=dataset.subtask, name=None,
                inputs=_jsonl(inputs.name, [inputs_by_id[item_id] for item_id in ids]),
                gold=_jsonl(gold.name, gold_lines), created_by=organizer,
            )
            added = True
            self.stdout.write(f"  {imported.name}: {imported.items.count()} items imported")
        if added:
            set_qualification(
                dataset, threshold=spec["threshold"], control_rate=spec["control_rate"], control_seed=spec["control_seed"],
            )


def _pooled_ids(spec: dict) -> set[str]:
    return {entry["id"] for entry in spec["training"]} | set(spec["control"])


def _sample_files(folder: Path) -> tuple[Path, Path]:
    inputs = sorted(folder.glob("dev.inputs.jsonl"))
    gold = sorted(folder.glob("dev.*gold.jsonl"))
    if len(inputs) != 1 or len(gold) != 1:
        raise CommandError(f"{folder} must hold dev.inputs.jsonl and one dev.*gold.jsonl file")
    return inputs[0], gold[0]


def _lines_by_id(path: Path) -> dict[str, dict]:
    """The sample file's lines by id, in file order (a sample file is small enough to read whole)."""
    lines = (json.loads(text) for text in path.read_text(encoding="utf-8").splitlines() if text.strip())
    return {line["id"]: line for line in lines}


def _jsonl(name: str, lines: list[dict]) -> SourceFile:
    data = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    return SourceFile(name=name, data=data.encode("utf-8"))
