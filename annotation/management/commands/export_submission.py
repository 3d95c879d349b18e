from django.core.management.base import CommandError

from annotation.management.commands._common import DataCommand, dataset_named
from annotation.results.exporting import FILLS, FORMATS, build_export, write_export
from annotation.training.selectors import below_control_threshold


class Command(DataCommand):
    help = (
        "Write one source of a dataset's answers to a file: annotator:NAME (their submitted "
        "answers), majority (what `python -m scoring majority` gives for the annotators' exports; "
        "--fill adjudicated fills the items without one from the adjudications), dawid-skene (what "
        "`python -m scoring dawid-skene` gives for them; not for numerals and discourse), adjudicated (the "
        "common answer where the annotators agreed, else the adjudication) or all (every submitted answer with its metadata, jsonl or csv). Submissions are in input "
        "order and checked as `python -m scoring validate --partial --inputs` does; the items left "
        "out are listed on stderr with the reason (withdrawn items are in no export), the filled ones "
        "too; an export that leaves out more than withdrawn items is said to be incomplete. The file "
        "appears only when fully written."
    )
    refused_outcome = "nothing written"

    def add_arguments(self, parser):
        parser.add_argument("dataset", type=dataset_named, help="dataset name")
        parser.add_argument("--source", required=True, help="annotator:NAME, majority, dawid-skene, adjudicated or all")
        parser.add_argument("--fill", choices=FILLS, help="majority only: fill the items without a majority")
        parser.add_argument("--format", choices=FORMATS, default="jsonl", help="csv only for --source all")
        parser.add_argument("--exclude-below-control", action="store_true",
                            help="majority, dawid-skene and adjudicated only: without the answers of the annotators below the "
                            "control threshold (the report's option; they are named on stderr)")
        parser.add_argument("-o", "--output", required=True, help="file to write")

    def run(self, *, dataset, source, format, fill, output, exclude_below_control, **options):
        excluded = below_control_threshold(dataset) if exclude_below_control else []
        export = build_export(dataset, source, format, fill, excluded=excluded)
        try:
            write_export(export, output)
        except OSError as error:
            raise CommandError(f"cannot write {output}: {error.strerror}") from None
        if exclude_below_control:
            self.stderr.write(f"left out, below the control threshold: {', '.join(excluded) or 'nobody'}")
        for external_id, reason in export.left_out:
            self.stderr.write(f"left out: {external_id}: {reason}")
        for external_id, reason in export.filled:
            self.stderr.write(f"filled from {fill}: {external_id}: {reason}")
        for external_id in export.pilot:
            self.stderr.write(f"pilot item: {external_id}")
        filled = f", {len(export.filled)} filled from {fill}" if fill else ""
        self.stdout.write(
            f"Wrote {export.n_records} records of {source} to {output}; {len(export.left_out)} items left out{filled}"
            + ("." if export.complete else "; the export is incomplete.")
        )
