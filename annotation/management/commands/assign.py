from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError

from annotation.management.commands._common import get_dataset, get_users
from annotation.services.assigning import AssignmentRefused, assign, release


class Command(BaseCommand):
    help = (
        "Assign a dataset's items to annotators, K distinct annotators per item, balanced, each "
        "annotator in their own deterministic order. Re-running only adds. --release USER moves a "
        "departed annotator's unanswered items to the others (or to --annotators)."
    )

    def add_arguments(self, parser):
        parser.add_argument("dataset", help="dataset name")
        parser.add_argument("--annotators", help="comma-separated usernames")
        parser.add_argument("--per-item", type=int, help="annotators per item (K)")
        parser.add_argument("--release", metavar="USER", help="username of an annotator who left")

    def handle(self, *args, **options):
        dataset = get_dataset(options["dataset"])
        annotators = get_users(options["annotators"]) if options["annotators"] else None
        try:
            if options["release"]:
                departed = User.objects.filter(username=options["release"]).first()
                if departed is None:
                    raise CommandError(f"no user named {options['release']}")
                result = release(dataset, departed, annotators)
            else:
                if annotators is None or options["per_item"] is None:
                    raise CommandError("give --annotators and --per-item (or --release USER)")
                result = assign(dataset, annotators, options["per_item"])
        except AssignmentRefused as refused:
            raise CommandError(str(refused)) from None
        for username, count in sorted(result.removed.items()):
            self.stdout.write(f"{username}: {count} unanswered items released")
        for username, count in sorted(result.added.items()):
            self.stdout.write(f"{username}: {count} items added")
        self.stdout.write(f"{result.total_added} assignments added to {dataset.name}.")
