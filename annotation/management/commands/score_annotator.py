import json

from django.core.management.base import CommandError

from annotation.management.commands._common import DataCommand, add_dataset_and_annotator
from annotation.models import GoldAnswer
from annotation.results.exporting import build_submission, jsonl_bytes
from scoring.evaluate import score_files


class Command(DataCommand):
    help = (
        "Score an annotator's submitted answers of a dataset against its gold, as "
        "`python -m scoring score --only-answered` does, and print the coverage. Synthetic gold "
        "is refused unless --synthetic-ok is given."
    )
    refused_outcome = "not scored"

    def add_arguments(self, parser):
        add_dataset_and_annotator(parser)
        parser.add_argument(
            "--synthetic-ok", action="store_true", help="score against synthetic gold (software tests only)"
        )

    def run(self, *, dataset, annotator, synthetic_ok, **options):
        if dataset.gold_synthetic and not synthetic_ok:
            raise CommandError(
                f"the gold of {dataset.name} is synthetic: a score against it means nothing "
                "(use --synthetic-ok to score anyway, for testing the software)"
            )
        gold = list(
            GoldAnswer.objects.filter(item__dataset=dataset).order_by("item__ordinal").values_list("payload", flat=True)
        )
        if not gold:
            raise CommandError(f"{dataset.name} has no gold")
        submission = build_submission(dataset, annotator)
        scored = score_files(
            dataset.subtask,
            jsonl_bytes(gold),
            f"{dataset.name}.gold.jsonl",
            submission.to_bytes(),
            submission.filename,
            only_answered=True,
        )
        if scored.errors:
            raise self.refuse(scored.errors)
        for fault in scored.answer_faults:
            self.stderr.write(str(fault))
        metrics = scored.metrics
        if dataset.gold_synthetic:
            self.stdout.write("WARNING: synthetic gold; this score tests the software and is never to be reported.")
        self.stdout.write(
            f"coverage: {metrics['n_gold']} of {metrics['n_gold_total']} gold items answered "
            f"({metrics['coverage']:.1%})"
        )
        self.stdout.write(f"score: {metrics['score']:.4f}")
        self.stdout.write(json.dumps(metrics, ensure_ascii=False, indent=2))
