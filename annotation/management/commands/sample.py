from django.core.management.base import CommandError

from annotation.datasets.sampling import preview_sample, sample_ids, set_sample
from annotation.management.commands._common import DataCommand, dataset_named


class Command(DataCommand):
    help = (
        "Set a dataset's seeded sample, the items its annotators are given: --size n --seed S "
        "[--stratify FIELD] (the draw of `python -m scoring sample`), or --all. The allocation per "
        "stratum is printed; --dry-run prints it and changes nothing. --ids prints the sample's ids."
    )
    refused_outcome = "the sample is unchanged"

    def add_arguments(self, parser):
        parser.add_argument("dataset", type=dataset_named, help="dataset name")
        parser.add_argument("--size", type=int, metavar="n", help="how many items the sample holds")
        parser.add_argument("--seed", type=int, metavar="S", help="seed of the permutation (0 or more)")
        parser.add_argument("--stratify", default="", metavar="FIELD", help="a top-level field of the input records")
        parser.add_argument("--all", dest="every_item", action="store_true", help="no sample: every item is given")
        parser.add_argument("--dry-run", action="store_true", help="show the allocation, change nothing")
        parser.add_argument("--ids", action="store_true", help="print the ids of the dataset's sample, one a line")

    def run(self, *, dataset, size, seed, stratify, every_item, dry_run, ids, **options):
        if ids:
            self.stdout.write("".join(f"{item_id}\n" for item_id in sample_ids(dataset)), ending="")
            return
        if every_item:
            if size is not None or seed is not None or stratify:
                raise CommandError("--all takes no --size, --seed or --stratify")
            if not dry_run:
                set_sample(dataset, None)
            self.stdout.write(f"{dataset.name}: every item is given")
            return
        if size is None or seed is None or size < 0 or seed < 0:
            raise CommandError("give --size n and --seed S, both 0 or more (or --all)")
        drawn = preview_sample(dataset, size, seed, stratify) if dry_run else set_sample(dataset, size, seed, stratify)
        for stratum in drawn.strata:
            self.stdout.write(f"{stratify} = {stratum.value}: {stratum.sample_size} of {stratum.size}")
        outcome = "would be" if dry_run else "is"
        self.stdout.write(f"{dataset.name}: the sample {outcome} {len(drawn.ids)} of {dataset.items.count()} items")
