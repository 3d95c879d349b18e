from django.core.management.base import CommandError

from annotation.management.commands._common import DataCommand, add_dataset_and_annotator
from annotation.services.exporting import build_submission, write_atomically


class Command(DataCommand):
    help = (
        "Write an annotator's submitted answers of a dataset as a submission JSONL file (input "
        "order), checked as `python -m scoring validate --partial` does. Unanswered items are "
        "listed on stderr. The file appears only when complete."
    )
    refused_outcome = "nothing written"

    def add_arguments(self, parser):
        add_dataset_and_annotator(parser)
        parser.add_argument("-o", "--output", required=True, help="file to write")

    def run(self, *, dataset, annotator, output, **options):
        submission = build_submission(dataset, annotator)
        try:
            write_atomically(output, submission.to_bytes())
        except OSError as error:
            raise CommandError(f"cannot write {output}: {error.strerror}") from None
        for external_id in submission.unanswered:
            self.stderr.write(f"unanswered: {external_id}")
        for external_id in submission.withdrawn:
            self.stderr.write(f"withdrawn, not exported: {external_id}")
        self.stdout.write(
            f"Wrote {len(submission.lines)} answers to {output}; "
            f"{len(submission.unanswered)} assigned items unanswered."
        )
