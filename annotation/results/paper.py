"""A campaign's paper kit (reads only, from annotation.results.release's ``campaigned``, which
gives the pseudonyms): a LaTeX section that compiles with Debian's texlive-latex-recommended
(pdflatex, bibtex, pdflatex, pdflatex), its bibliography, figures (PDF and SVG), tables (CSV),
summary.json, and the human-baseline checklist of Wei et al. (2025) filled from the data.

paper.tex's blocks sit between ``% BEGIN name`` and ``% END name`` lines, so an author can
lift one: data, annotators, agreement, results, time, limitations, checklist. Every number the
text and the tables show is one of summary.json (rounded for people: percent with one
decimal, p-values as "p < 0.001" or two significant digits); the kit is in English, the
paper's language. A campaign with a panel study (its own, or one of its datasets') states the
study's figures in the annotators block and the checklist, as the study's records give them.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path

from django.utils import translation

from annotation.answers.counted import counted_people
from annotation.models import Adjudication, Flag
from annotation.results.formats import tex_escape
from annotation.results.plots import render, scores_drawing
from annotation.results.release import Campaigned, zip_bytes, zip_folder
from annotation.results.report import HUMAN_LABELS

DATA = Path(__file__).resolve().parent / "data"


FOR_THE_AUTHORS = "for the authors to state"


def percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}"


def p_text(value: float | None) -> str:
    """A p-value for people: "p < 0.001" or two significant digits."""
    if value is None:
        return "no test"
    return "p < 0.001" if value < 0.001 else f"p = {value:.2g}"


def interval_text(low: float | None, high: float | None) -> str:
    return "" if low is None else f" [{percent(low)}, {percent(high)}]"


def seconds_text(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}"


def minutes_text(seconds: float | None) -> str:
    return "n/a" if seconds is None else f"{seconds / 60:.1f}"


def checklist_items() -> dict:
    """The checklist (its items and their source), kept as a data file of the repository."""
    return json.loads((DATA / "human_baseline_checklist.json").read_text(encoding="utf-8"))


def _parts(summary: dict) -> list[dict]:
    return list(summary["subtasks"].values())


def _scored(summary: dict) -> list[dict]:
    return [part for part in _parts(summary) if not part["gold_synthetic"]]


def _people(kit: Campaigned) -> int:
    return len({row[0] for rows in kit.times.values() for row in rows})


def _studies(kit: Campaigned) -> list[dict]:
    """The campaign's panel studies as summary.json states them (annotation.results.release.study_facts)."""
    return kit.summary["studies"]


def _study_pay(study: dict) -> str:
    """A panel study's pay and its effective hourly pay, as the study's records give them."""
    currency = study["pay_currency"]
    basis = "per hour" if study["pay_basis"] == "hour" else "per participant"
    hourly = study["effective_hourly_pay"]
    return (f"paid {study['pay_amount']} {currency} {basis}, an effective hourly pay of "
            + ("n/a" if hourly is None else f"{hourly} {currency}")
            + " (the pay divided by the median time from entry to completion, as panels compute it)")


def how_many(number: int, singular: str, plural: str) -> str:
    """``number`` and the word for that many: "1 entry", "2 entries"."""
    return f"{number} {singular if number == 1 else plural}"


def _study_sentence(study: dict) -> str:
    """What the paper says of a panel study: its counted participants and their figures."""
    return (f"Participants came from a panel (study {study['study']}): {study['entered']} took part, "
            f"{study['completed']} completed, {how_many(study['screened_out'], 'was', 'were')} screened out by the "
            f"training round, {study['past_deadline']} ran out of time; completion rate "
            f"{percent(study['completion_rate'])}%, median time from entry to completion "
            f"{minutes_text(study['median_seconds'])} minutes; they were {_study_pay(study)}. Not counted: "
            f"{how_many(study['no_consent'], 'entry', 'entries')} without consent, "
            f"{how_many(study['test_entries'], 'preview or test entry', 'preview or test entries')}, "
            f"{how_many(study['left_out'], 'participant', 'participants')} the panel's export did not list.")


def _with_studies(kit: Campaigned, text: str, study_text: Callable[[dict], str]) -> str:
    """``text`` followed by ``study_text(study)`` for each panel study of the campaign."""
    return "; ".join([text, *(f"panel study {study['study']}: {study_text(study)}" for study in _studies(kit))])


# What the project answers each checklist item from (the data file's "answer" names one):
# a sentence, or None when the data cannot say it (then: for the authors to state).
def _answer_dataset_size(kit: Campaigned) -> str:
    return "; ".join(f"{part['subtask']}: {part['n_items']} items ({part['n_gold']} with gold)" for part in _parts(kit.summary))


def _answer_ai_test_set(kit: Campaigned) -> str:
    return ("Each model is scored on all gold items, and beside the humans on exactly the human source's complete "
            "items (the same items).")


def _answer_n_baseliners(kit: Campaigned) -> str:
    return _with_studies(kit, f"{_people(kit)} annotators (pseudonyms {kit.named()}); per subtask: " + "; ".join(
        f"{part['subtask']} {part['n_annotators']}" for part in _parts(kit.summary)),
        lambda study: f"{study['entered']} participants took part, {study['completed']} completed")


def _answer_baseline_test_set(kit: Campaigned) -> str:
    return "; ".join(f"{part['subtask']}: {part['sample']['n_served']} items given, "
                     f"{part['completion']['n_complete_items']} complete" for part in _parts(kit.summary))


def _answer_sample(kit: Campaigned) -> str:
    sampled = [part for part in _parts(kit.summary) if part["sample"]["size"] is not None]
    if not sampled:
        return "Every item was given to annotators (no sample)."
    return "Seeded random sample: " + "; ".join(
        f"{part['subtask']} {part['sample']['size']} items, seed {part['sample']['seed']}"
        + (f", stratified by {part['sample']['field']}" if part["sample"]["field"] else "") for part in sampled)


def _answer_samples_per_item(kit: Campaigned) -> str:
    return "; ".join(f"{part['subtask']}: {part['agreement'].get('n_answers', 0)} answers to "
                     f"{part['agreement'].get('n_items', 0)} items" for part in _parts(kit.summary))


def _answer_items_per_baseliner(kit: Campaigned) -> str:
    return "; ".join(f"{part['subtask']}: {part['time']['n_answers']} answers by {part['n_annotators']} annotators"
                     for part in _parts(kit.summary))


def _answer_effort(kit: Campaigned) -> str:
    return (f"Human effort is measured: {_time_sentence(kit.summary)} The models' effort is "
            f"{FOR_THE_AUTHORS}.")


def _answer_recruitment(kit: Campaigned) -> str | None:
    return kit.protocol["recruitment"].strip() or None


def _answer_qualification(kit: Campaigned) -> str:
    return _qualification_sentence(kit.summary)


def _answer_qualification_exclusions(kit: Campaigned) -> str:
    return _with_studies(kit, "; ".join(
        f"{part['subtask']}: {part['qualification']['n_trained'] - part['qualification']['n_qualified']} "
        f"of {part['qualification']['n_trained']} trained annotators not qualified" for part in _parts(kit.summary)),
        lambda study: f"{study['screened_out']} of {study['entered']} participants screened out by the training round")


def _answer_training(kit: Campaigned) -> str:
    return _qualification_sentence(kit.summary)


def _answer_pay(kit: Campaigned) -> str | None:
    if _studies(kit):
        return "; ".join(f"panel study {study['study']}: participants were {_study_pay(study)}"
                         for study in _studies(kit)) + "."
    pay = kit.summary["pay"]
    if pay["amount"] is None:
        return None
    return _pay_sentence(pay)


def _answer_control(kit: Campaigned) -> str:
    return _control_sentence(kit.summary)


def _answer_control_exclusions(kit: Campaigned) -> str:
    return "; ".join(f"{part['subtask']}: {part['qualification']['n_below_control_threshold']} annotators below "
                     "the control threshold" for part in _parts(kit.summary))


def _answer_interface(kit: Campaigned) -> str:
    return ("No (GUI against API): annotators answered each item on a web page showing the item and the guidelines; "
            "models were given the items' input file and returned a submission file. The models' prompts are "
            f"{FOR_THE_AUTHORS}.")


def _answer_instructions_equivalence(kit: Campaigned) -> str:
    return ("Annotators were shown the guidelines released with the data (guidelines/<subtask>.html, in Polish); "
            f"what the models were given is {FOR_THE_AUTHORS}.")


def _answer_significance(kit: Campaigned) -> str:
    return (f"Yes: paired randomization test ({kit.summary['test_rounds']} rounds) of the human source and each "
            "model on the same items, McNemar's exact test on the items right or wrong, Holm's adjustment over each "
            "model's subtasks.")


def _answer_uncertainty(kit: Campaigned) -> str:
    return (f"Interval estimates: 95% percentile-bootstrap intervals ({kit.summary['resamples']} resamples, seed "
            f"{kit.summary['seed']}) for every score and difference; the mean annotator with a two-way bootstrap.")


def _answer_metric(kit: Campaigned) -> str:
    return (f"Partial: the same metric per subtask; the human source is pooled ({HUMAN_LABELS[kit.summary['human_source']]}), "
            "a model answers alone; the mean annotator is reported too.")


def _answer_scorer(kit: Campaigned) -> str:
    return "Yes: the benchmark's own scorer (the bundled scoring package) scores humans and models alike."


def _answer_demographics(kit: Campaigned) -> str | None:
    return kit.protocol["demographics"].strip() or None


def _answer_instructions(kit: Campaigned) -> str:
    return "Yes: the guidelines exactly as annotators saw them are in the release (guidelines/<subtask>.html)."


def _answer_time(kit: Campaigned) -> str:
    return _with_studies(kit, _time_sentence(kit.summary).removesuffix("."),
                         lambda study: f"median {minutes_text(study['median_seconds'])} minutes from entry to "
                                       "completion") + "."


def _answer_completion(kit: Campaigned) -> str:
    return _with_studies(kit, "; ".join(
        f"{part['subtask']}: {part['completion']['n_complete_items']} of {part['completion']['n_served']} "
        f"items complete ({percent(part['completion']['completion_rate'])}%)" for part in _parts(kit.summary)),
        lambda study: f"{study['completed']} of {study['entered']} participants completed "
                      f"({percent(study['completion_rate'])}%)")


def _answer_data(kit: Campaigned) -> str:
    return "Yes: the release bundle holds every submitted answer under pseudonyms, with checksums."


def _answer_individual_data(kit: Campaigned) -> str:
    return "Yes: answers are given per annotator pseudonym (A1..An), with active time per answer."


def _answer_code(kit: Campaigned) -> str:
    return "Yes: the release holds the scorer and reproduce.sh, which recomputes every number of summary.json."


CHECKLIST_ANSWERS = {
    "dataset_size": _answer_dataset_size, "ai_test_set": _answer_ai_test_set, "n_baseliners": _answer_n_baseliners,
    "baseline_test_set": _answer_baseline_test_set, "sample": _answer_sample,
    "samples_per_item": _answer_samples_per_item, "items_per_baseliner": _answer_items_per_baseliner,
    "effort": _answer_effort, "recruitment": _answer_recruitment, "qualification": _answer_qualification,
    "qualification_exclusions": _answer_qualification_exclusions, "training": _answer_training, "pay": _answer_pay,
    "control": _answer_control, "control_exclusions": _answer_control_exclusions, "interface": _answer_interface,
    "instructions_equivalence": _answer_instructions_equivalence, "significance": _answer_significance,
    "uncertainty": _answer_uncertainty, "metric": _answer_metric, "scorer": _answer_scorer,
    "demographics": _answer_demographics, "instructions": _answer_instructions, "time": _answer_time,
    "completion": _answer_completion, "data": _answer_data, "individual_data": _answer_individual_data,
    "code": _answer_code,
}


def filled_checklist(kit: Campaigned) -> list[dict]:
    """Every checklist item with its answer from the data, or "for the authors to state"."""
    filled = []
    for item in checklist_items()["items"]:
        answer = CHECKLIST_ANSWERS[item["answer"]](kit) if item["answer"] else None
        filled.append({**item, "answered": answer is not None, "text": answer or FOR_THE_AUTHORS})
    return filled


def checklist_markdown(kit: Campaigned, filled: list[dict]) -> str:
    source = checklist_items()["source"]
    lines = [f"# Human-baseline checklist: {kit.summary['campaign']}", "",
             f"Items of {source['citation']} (arXiv:{source['arxiv']}, {source['url']}; the checklist: "
             f"{source['checklist']}), answered from the campaign's data where it knows the answer and marked "
             f"\"{FOR_THE_AUTHORS}\" where it cannot.", ""]
    section = None
    for item in filled:
        if item["section"] != section:
            section = item["section"]
            lines += [f"## {section}", ""]
        lines.append(f"- **{item['number']} {item['title']}** ({item['question']}) {item['text']}")
    return "\n".join(lines) + "\n"


def _pay_sentence(pay: dict) -> str:
    currency = pay["currency"] or ""
    if pay["basis"] == "hour":
        return f"Annotators were paid {pay['amount']:.2f} {currency} per hour.".replace("  ", " ")
    hourly = "" if pay["per_hour"] is None else (
        f", {pay['per_hour']:.2f} {currency} per hour at the median {pay['median_hours_start_to_finish']:.2f} hours "
        "from a person's first answer started to their last submitted")
    return f"Annotators were paid {pay['amount']:.2f} {currency} per participant{hourly}.".replace("  ", " ")


def _qualification_sentence(summary: dict) -> str:
    trained = [part for part in _parts(summary) if part["qualification"]["training_items"]]
    if not trained:
        return "Annotators had no training round before the items."
    return "Before the items, annotators answered a training round with feedback: " + "; ".join(
        f"{part['subtask']}: {part['qualification']['training_items']} training items, threshold "
        f"{percent(part['qualification']['threshold'])}%, {part['qualification']['n_qualified']} of "
        f"{part['qualification']['n_trained']} qualified ({part['qualification']['n_released']} let through by an organizer)"
        for part in trained) + "."


def _control_sentence(summary: dict) -> str:
    controlled = [part for part in _parts(summary) if part["qualification"]["control_rate"]]
    if not controlled:
        return "No control items were interleaved."
    return "Control items with known answers were interleaved: " + "; ".join(
        f"{part['subtask']}: one in {part['qualification']['control_rate']} positions from "
        f"{part['qualification']['control_items']} control items ({part['qualification']['n_control_answers']} "
        f"answers), {part['qualification']['n_below_control_threshold']} annotators below the threshold"
        for part in controlled) + "."


def _time_sentence(summary: dict) -> str:
    return "; ".join(f"{part['subtask']}: median {seconds_text(part['time']['median_s'])} active seconds per item "
                     f"(IQR {seconds_text(part['time']['q1_s'])}--{seconds_text(part['time']['q3_s'])}), "
                     f"{part['time']['person_hours']:.1f} person-hours" for part in _parts(summary)) + "."


def _block(name: str, body: list[str]) -> list[str]:
    return [f"% BEGIN {name}", *body, f"% END {name}", ""]


def _tabular(columns: str, headers: list[str], rows: list[list[str]], caption: str, label: str) -> list[str]:
    """A booktabs table: text columns left, numbers right; cells are escaped LaTeX already."""
    return [r"\begin{table}[htbp]", r"\centering", r"\small", rf"\begin{{tabular}}{{{columns}}}", r"\toprule",
            " & ".join(headers) + r" \\", r"\midrule", *(" & ".join(row) + r" \\" for row in rows), r"\bottomrule",
            r"\end{tabular}", rf"\caption{{{caption}}}", rf"\label{{{label}}}", r"\end{table}"]


def _data_block(kit: Campaigned) -> list[str]:
    summary = kit.summary
    rows = [[tex_escape(part["subtask"]), tex_escape(part["dataset"]), str(part["n_items"]),
             str(part["n_gold"]) + (r"$^{\dagger}$" if part["gold_synthetic"] else ""), str(part["n_withdrawn"]),
             str(part["sample"]["n_served"]), "--" if part["sample"]["seed"] is None else str(part["sample"]["seed"])]
            for part in _parts(summary)]
    text = [r"\subsection{Data and sample}\label{sec:hb-data}",
            f"The human baseline of campaign {tex_escape(summary['campaign'])} covers {len(rows)} subtasks "
            r"(Table~\ref{tab:hb-data}). " + tex_escape(_answer_sample(kit)),
            *_tabular("llrrrrr", ["subtask", "dataset", "items", "gold", "withdrawn", "given", "seed"], rows,
                      r"Datasets of the human baseline: items, gold items ($\dagger$: synthetic gold, no score), "
                      "withdrawn items, items given to annotators and the sample's seed.", "tab:hb-data")]
    return _block("data", text)


def _annotators_block(kit: Campaigned) -> list[str]:
    summary = kit.summary
    recruitment = kit.protocol["recruitment"].strip()
    text = [r"\subsection{Annotators and procedure}\label{sec:hb-annotators}",
            f"{_people(kit)} annotators took part, named {tex_escape(kit.named('--'))} here and in the released data. "
            + (f"Recruitment: {tex_escape(recruitment)} " if recruitment else f"Recruitment: [{FOR_THE_AUTHORS}]. ")
            + "".join(tex_escape(_study_sentence(study)) + " " for study in _studies(kit))
            + (tex_escape(_pay_sentence(summary["pay"])) + " "
               if summary["pay"]["amount"] is not None and not _studies(kit) else "")
            + tex_escape(_qualification_sentence(summary)) + " " + tex_escape(_control_sentence(summary)) + " "
            + "Answers per subtask: " + tex_escape(_answer_samples_per_item(kit)) + ". "
            + "Annotators answered in a web interface beside the guidelines of each subtask (in Polish), "
              "released exactly as shown."]
    return _block("annotators", text)


def _agreement_block(kit: Campaigned) -> list[str]:
    rows = []
    for part in _parts(kit.summary):
        figures = [(name, value) for name, value in part["agreement"].items() if name not in ("n_items", "n_answers")]
        rows.append([tex_escape(part["subtask"]), str(part["agreement"].get("n_items", 0)),
                     str(part["agreement"].get("n_answers", 0)),
                     tex_escape(", ".join(f"{name.replace('_', ' ')} {value:.3f}" for name, value in figures
                                          if isinstance(value, float)) or "n/a")])
    text = [r"\subsection{Agreement}\label{sec:hb-agreement}",
            r"Table~\ref{tab:hb-agreement} gives the agreement of the annotators per subtask: Krippendorff's "
            r"alpha~\citep{krippendorff2004content}, Fleiss' kappa~\citep{fleiss1971measuring} and the observed "
            r"agreement, as the subtask defines them~\citep{passonneau2006masi}.",
            *_tabular("lrrp{7cm}", ["subtask", "items", "answers", "figures"], rows,
                      "Agreement of the annotators per subtask.", "tab:hb-agreement")]
    return _block("agreement", text)


def _results_block(kit: Campaigned, figures: list[str]) -> list[str]:
    summary = kit.summary
    human = HUMAN_LABELS[summary["human_source"]]
    rows = []
    for part in _parts(summary):
        if part["gold_synthetic"]:
            rows.append([tex_escape(part["subtask"]), r"\multicolumn{6}{l}{synthetic gold: no score}"])
            continue
        source = part["sources"].get(summary["human_source"])
        human_cell = "n/a" if source is None else percent(source["score"]) + interval_text(source.get("ci_low"),
                                                                                            source.get("ci_high"))
        group = part["mean_annotator"]
        mean_cell = "n/a" if group is None else percent(group["mean"]) + interval_text(group["ci_low"], group["ci_high"])
        if not part["comparisons"]:
            rows.append([tex_escape(part["subtask"]), human_cell, mean_cell, "--", "--", "--", "--"])
        for index, (model, cell) in enumerate(sorted(part["comparisons"].items())):
            rows.append([tex_escape(part["subtask"]) if index == 0 else "", human_cell if index == 0 else "",
                         mean_cell if index == 0 else "",
                         tex_escape(model) + " " + percent(cell["score_model"]),
                         percent(cell["diff"]) + interval_text(cell["diff_ci_low"], cell["diff_ci_high"]),
                         tex_escape(p_text(cell["p_value"])), tex_escape(p_text(cell["p_holm"]))])
    text = [r"\subsection{Humans and models on the same items}\label{sec:hb-results}",
            f"Table~\\ref{{tab:hb-results}} sets {tex_escape(human)} (scored on the complete items: every answer in, "
            "at least two; an item without its answer counts as missing) beside every model on exactly those items. "
            f"Intervals are 95\\% percentile-bootstrap intervals~\\citep{{efron1979bootstrap}} ({summary['resamples']} "
            f"resamples, seed {summary['seed']}); differences (human $-$ model, in points) are paired; p is a paired "
            f"randomization test~\\citep{{noreen1989computer}} ({summary['test_rounds']} rounds), with McNemar's "
            r"test~\citep{mcnemar1947note} on the items right or wrong in summary.json, and Holm's adjustment "
            r"\citep{holm1979simple} over each model's subtasks. The mean annotator's interval is a two-way bootstrap "
            "over annotators and items."
            + (" Figures " + ", ".join(f"\\ref{{fig:hb-{name}}}" for name in figures) + " show each source's score."
               if figures else ""),
            *_tabular("lllrrrr", ["subtask", "human source", "mean annotator", "model", "difference", "p", "Holm"], rows,
                      f"Main score (\\%) per subtask: {tex_escape(human)}, the mean annotator and each model on the same "
                      "items, with 95\\% intervals.", "tab:hb-results")]
    for name in figures:
        text += [r"\begin{figure}[htbp]", r"\centering", rf"\includegraphics[width=\linewidth]{{figures/{name}.pdf}}",
                 rf"\caption{{{tex_escape(name.rpartition('-')[0])}: main score per source with its 95\% interval.}}",
                 rf"\label{{fig:hb-{name}}}", r"\end{figure}"]
    return _block("results", text)


def _time_block(kit: Campaigned) -> list[str]:
    summary = kit.summary
    text = [r"\subsection{Time and completion}\label{sec:hb-time}",
            "Active time per answered item (the time the item page was in use): " + tex_escape(_time_sentence(summary))
            + " Completion: " + tex_escape(_answer_completion(kit)) + "."]
    return _block("time", text)


def _limitations_block(kit: Campaigned) -> list[str]:
    summary = kit.summary
    parts = _parts(summary)
    annotators = ", ".join(f"{part['subtask']} {part['n_annotators']}" for part in parts)
    complete = ", ".join(f"{part['subtask']} {part['completion']['n_complete_items']}" for part in parts)
    sentences = [f"The baseline rests on few annotators ({annotators}) and on {complete} complete items, so its "
                 "intervals are wide."]
    synthetic = [part["subtask"] for part in parts if part["gold_synthetic"]]
    if synthetic:
        sentences.append(f"The gold of {', '.join(synthetic)} is synthetic (made to test the software): no score is "
                         "reported for it.")
    coverage = [(part["subtask"], part["sources"][summary["human_source"]]["coverage"]) for part in _scored(summary)
                if summary["human_source"] in part["sources"]]
    if coverage:
        sentences.append("The human source covers " + ", ".join(f"{key} {percent(value)}%" for key, value in coverage)
                         + " of the gold items; models are compared on these items only.")
    excluded = [(part["subtask"], part["qualification"]["n_below_control_threshold"]) for part in parts
                if part["qualification"]["n_below_control_threshold"]]
    sentences.append("Annotators below the control threshold: " + (", ".join(f"{key} {count}" for key, count in excluded)
                                                                    if excluded else "none") + ".")
    missing = [(part["subtask"], part["completion"]["complete_without_answer"]) for part in _scored(summary)
               if part["completion"]["complete_without_answer"]]
    if missing:
        sentences.append("Complete items without an answer of the human source (no majority), counted as wrong: "
                         + ", ".join(f"{key} {count}" for key, count in missing) + ".")
    return _block("limitations", [r"\subsection{Limitations}\label{sec:hb-limitations}", tex_escape(" ".join(sentences))])


def _checklist_block(filled: list[dict]) -> list[str]:
    text = [r"\section{Human-baseline checklist}\label{sec:hb-checklist}",
            r"The reporting checklist of \citet{wei2025human}, answered from the campaign's data; items marked "
            f"``{FOR_THE_AUTHORS}'' are the authors' to answer.", r"\begin{description}"]
    text += [rf"\item[{tex_escape(item['number'])} {tex_escape(item['title'])}] "
             + (tex_escape(item["text"]) if item["answered"] else rf"\emph{{{FOR_THE_AUTHORS}}}") for item in filled]
    text.append(r"\end{description}")
    return _block("checklist", text)


def paper_tex(kit: Campaigned, filled: list[dict], figures: list[str]) -> str:
    lines = [r"\documentclass{article}", r"\usepackage[T1]{fontenc}", r"\usepackage[utf8]{inputenc}",
             r"\usepackage{lmodern}", r"\usepackage{booktabs}", r"\usepackage{graphicx}", r"\usepackage[numbers]{natbib}",
             "", r"\begin{document}", "", r"\section{Human baseline}\label{sec:hb}", "",
             *_data_block(kit), *_annotators_block(kit), *_agreement_block(kit), *_results_block(kit, figures),
             *_time_block(kit), *_limitations_block(kit), r"\bibliographystyle{plainnat}", r"\bibliography{paper}", "",
             r"\appendix", *_checklist_block(filled), r"\end{document}"]
    return "\n".join(lines) + "\n"


def _csv(headers: list[str], rows: list[list]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(headers)
    writer.writerows([["" if value is None else value for value in row] for row in rows])
    return out.getvalue().encode("utf-8")


def tables(summary: dict) -> dict[str, bytes]:
    """The tables as CSV: one header row, one value per column, numbers whole (as in summary.json)."""
    sources = [[part["subtask"], source, figures["score"], figures.get("ci_low"), figures.get("ci_high"),
                figures["n_gold"], figures["n_missing"], figures.get("coverage")]
               for part in _scored(summary) for source, figures in part["sources"].items()]
    results = [[part["subtask"], model, cell["n_items"], cell["score_human"], cell["score_model"], cell["diff"],
                cell["diff_ci_low"], cell["diff_ci_high"], cell["p_value"], cell["p_holm"], cell["mcnemar_p"]]
               for part in _scored(summary) for model, cell in sorted(part["comparisons"].items())]
    agreement = [[part["subtask"], name, value] for part in _parts(summary) for name, value in part["agreement"].items()]
    time = [[part["subtask"], part["time"]["n_answers"], part["time"]["median_s"], part["time"]["q1_s"],
             part["time"]["q3_s"], part["time"]["person_hours"], part["completion"]["n_complete_items"],
             part["completion"]["n_served"], part["completion"]["completion_rate"]] for part in _parts(summary)]
    return {
        "tables/sources.csv": _csv(["subtask", "source", "score", "ci_low", "ci_high", "n_scored", "n_missing",
                                    "coverage"], sources),
        "tables/results.csv": _csv(["subtask", "model", "n_items", "score_human", "score_model", "diff", "diff_ci_low",
                                    "diff_ci_high", "p_value", "p_holm", "mcnemar_p"], results),
        "tables/agreement.csv": _csv(["subtask", "figure", "value"], agreement),
        "tables/time.csv": _csv(["subtask", "n_answers", "median_s", "q1_s", "q3_s", "person_hours",
                                 "n_complete_items", "n_served", "completion_rate"], time),
    }


def figure_files(kit: Campaigned) -> tuple[dict[str, bytes], list[str]]:
    """Each scored dataset's plot of its sources' scores, as PDF and SVG, drawn in English."""
    files, names = {}, []
    with translation.override("en"):
        for report in kit.table["datasets"]:
            if report["gold_synthetic"]:
                continue
            drawing = scores_drawing(report)
            if drawing is not None:
                name = f"{report['subtask']}-scores"
                files[f"figures/{name}.pdf"] = render(drawing, "pdf")
                files[f"figures/{name}.svg"] = render(drawing, "svg").encode("utf-8")
                names.append(name)
    return files, names


def free_text(kit: Campaigned) -> str:
    """What people wrote (adjudication notes, flag comments), for the organizer to review before
    anything of it is published."""
    datasets = list(kit.datasets.values())
    lines = ["# Free text written by people: review before publishing", "",
             "| dataset | item | by | kind | text |", "| --- | --- | --- | --- | --- |"]
    notes = (Adjudication.objects.filter(item__dataset__in=datasets).exclude(note="")
             .order_by("item__dataset__name", "item__ordinal")
             .values_list("item__dataset__name", "item__external_id", "adjudicator__username", "note"))
    comments = (counted_people(Flag.objects.filter(item__dataset__in=datasets), "raised_by")
                .order_by("item__dataset__name", "item__ordinal", "pk")
                .values_list("item__dataset__name", "item__external_id", "raised_by__username", "comment"))
    for kind, rows in (("adjudication note", notes), ("flag comment", comments)):
        for dataset, item, author, text in rows:
            cell = " ".join(text.split()).replace("|", "\\|")
            lines.append(f"| {dataset} | {item} | {kit.name(author) or ''} | {kind} | {cell} |")
    return "\n".join(lines) + "\n"


def paper_files(kit: Campaigned, *, with_free_text: bool = False) -> dict[str, bytes]:
    """Every file of the paper kit, by its path in the kit."""
    filled = filled_checklist(kit)
    files, figures = figure_files(kit)
    files |= tables(kit.summary)
    files["paper.tex"] = paper_tex(kit, filled, figures).encode("utf-8")
    files["paper.bib"] = (DATA / "paper.bib").read_bytes()
    files["summary.json"] = (json.dumps(kit.summary, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
    files["checklist.md"] = checklist_markdown(kit, filled).encode("utf-8")
    if with_free_text:
        files["free_text.md"] = free_text(kit).encode("utf-8")
    return files


def paper_zip(kit: Campaigned, *, with_free_text: bool = False) -> bytes:
    return zip_bytes(paper_files(kit, with_free_text=with_free_text), zip_folder(kit.campaign, "paper"))
