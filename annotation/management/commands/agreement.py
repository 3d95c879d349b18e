from django.core.management.base import BaseCommand

from annotation.management.commands._common import get_dataset
from annotation.selectors.agreement import dataset_answers
from scoring.agreement import agreement_figures, figures_text


class Command(BaseCommand):
    help = (
        "Print how far the annotators of a dataset agree: exactly what `python -m scoring agreement` "
        "prints for the per-annotator exports of the dataset (one annotator = one file)."
    )

    def add_arguments(self, parser):
        parser.add_argument("dataset", help="dataset name")
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args, **options):
        dataset = get_dataset(options["dataset"])
        figures = agreement_figures(dataset.subtask, dataset_answers(dataset).table)
        self.stdout.write(figures_text(figures, options["json"]))
