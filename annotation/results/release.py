"""A campaign's release bundle and what the paper kit shares with it: the files are made in
memory from the campaign table and the data; the one write is ``campaigned``'s, which gives a
pseudonym to whoever has none yet (annotation.results.pseudonyms), so it runs on POST or in a
command, never on GET.

The bundle holds, per subtask, the inputs, each source's submission file as its download holds
it and the complete items they are scored on (``--items``), the models' submissions, every
submitted answer under its pseudonym with its active time, the adjudications (without their
notes), the sample's ids and seed, the training and control record, the panel studies'
figures as given (studies.json), and the gold only when asked for; the guidelines as
annotators saw them, the campaign's protocol, summary.json, a datasheet README, a copy of the
scorer it was made with, reproduce.sh and reproduce.py (which recompute every number of
summary.json from the bundle alone, the studies' figures stated as given) and SHA256SUMS of
every file.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db.models import Q
from django.template.loader import render_to_string
from django.utils import translation

from annotation.accounts.pseudonyms import campaign_pseudonyms
from annotation.annotate.item_page import DEFAULT_GUIDELINE
from annotation.models import Adjudication, Campaign, CampaignProtocol, Dataset, StoredReportPart, Study
from annotation.results import selectors
from annotation.results.agreement import counted_items
from annotation.results.exporting import DatasetReads
from annotation.results.pseudonyms import pseudonymised, report_people
from annotation.results.report import Exported, campaign_report, gold_file, human_sources, items_filename, model_sources
from annotation.results.summary import campaign_summary, spans_hours
from annotation.studies.selectors import participant_rows, study_figures
from annotation.subtasks import part
from scoring.jsonl import jsonl_bytes

DATA = Path(__file__).resolve().parent / "data"

# A fixed time for every member of a zip: the same content makes the same bytes.
ZIP_TIME = (2025, 1, 1, 0, 0, 0)


def zip_bytes(files: dict[str, bytes], folder: str) -> bytes:
    """The files as a zip, each under ``folder/``, in name order."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            member = zipfile.ZipInfo(f"{folder}/{name}", ZIP_TIME)
            member.compress_type = zipfile.ZIP_DEFLATED
            member.external_attr = (0o755 if name.endswith(".sh") else 0o644) << 16
            archive.writestr(member, files[name])
    return out.getvalue()


def zip_folder(campaign: Campaign, kind: str) -> str:
    """The folder a zip's files sit in, and the zip's name: "<campaign>-<kind>", safe in a path."""
    return re.sub(r"[^\w.-]+", "-", campaign.name).strip(".-") + f"-{kind}"


def stored_table(campaign: Campaign, seed: int) -> dict | None:
    """The campaign table of the newest finished computation when it saw the data as it is now
    (the report as written: the API part keeps the key order), else None."""
    stored = selectors.newest_report(campaign=campaign, seed=seed, exclude_below_control=False, fields=())
    if stored is None or selectors.version_key(stored.seen) != selectors.version_key(selectors.campaign_version(campaign)):
        return None
    return json.loads(selectors.report_part(stored, StoredReportPart.Kind.API, ""))


def current_table(campaign: Campaign, seed: int) -> dict:
    """The campaign table of the data as it is: the newest finished computation's, else computed now."""
    return stored_table(campaign, seed) or campaign_report(campaign, seed=seed)


def campaign_studies(campaign: Campaign) -> list[Study]:
    """The panel studies of the campaign (its own, or one of its datasets'), by name."""
    return list(Study.objects.filter(Q(campaign=campaign) | Q(steps__dataset__campaigns=campaign)).distinct()
                .order_by("name"))


def protocol_facts(campaign: Campaign, studies: Iterable[Study] = ()) -> dict:
    """What the organizer entered in the campaign's protocol, as plain JSON values; where it
    says no pay, the pay of its panel studies when they all pay alike."""
    protocol = CampaignProtocol.objects.filter(campaign=campaign).first() or CampaignProtocol(campaign=campaign)
    pay = (protocol.pay_amount, protocol.pay_currency, protocol.pay_basis)
    offered = {(study.pay_amount, study.pay_currency, study.pay_basis) for study in studies}
    if protocol.pay_amount is None and len(offered) == 1:
        pay = offered.pop()
    amount, currency, basis = pay
    return {"recruitment": protocol.recruitment, "consent": protocol.consent, "demographics": protocol.demographics,
            "pay_amount": None if amount is None else float(amount), "pay_currency": currency, "pay_basis": basis}


def study_facts(study: Study) -> dict:
    """What the paper states of a panel study: its figures (annotation.studies.selectors, its
    counted participants only) and its pay, as the organizer's data give them; no panel id."""
    figures = study_figures(study, participant_rows(study))
    return {"study": study.name, **figures.as_json(), "pay_amount": str(study.pay_amount),
            "pay_currency": study.pay_currency, "pay_basis": study.pay_basis}


@dataclass
class Campaigned:
    """A campaign table under pseudonyms, with what the kit and the bundle read besides it."""

    campaign: Campaign
    table: dict  # the campaign table with every username replaced
    names: dict[str, str]  # username -> pseudonym (identity without anonymisation)
    datasets: dict[str, Dataset]  # subtask -> dataset
    times: dict[str, list[tuple]]  # subtask -> selectors.answer_times (usernames)
    protocol: dict
    summary: dict

    def name(self, username: str | None) -> str | None:
        return None if username is None else self.names.get(username, username)

    def named(self, dash: str = "..") -> str:
        """The names of the people with an answer that counts: "A1..A5" when they run from A1
        without a gap, else each (a panel study names its participants on entry, those who do
        not count too)."""
        names = sorted({self.name(row[0]) for rows in self.times.values() for row in rows}, key=lambda n: (len(n), n))
        if names and names == [f"A{number}" for number in range(1, len(names) + 1)]:
            return f"A1{dash}A{len(names)}"
        return ", ".join(names)


def campaigned(campaign: Campaign, table: dict, *, anonymise: bool = True) -> Campaigned:
    """The table with its people under their pseudonyms (given now to whoever has none yet),
    the answer times and the protocol, and summary.json's numbers."""
    datasets = {dataset.subtask: dataset for dataset in campaign.datasets.all()}
    times = {key: selectors.answer_times(dataset) for key, dataset in datasets.items()}
    adjudicators = set(Adjudication.objects.filter(item__dataset__in=datasets.values(), adjudicator__isnull=False)
                       .values_list("adjudicator__username", flat=True))
    people = report_people(table) | {row[0] for rows in times.values() for row in rows} | adjudicators
    names = campaign_pseudonyms(campaign, people) if anonymise else {name: name for name in people}
    shown = pseudonymised(table, names) if anonymise else table
    studies = campaign_studies(campaign)
    protocol = protocol_facts(campaign, studies)
    spans = spans_hours([(names[row[0]], row[3], row[4]) for rows in times.values() for row in rows])
    summary = campaign_summary(shown, protocol, spans, [study_facts(study) for study in studies])
    return Campaigned(campaign, shown, names, datasets, times, protocol, summary)


def guideline_html(subtask: str) -> str:
    """The guidelines of ``subtask`` exactly as the item page shows annotators them (in Polish),
    as a page of their own."""
    with translation.override("pl"):
        body = render_to_string(part(subtask, "GUIDELINE_TEMPLATE", DEFAULT_GUIDELINE))
    return (f'<!DOCTYPE html>\n<html lang="pl">\n<head><meta charset="utf-8"><title>{subtask}</title></head>\n'
            f"<body>\n{body}\n</body>\n</html>\n")


def scorer_files() -> dict[str, bytes]:
    """The scoring package the numbers were made with: its sources, schemas and README."""
    root = Path(settings.BASE_DIR)
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in sorted((root / "scoring").rglob("*"))
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"}


def _iso(moment) -> str:
    return moment.isoformat()


def subtask_files(kit: Campaigned, key: str, report: dict, with_gold: bool) -> tuple[dict[str, bytes], dict]:
    """One subtask's files (under ``key/``) and its part of manifest.json."""
    dataset = kit.datasets[key]
    reads = DatasetReads(dataset)
    files: dict[str, bytes] = {}
    gold_data, gold_name = gold_file(dataset)
    gold_path = f"{key}/{gold_name}"
    if with_gold:
        files[gold_path] = gold_data
    files[f"{key}/inputs.jsonl"] = jsonl_bytes(list(counted_items(dataset).values_list("payload", flat=True)))
    items_path = None
    if report["complete_items"] is not None:
        items_path = f"{key}/{items_filename(dataset)}"
        files[items_path] = "".join(f"{item}\n" for item in report["complete_items"]).encode()
    scored = {row["source"] for row in report["sources"] if row.get("available")}
    sources, annotators = [], []
    exported = [source for source in human_sources(reads) if isinstance(source, Exported)]
    for source in exported:
        name = pseudonymised(source.source, kit.names)
        path = f"{key}/sources/{pseudonymised(source.filename, kit.names)}"
        files[path] = source.data
        if source.kind == "annotator":
            annotators.append(path)
        if name in scored:
            units = "only-answered" if source.only_answered else "items"
            sources.append({"source": name, "kind": source.kind, "file": path, "units": units})
    models = []
    for model in model_sources(dataset):
        path = f"{key}/models/{model.filename}"
        files[path] = model.data
        if model.source in scored:
            sources.append({"source": model.source, "kind": "model", "file": path, "units": "all"})
            models.append({"name": model.name, "file": path})
    files[f"{key}/answers.jsonl"] = jsonl_bytes([
        {"annotator": kit.name(username), "id": external_id, "active_ms": active_ms, "started_at": _iso(started),
         "submitted_at": _iso(submitted)} for username, external_id, active_ms, started, submitted in kit.times[key]])
    files[f"{key}/adjudications.jsonl"] = jsonl_bytes([
        {"id": external_id, "answer": answer, "source": source, "adjudicator": kit.name(adjudicator),
         "decided_at": _iso(decided)}
        for external_id, answer, source, adjudicator, decided in Adjudication.objects.filter(item__dataset=dataset)
        .order_by("item__ordinal").values_list("item__external_id", "answer", "source", "adjudicator__username",
                                                "decided_at")])
    files[f"{key}/sample.json"] = _json(report["sample"])
    files[f"{key}/procedure.json"] = _json(report["procedure"])
    manifest = {
        "dataset": report["dataset"], "gold_synthetic": report["gold_synthetic"], "n_items": report["n_items"],
        "n_gold": report["n_gold"], "n_withdrawn": report["n_withdrawn"], "gold": gold_path, "gold_included": with_gold,
        "inputs": f"{key}/inputs.jsonl", "items": items_path, "sources": sources, "models": models,
        "annotators": annotators, "answers": f"{key}/answers.jsonl", "sample": f"{key}/sample.json",
        "procedure": f"{key}/procedure.json", "guidelines": f"guidelines/{key}.html",
    }
    return files, manifest


def _json(value) -> bytes:
    return (json.dumps(value, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def release_files(kit: Campaigned, *, with_gold: bool = False) -> dict[str, bytes]:
    """Every file of the release bundle, by its path in the bundle."""
    table = kit.table
    files: dict[str, bytes] = {}
    manifest = {key: table[key] for key in ("campaign", "seed", "resamples", "test_rounds", "confidence", "human_source")}
    manifest["subtasks"] = {}
    for report in table["datasets"]:
        key = report["subtask"]
        subtask, manifest["subtasks"][key] = subtask_files(kit, key, report, with_gold)
        files.update(subtask)
        files[f"guidelines/{key}.html"] = guideline_html(key).encode("utf-8")
    files["manifest.json"] = _json(manifest)
    files["summary.json"] = _json(kit.summary)
    files["protocol.json"] = _json(kit.protocol)
    files["studies.json"] = _json(kit.summary["studies"])
    files.update(scorer_files())
    files["reproduce.py"] = (DATA / "reproduce.py").read_bytes()
    files["reproduce.sh"] = (DATA / "reproduce.sh").read_bytes()
    files["README.md"] = datasheet(kit, manifest, with_gold).encode("utf-8")
    files["SHA256SUMS"] = "".join(f"{hashlib.sha256(data).hexdigest()}  {name}\n"
                                  for name, data in sorted(files.items())).encode()
    return files


def datasheet(kit: Campaigned, manifest: dict, with_gold: bool) -> str:
    """The bundle's README: what it holds, how it was collected, how to check it."""
    summary = kit.summary
    lines = [
        f"# {summary['campaign']}: human baseline release",
        "",
        "The human answers of a PoLiS human-baseline campaign, the files every reported score was computed "
        "from, and a script that recomputes every number of `summary.json` from this bundle alone.",
        "",
        "## Check it",
        "",
        "    ./reproduce.sh            # Python 3 with numpy, jsonschema and fastjsonschema",
        "    ./reproduce.sh --gold DIR # a bundle made without its gold: DIR holds the gold files",
        "",
        "It checks `SHA256SUMS`, scores every source with the bundled `scoring` package (the version the numbers "
        "were made with), recomputes time, completion, qualification and pay, and exits 0 when every number "
        "equals `summary.json`, 1 when a checksum or a number differs, 2 when the gold is missing.",
        "",
        "## What it holds",
        "",
        "- `summary.json`: every number of the paper, under stable keys; `manifest.json`: which file is what.",
        "- per subtask `<subtask>/`: `inputs.jsonl` (the items that count), `sources/` (each annotator's and "
        "each pooled source's submission file, as scored), the complete items the pooled sources are scored on "
        "(`--items`), `models/` (the models' submissions), `answers.jsonl` (every submitted answer: pseudonym, "
        "item, active milliseconds, started and submitted), `adjudications.jsonl` (without notes), "
        "`sample.json` (the sample's ids, size and seed), `procedure.json` (training, qualification, control)"
        + (", the gold" if with_gold else "; the gold is not included (made without `--with-gold`)") + ".",
        "- `guidelines/<subtask>.html`: the guidelines exactly as annotators saw them (in Polish).",
        "- `protocol.json`: recruitment, pay, consent and demographics as the organizer entered them.",
        "- `studies.json`: the panel studies' figures (participants, screened out, completion rate, median time, "
        "effective hourly pay), as the study's records give them: stated, not recomputed.",
        "- `scoring/`: the scorer; `reproduce.sh`, `reproduce.py`; `SHA256SUMS`.",
        "",
        "## How the data were collected",
        "",
        f"Annotators are named by pseudonyms ({kit.named()}), one per person for the whole campaign. "
        f"Scores are 95% percentile-bootstrap intervals ({summary['resamples']} resamples, seed {summary['seed']}); "
        f"the human source `{summary['human_source']}` is set beside each model on its complete items with a paired "
        f"randomization test ({summary['test_rounds']} rounds) and Holm's adjustment over each model's subtasks.",
        "",
        "| subtask | dataset | items | gold | served | annotators | answers | complete items |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for key, part_summary in summary["subtasks"].items():
        lines.append(f"| {key} | {part_summary['dataset']} | {part_summary['n_items']} | "
                     f"{part_summary['n_gold']}{' (synthetic)' if part_summary['gold_synthetic'] else ''} | "
                     f"{part_summary['sample']['n_served']} | {part_summary['n_annotators']} | "
                     f"{part_summary['time']['n_answers']} | {part_summary['completion']['n_complete_items']} |")
    protocol = kit.protocol
    lines += ["", "## Protocol", ""]
    for label, text in (("Recruitment", protocol["recruitment"]), ("Consent", protocol["consent"]),
                        ("Demographics", protocol["demographics"])):
        lines.append(f"- {label}: {text.strip() or 'not entered'}")
    return "\n".join(lines) + "\n"
