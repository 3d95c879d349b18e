from django.core.management.base import BaseCommand, CommandError

from annotation.management.commands._common import (
    get_dataset,
    get_user,
    refuse_with_problems,
)
from annotation.services.exporting import (
    ExportRefused,
    build_submission,
    write_atomically,
)


class Command(BaseCommand):
    help = (
        "Write an annotator's submitted answers of a dataset as a submission JSONL file (input "
        "order), checked as `python -m scoring validate --partial` does. Unanswered items are "
        "listed on stderr. The file appears only when complete."
    )

    def add_arguments(self, parser):
        parser.add_argument("dataset", help="dataset name")
        parser.add_argument("--annotator", required=True, help="username")
        parser.add_argument("-o", "--output", required=True, help="file to write")

    def handle(self, *args, **options):
        dataset = get_dataset(options["dataset"])
        annotator = get_user(options["annotator"])
        try:
            submission = build_submission(dataset, annotator)
        except ExportRefused as refused:
            raise refuse_with_problems(self.stderr, refused.problems, "nothing written") from None
        try:
            write_atomically(options["output"], submission.to_bytes())
        except OSError as error:
            raise CommandError(f"cannot write {options['output']}: {error.strerror}") from None
        for external_id in submission.unanswered:
            self.stderr.write(f"unanswered: {external_id}")
        self.stdout.write(
            f"Wrote {len(submission.lines)} answers to {options['output']}; "
            f"{len(submission.unanswered)} assigned items unanswered."
        )
