from django.core.management.base import CommandError

from annotation.management.commands._common import DataCommand, campaign_named, dataset_named
from annotation.report_formats import FORMATS, campaign_file, report_file
from annotation.report_plots import report_plots
from annotation.selectors.report import DEFAULT_SEED, campaign_report, dataset_report
from annotation.services.exporting import write_atomically


class Command(DataCommand):
    help = (
        "Print (or write with -o) the human-baseline report of a dataset, or the campaign table of a "
        "campaign, as the report page and GET /api/.../report give it: scores by the scorer on the exported "
        "sources with 95% intervals (1,000 resamples, --seed), agreement, time, models beside humans."
    )
    refused_outcome = "no report"

    def add_arguments(self, parser):
        target = parser.add_mutually_exclusive_group(required=True)
        target.add_argument("dataset", nargs="?", type=dataset_named, help="dataset name")
        target.add_argument("--campaign", type=campaign_named, help="campaign name: the campaign table")
        parser.add_argument("--format", choices=FORMATS, default="json")
        parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the resamples (default 0)")
        parser.add_argument("-o", "--output", help="file to write (written whole, then renamed into place)")

    def run(self, *, dataset, campaign, format, seed, output, **options):
        if campaign is not None:
            text = campaign_file(campaign_report(campaign, seed=seed), format)
        else:
            report = dataset_report(dataset, seed=seed)
            text = report_file(report, report_plots(report) if format != "json" else [], format)
            if report["gold_synthetic"]:
                self.stderr.write(f"warning: the gold of {dataset.name} is synthetic: not a human baseline")
        if not text.endswith("\n"):
            text += "\n"
        if output is None:
            self.stdout.write(text, ending="")
            return
        try:
            write_atomically(output, text.encode("utf-8"))
        except OSError as error:
            raise CommandError(f"cannot write {output}: {error.strerror}") from None
