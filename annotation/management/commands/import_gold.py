from django.core.management.base import BaseCommand

from annotation.management.commands._common import (
    get_dataset,
    read_source,
    refuse_with_problems,
)
from annotation.services.importing import ImportRefused, import_gold


class Command(BaseCommand):
    help = "Add the gold of an existing dataset that has none yet. All or nothing; exit code 1 on any problem."

    def add_arguments(self, parser):
        parser.add_argument("dataset", help="dataset name")
        parser.add_argument("gold", help="gold JSONL file")
        parser.add_argument(
            "--gold-synthetic", action="store_true", help="the gold is synthetic: never report a score"
        )

    def handle(self, *args, **options):
        dataset = get_dataset(options["dataset"])
        try:
            count = import_gold(
                dataset=dataset, gold=read_source(options["gold"]), gold_synthetic=options["gold_synthetic"]
            )
        except ImportRefused as refused:
            raise refuse_with_problems(self.stderr, refused.problems, "no gold imported") from None
        self.stdout.write(f"Imported {count} gold answers into {dataset.name}.")
