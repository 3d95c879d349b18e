import json

from annotation.datasets.auditing import audit_posteriors, audit_queue, export_decisions, queue_record
from annotation.management.commands._common import DataCommand, dataset_named
from annotation.models import Dataset
from annotation.results.exporting import write_atomically
from scoring.jsonl import jsonl_bytes


class Command(DataCommand):
    help = (
        "List a dataset's gold audit queue (and its training and control pools'): the items whose "
        "annotators agree against the gold, most unanimous first, with their state; --export FILE "
        "writes every decision with its reason (JSONL) for the benchmark's maintainers."
    )

    def add_arguments(self, parser):
        parser.add_argument("dataset", type=dataset_named, help="dataset name (not a pool: its pools come with it)")
        parser.add_argument("--export", metavar="FILE", help="write the decisions to FILE (JSON lines)")
        parser.add_argument("--json", action="store_true", help="print the queue as one JSON object")

    def run(self, *, dataset, export, json: bool, **options):
        if export:
            records = export_decisions(dataset)
            write_atomically(export, jsonl_bytes(records))
            self.stdout.write(f"{len(records)} decisions written to {export}")
            return
        queues = {}
        for source in [dataset, *Dataset.objects.filter(pool_of=dataset, archived_at__isnull=True).order_by("pool_kind")]:
            queues[source.pool_kind or "dataset"] = [queue_record(audited)
                                                   for audited in audit_queue(source, audit_posteriors(source))]
        if json:
            self.stdout.write(dumps(queues))
            return
        for kind, rows in queues.items():
            self.stdout.write(f"{kind}: {len(rows)} items")
            for row in rows:
                self.stdout.write(f"  {row['id']}\t{row['state']}\t{row['agreeing']}/{row['submitted']} {row['entered_by'] or ''}")


def dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
