from annotation.management.commands._common import DataCommand, source_file
from annotation.services.importing import import_dataset
from scoring.subtasks import SUBTASK_KEYS


class Command(DataCommand):
    help = (
        "Create a dataset from an inputs JSONL file (and optionally its gold). Every line is "
        "checked; on any problem nothing is imported, every problem is listed and the exit code is 1."
    )
    refused_outcome = "nothing imported"

    def add_arguments(self, parser):
        parser.add_argument("subtask", choices=SUBTASK_KEYS)
        parser.add_argument("inputs", type=source_file, help="inputs JSONL file")
        parser.add_argument("--dataset", required=True, help="name of the new dataset")
        parser.add_argument("--gold", type=source_file, help="gold JSONL file of the same items")
        parser.add_argument(
            "--gold-synthetic", action="store_true", help="the gold is synthetic: never report a score"
        )

    def run(self, *, subtask, inputs, gold, gold_synthetic, **options):
        dataset = import_dataset(
            subtask=subtask, name=options["dataset"], inputs=inputs, gold=gold, gold_synthetic=gold_synthetic
        )
        gold_count = dataset.items.filter(gold__isnull=False).count()
        synthetic = " (synthetic)" if dataset.gold_synthetic else ""
        self.stdout.write(
            f"Imported {dataset.items.count()} items into {dataset.name} ({dataset.subtask}), "
            f"{gold_count} gold answers{synthetic}."
        )
