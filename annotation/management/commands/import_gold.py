from annotation.datasets.importing import import_gold
from annotation.management.commands._common import DataCommand, dataset_named, source_file


class Command(DataCommand):
    help = "Add the gold of an existing dataset that has none yet. All or nothing; exit code 1 on any problem."
    refused_outcome = "no gold imported"

    def add_arguments(self, parser):
        parser.add_argument("dataset", type=dataset_named, help="dataset name")
        parser.add_argument("gold", type=source_file, help="gold JSONL file")
        parser.add_argument(
            "--gold-synthetic", action="store_true", help="the gold is synthetic: never report a score"
        )

    def run(self, *, dataset, gold, gold_synthetic, **options):
        count = import_gold(dataset=dataset, gold=gold, gold_synthetic=gold_synthetic)
        self.stdout.write(f"Imported {count} gold answers into {dataset.name}.")
