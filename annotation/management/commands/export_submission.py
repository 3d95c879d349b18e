from django.core.management.base import CommandError

from annotation.management.commands._common import DataCommand, dataset_named
from annotation.services.exporting import FORMATS, build_export, write_export


class Command(DataCommand):
    help = (
        "Write one source of a dataset's answers to a file: annotator:NAME (their submitted "
        "answers), majority (what `python -m scoring majority` gives for the annotators' exports) "
        "or all (every submitted answer with its metadata, jsonl or csv). Submissions are in input "
        "order and checked as `python -m scoring validate --partial --inputs` does; the items left "
        "out are listed on stderr with the reason. The file appears only when complete."
    )
    refused_outcome = "nothing written"

    def add_arguments(self, parser):
        parser.add_argument("dataset", type=dataset_named, help="dataset name")
        parser.add_argument("--source", required=True, help="annotator:NAME, majority or all")
        parser.add_argument("--format", choices=FORMATS, default="jsonl", help="csv only for --source all")
        parser.add_argument("-o", "--output", required=True, help="file to write")

    def run(self, *, dataset, source, format, output, **options):
        export = build_export(dataset, source, format)
        try:
            write_export(export, output)
        except OSError as error:
            raise CommandError(f"cannot write {output}: {error.strerror}") from None
        for external_id, reason in export.left_out:
            self.stderr.write(f"left out: {external_id}: {reason}")
        self.stdout.write(
            f"Wrote {export.n_records} records of {source} to {output}; {len(export.left_out)} items left out."
        )
