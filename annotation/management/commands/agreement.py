from annotation.management.commands._common import DataCommand, dataset_named
from annotation.results.agreement import dataset_answers
from scoring.agreement import agreement_figures, figures_text


class Command(DataCommand):
    help = (
        "Print how far the annotators of a dataset agree: exactly what `python -m scoring agreement` "
        "prints for the per-annotator exports of the dataset (one annotator = one file)."
    )

    def add_arguments(self, parser):
        parser.add_argument("dataset", type=dataset_named, help="dataset name")
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def run(self, *, dataset, json, **options):
        figures = agreement_figures(dataset.subtask, dataset_answers(dataset).table)
        self.stdout.write(figures_text(figures, json))
