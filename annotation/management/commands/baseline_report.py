from pathlib import Path

from django.core.management.base import CommandError

from annotation.management.commands._common import DataCommand, campaign_named, dataset_named
from annotation.results.exporting import write_atomically
from annotation.results.formats import FORMATS, campaign_file, report_file
from annotation.results.plots import report_plots
from annotation.results.report import DEFAULT_SEED, TEST_ROUNDS, campaign_report, dataset_report


class Command(DataCommand):
    help = (
        "Print (or write with -o) the human-baseline report of a dataset, or the campaign table of a "
        "campaign, as the report page and GET /api/.../report give it: scores by the scorer on the exported "
        "sources with 95% intervals (1,000 resamples, --seed), agreement, time, models beside humans on the "
        "same items with paired tests (--test-rounds)."
    )
    refused_outcome = "no report"

    def add_arguments(self, parser):
        target = parser.add_mutually_exclusive_group(required=True)
        target.add_argument("dataset", nargs="?", type=dataset_named, help="dataset name")
        target.add_argument("--campaign", type=campaign_named, help="campaign name: the campaign table")
        parser.add_argument("--format", choices=FORMATS, default="json")
        parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the resamples (default 0)")
        parser.add_argument("--exclude-below-control", action="store_true",
                            help="leave the annotators below the control threshold out of majority and adjudicated")
        parser.add_argument("--test-rounds", type=int, default=TEST_ROUNDS,
                            help=f"rounds of the paired randomization test of a pooled source and a model (default {TEST_ROUNDS})")
        parser.add_argument("-o", "--output", help="file to write (written whole, then renamed into place)")

    def run(self, *, dataset, campaign, format, seed, output, exclude_below_control, test_rounds, **options):
        if test_rounds < 0:
            raise CommandError(f"--test-rounds must be 0 or more, not {test_rounds}")
        computing = {"seed": seed, "exclude_below_control": exclude_below_control, "test_rounds": test_rounds}
        if campaign is not None:
            text = campaign_file(campaign_report(campaign, **computing), format)
        else:
            report = dataset_report(dataset, **computing)
            plots = report_plots(report) if format != "json" else []
            # Written beside the report, the plots are pictures in its Markdown.
            plot_files = {plot.key: plot_filename(output, plot.key) for plot in plots} if output and format == "md" else {}
            for plot in plots:
                if plot.key in plot_files:
                    self.write_file(Path(output).parent / plot_files[plot.key], plot.svg)
            text = report_file(report, plots, format, plot_files)
            if report["gold_synthetic"]:
                self.stderr.write(f"warning: the gold of {dataset.name} is synthetic: not a human baseline")
        if not text.endswith("\n"):
            text += "\n"
        if output is None:
            self.stdout.write(text, ending="")
            return
        self.write_file(Path(output), text)

    def write_file(self, path: Path, text: str) -> None:
        try:
            write_atomically(path, text.encode("utf-8"))
        except OSError as error:
            raise CommandError(f"cannot write {path}: {error.strerror}") from None


def plot_filename(output: str, key: str) -> str:
    """``report.md`` and plot ``scores`` -> ``report.scores.svg`` (a key's ``:`` as ``-``)."""
    return f"{Path(output).stem}.{key.replace(':', '-')}.svg"
