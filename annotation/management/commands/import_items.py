from django.core.management.base import BaseCommand

from annotation.management.commands._common import read_source, refuse_with_problems
from annotation.services.importing import ImportRefused, import_dataset
from scoring.subtasks import SUBTASK_KEYS


class Command(BaseCommand):
    help = (
        "Create a dataset from an inputs JSONL file (and optionally its gold). Every line is "
        "checked; on any problem nothing is imported, every problem is listed and the exit code is 1."
    )

    def add_arguments(self, parser):
        parser.add_argument("subtask", choices=SUBTASK_KEYS)
        parser.add_argument("inputs", help="inputs JSONL file")
        parser.add_argument("--dataset", required=True, help="name of the new dataset")
        parser.add_argument("--gold", help="gold JSONL file of the same items")
        parser.add_argument(
            "--gold-synthetic", action="store_true", help="the gold is synthetic: never report a score"
        )

    def handle(self, *args, **options):
        try:
            dataset = import_dataset(
                subtask=options["subtask"],
                name=options["dataset"],
                inputs=read_source(options["inputs"]),
                gold=read_source(options["gold"]) if options["gold"] else None,
                gold_synthetic=options["gold_synthetic"],
            )
        except ImportRefused as refused:
            raise refuse_with_problems(self.stderr, refused.problems, "nothing imported") from None
        gold_count = dataset.items.filter(gold__isnull=False).count()
        synthetic = " (synthetic)" if dataset.gold_synthetic else ""
        self.stdout.write(
            f"Imported {dataset.items.count()} items into {dataset.name} ({dataset.subtask}), "
            f"{gold_count} gold answers{synthetic}."
        )
