from django.core.management.base import CommandError

from annotation.datasets.assigning import assign, release_items
from annotation.management.commands._common import DataCommand, dataset_named, user_named, users_named


class Command(DataCommand):
    help = (
        "Assign a dataset's items to annotators, K distinct annotators per item, balanced, each "
        "annotator in their own deterministic order. Re-running only adds. --release USER moves a "
        "departed annotator's unanswered items to the others (or to --annotators)."
    )
    refused_outcome = "nothing assigned"

    def add_arguments(self, parser):
        parser.add_argument("dataset", type=dataset_named, help="dataset name")
        parser.add_argument("--annotators", type=users_named, help="comma-separated usernames")
        parser.add_argument("--per-item", type=int, help="annotators per item (K)")
        parser.add_argument(
            "--release", dest="departed", type=user_named, metavar="USER", help="username of an annotator who left"
        )

    def run(self, *, dataset, annotators, per_item, departed, **options):
        if departed is not None:
            result = release_items(dataset, departed, annotators)
        elif annotators is None or per_item is None:
            raise CommandError("give --annotators and --per-item (or --release USER)")
        else:
            result = assign(dataset, annotators, per_item)
        for username, count in sorted(result.removed.items()):
            self.stdout.write(f"{username}: {count} unanswered items released")
        for username, count in sorted(result.added.items()):
            self.stdout.write(f"{username}: {count} items added")
        self.stdout.write(f"{result.total_added} assignments added to {dataset.name}.")
