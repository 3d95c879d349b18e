from pathlib import Path

from django.core.management.base import CommandError

from annotation.management.commands._common import DataCommand, campaign_named
from annotation.results.exporting import write_atomically
from annotation.results.paper import paper_files
from annotation.results.release import campaigned, current_table
from annotation.results.report import DEFAULT_SEED


class Command(DataCommand):
    help = (
        "Write a campaign's paper kit into a folder: paper.tex (a LaTeX section with blocks marked % BEGIN name / "
        "% END name, compiling with pdflatex, bibtex, pdflatex, pdflatex), paper.bib, figures/*.pdf and .svg, "
        "tables/*.csv, summary.json (every number of the text and tables) and checklist.md (the human-baseline "
        "checklist of Wei et al. 2025, filled from the data). Annotators are named A1..An; the campaign table is "
        "the newest finished computation of the data as it is, else computed now."
    )
    refused_outcome = "no paper kit"

    def add_arguments(self, parser):
        parser.add_argument("--campaign", type=campaign_named, required=True, help="campaign name")
        parser.add_argument("-o", "--output", required=True, help="folder to write the kit into (made if missing)")
        parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the resamples (default 0)")
        parser.add_argument("--no-anonymise", action="store_true", help="name annotators by username, not A1..An")
        parser.add_argument("--with-free-text", action="store_true",
                            help="add free_text.md: adjudication notes and flag comments, for review before publishing")

    def run(self, *, campaign, output, seed, no_anonymise, with_free_text, **options):
        table = current_table(campaign, seed)
        files = paper_files(campaigned(campaign, table, anonymise=not no_anonymise), with_free_text=with_free_text)
        write_files(Path(output), files)
        self.stdout.write(f"{len(files)} files written to {output}")
        if with_free_text:
            self.stderr.write("free_text.md holds what people wrote: review it before publishing anything of it")


def write_files(folder: Path, files: dict[str, bytes]) -> None:
    """Each file under ``folder`` (its folders made), written whole then renamed into place."""
    try:
        for name, data in files.items():
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(path, data)
    except OSError as error:
        raise CommandError(f"cannot write {error.filename or folder}: {error.strerror}") from None
