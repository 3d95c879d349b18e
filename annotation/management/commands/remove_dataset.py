from annotation.datasets import removing
from annotation.management.commands._common import DataCommand, dataset_named, user_named


class Command(DataCommand):
    help = (
        "Delete, archive or restore a dataset or a pool (a pool is named as a dataset, e.g. test-A.training), "
        "as the dataset's removal page does. --delete only while nothing depends on it (no answers, training "
        "answers or adjudications); --archive keeps it whole but out of the lists, campaigns and service; "
        "--restore brings it back. Without an action it prints what would go. Every change is recorded "
        "(--by: who). Exit code 1 on a refusal, nothing changed."
    )
    refused_outcome = "nothing changed"

    def add_arguments(self, parser):
        parser.add_argument("dataset", type=dataset_named, help="dataset or pool name")
        action = parser.add_mutually_exclusive_group()
        for name in ("delete", "archive", "restore"):
            action.add_argument(f"--{name}", dest="action", action="store_const", const=name)
        parser.add_argument("--by", type=user_named, metavar="USER", help="the organizer recorded as doing it")

    def run(self, *, dataset, action, by, **options):
        if action is None:
            plan = removing.removal(dataset)
            counts = ", ".join(f"{key} {value}" for key, value in plan.counts.items())
            self.stdout.write(
                f"{dataset.name}: answers {plan.answers}, training answers {plan.training_answers}, "
                f"adjudications {plan.adjudications}; {counts}; campaigns: {', '.join(plan.campaigns) or 'none'}\n"
                f"{'--delete or --archive' if plan.deletable else 'it holds work: --archive only'}"
                f"{'; archived (--restore)' if dataset.archived_at else ''}"
            )
            return
        done = {"delete": removing.delete, "archive": removing.archive, "restore": removing.restore}[action](
            dataset, by=by)
        self.stdout.write(f"{done.kind} {done.name} {done.action}.")
