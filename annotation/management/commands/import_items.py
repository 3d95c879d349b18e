from django.core.management.base import CommandError

from annotation.datasets.importing import import_dataset
from annotation.management.commands._common import DataCommand, dataset_named, source_file
from annotation.training.services import import_pool
from scoring.subtasks import SUBTASKS


class Command(DataCommand):
    help = (
        "Create a dataset from an inputs JSONL file (and optionally its gold), or, with "
        "--training-for or --control-for, the training or control pool of a dataset (gold "
        "required; a gold line may carry an 'explanation' shown with the training feedback). "
        "Every line is checked; on any problem nothing is imported, every problem is listed and "
        "the exit code is 1."
    )
    refused_outcome = "nothing imported"

    def add_arguments(self, parser):
        parser.add_argument("subtask", choices=list(SUBTASKS))
        parser.add_argument("inputs", type=source_file, help="inputs JSONL file")
        parser.add_argument("--dataset", help="name of the new dataset (a pool: default DATASET.training or .control)")
        parser.add_argument("--gold", type=source_file, help="gold JSONL file of the same items")
        parser.add_argument(
            "--gold-synthetic", action="store_true", help="the gold is synthetic: never report a score"
        )
        parser.add_argument(
            "--gold-partial", action="store_true", help="the gold leaves some items without gold (add it later)"
        )
        pool = parser.add_mutually_exclusive_group()
        pool.add_argument("--training-for", type=dataset_named, metavar="DATASET",
                          help="import the training pool of DATASET")
        pool.add_argument("--control-for", type=dataset_named, metavar="DATASET",
                          help="import the control pool of DATASET")
        parser.add_argument("--replace", action="store_true",
                            help="replace DATASET's pool of that kind (only while no one has started it)")

    def run(self, *, subtask, inputs, gold, gold_synthetic, gold_partial, training_for, control_for, **options):
        served = training_for or control_for
        if served is not None:
            kind = "training" if training_for else "control"
            dataset = import_pool(
                kind=kind, dataset=served, subtask=subtask, name=options["dataset"], inputs=inputs, gold=gold,
                replace=options["replace"],
            )
            self.stdout.write(
                f"Imported {dataset.items.count()} items into {dataset.name}, the {kind} pool of {served.name}, "
                f"{dataset.items.filter(explanation__isnull=False).count()} with an explanation."
            )
            return
        if options["replace"]:
            raise CommandError("--replace replaces a pool: give --training-for or --control-for", returncode=2)
        if not options["dataset"]:
            raise CommandError("--dataset is required (unless --training-for or --control-for)", returncode=2)
        dataset = import_dataset(
            subtask=subtask, name=options["dataset"], inputs=inputs, gold=gold, gold_synthetic=gold_synthetic,
            gold_partial=gold_partial,
        )
        gold_count = dataset.items.filter(gold__isnull=False).count()
        synthetic = " (synthetic)" if dataset.gold_synthetic else ""
        self.stdout.write(
            f"Imported {dataset.items.count()} items into {dataset.name} ({dataset.subtask}), "
            f"{gold_count} gold answers{synthetic}."
        )
