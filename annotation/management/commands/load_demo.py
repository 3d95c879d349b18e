from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import Group, User
from django.core.management.base import CommandError
from django.db import transaction

from annotation.management.commands._common import DataCommand, source_file
from annotation.models import Dataset
from annotation.roles import ADJUDICATOR, ANNOTATOR, ORGANIZER
from annotation.services.assigning import assign
from annotation.services.demo_answers import submit_demo_answers
from annotation.services.importing import import_dataset
from scoring.subtasks import SUBTASK_KEYS

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


class Command(DataCommand):
    help = (
        "Demo only: create demo accounts (one organizer, one adjudicator, three annotators), import "
        "the sample data of every subtask with its gold and assign each dataset to the three "
        "annotators; import it once more as demo-answered-<subtask>, answered by three demo raters "
        "with realistic disagreements. Running it again changes nothing."
    )
    refused_outcome = "the demo is not loaded"

    def add_arguments(self, parser):
        parser.add_argument(
            "--data",
            default=str(settings.BASE_DIR / "demo" / "data"),
            help="folder with one sub-folder per subtask (default: demo/data)",
        )

    def run(self, *, data, **options):
        data_dir = Path(data)
        with transaction.atomic():
            users = {username: self._user(username, role) for username, role in DEMO_USERS}
            annotators = [users[username] for username, role in DEMO_USERS if role == ANNOTATOR]
            for subtask in SUBTASK_KEYS:
                dataset = self._dataset(data_dir / subtask, subtask, users["organizer"])
                result = assign(dataset, annotators, PER_ITEM)
                self.stdout.write(f"  {dataset.name}: {result.total_added} assignments added")
            raters = [self._user(username, ANNOTATOR) for username in DEMO_RATERS]
            for subtask in SUBTASK_KEYS:
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

    def _dataset(self, folder: Path, subtask: str, organizer: User, name: str | None = None) -> Dataset:
        name = name or f"demo-{subtask}"
        existing = Dataset.objects.filter(name=name).first()
        if existing is not None:
            self.stdout.write(f"{name}: exists, kept")
            return existing
        inputs = sorted(folder.glob("dev.inputs.jsonl"))
        gold = sorted(folder.glob("dev.*gold.jsonl"))
        if len(inputs) != 1 or len(gold) != 1:
            raise CommandError(f"{folder} must hold dev.inputs.jsonl and one dev.*gold.jsonl file")
        dataset = import_dataset(
            subtask=subtask,
            name=name,
            inputs=source_file(str(inputs[0])),
            gold=source_file(str(gold[0])),
            # The sample data names synthetic gold so (dev.SYNTHETIC-gold.jsonl).
            gold_synthetic="SYNTHETIC" in gold[0].name,
            created_by=organizer,
        )
        self.stdout.write(f"{name}: {dataset.items.count()} items imported")
        return dataset
