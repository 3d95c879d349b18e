from pathlib import Path

from django.core.management.base import CommandError

from annotation.management.commands._common import DataCommand, campaign_named
from annotation.results.exporting import write_atomically
from annotation.results.release import campaigned, current_table, release_files, zip_bytes, zip_folder
from annotation.results.report import DEFAULT_SEED


class Command(DataCommand):
    help = (
        "Write a campaign's release bundle as a zip: per subtask the inputs, every source's submission file and "
        "the complete items it is scored on, the models' submissions, every answer under its pseudonym with its "
        "active time, the adjudications, the sample; the guidelines as annotators saw them, the protocol, "
        "summary.json, a datasheet README, SHA-256 checksums, the scorer and reproduce.sh, which recomputes every "
        "number of summary.json from the bundle alone. The gold only with --with-gold."
    )
    refused_outcome = "no release bundle"

    def add_arguments(self, parser):
        parser.add_argument("--campaign", type=campaign_named, required=True, help="campaign name")
        parser.add_argument("-o", "--output", required=True, help="the zip file to write")
        parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the resamples (default 0)")
        parser.add_argument("--with-gold", action="store_true", help="put the gold into the bundle")

    def run(self, *, campaign, output, seed, with_gold, **options):
        table = current_table(campaign, seed)
        files = release_files(campaigned(campaign, table), with_gold=with_gold)
        try:
            write_atomically(Path(output), zip_bytes(files, zip_folder(campaign, "release")))
        except OSError as error:
            raise CommandError(f"cannot write {output}: {error.strerror}") from None
        self.stdout.write(f"{output}: {len(files)} files")
