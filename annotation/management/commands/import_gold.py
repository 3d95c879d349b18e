from annotation.datasets.importing import import_gold
from annotation.management.commands._common import DataCommand, dataset_named, source_file


class Command(DataCommand):
    help = (
        "Add gold to an existing dataset: for every item, or with --partial for some (the rest later). "
        "A line equal to an item's gold is passed over; one that differs is refused (gold is never "
        "replaced here). All or nothing; exit code 1 on any problem."
    )
    refused_outcome = "no gold imported"

    def add_arguments(self, parser):
        parser.add_argument("dataset", type=dataset_named, help="dataset name")
        parser.add_argument("gold", type=source_file, help="gold JSONL file")
        parser.add_argument(
            "--gold-synthetic", action="store_true", help="the gold is synthetic: never report a score"
        )
        parser.add_argument("--partial", action="store_true", help="the gold leaves some items without gold")

    def run(self, *, dataset, gold, gold_synthetic, partial, **options):
        imported = import_gold(dataset=dataset, gold=gold, gold_synthetic=gold_synthetic, partial=partial)
        self.stdout.write(
            f"Imported {imported.added} gold answers into {dataset.name} ({imported.unchanged} already there, "
            f"{imported.missing} items still without gold)."
        )
