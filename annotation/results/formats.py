"""The report and the campaign table as files: JSON (every figure, whole), Markdown, LaTeX
(booktabs) and CSV, in English (the paper's language; ``translation.override("en")`` inside).

Text and tables are rounded for people: scores, intervals and coverage in percent with one
decimal ("81.2 [79.0, 83.1]"), differences in percentage points, p-values as "< 0.001" or with
two significant digits; the decimal point whatever the page's language. The CSV has one value
per column under one header row, the numbers whole (as in JSON). A dataset with synthetic gold
shows "—" and a footnote; a source that has no score shows "n/a". The Markdown shows the plots
(embedded as SVG, or written beside it by the command), the TeX tables are labelled.
"""

from __future__ import annotations

import base64
import csv
import io
import json
import re
from datetime import datetime

from django.utils import timezone, translation

from annotation.results.labels import agreement_name, score_name
from annotation.results.plots import Plot

SYNTHETIC_CELL = "—"


NO_CELL = "n/a"


SYNTHETIC_NOTE = "synthetic gold — not a human baseline: a dataset's gold is synthetic, its cells are empty (see the notes)"


FORMATS = ("json", "md", "csv", "tex")


# A dataset report's file of its own beside the formats: the item difficulty table (CSV).
DIFFICULTY = "difficulty"


CONTENT_TYPES = {
    "json": "application/json",
    "md": "text/markdown; charset=utf-8",
    "csv": "text/csv; charset=utf-8",
    "tex": "application/x-tex; charset=utf-8",
}


def percent(value: float) -> str:
    """A share (0..1) in percent with one decimal: 0.7374999999999999 -> "73.7"."""
    return f"{100 * value:.1f}"


def p_figure(p_value: float) -> str:
    """A p-value for people: "< 0.001", else two significant digits ("0.012", "0.50", "1.0")."""
    return "< 0.001" if p_value < 0.001 else f"{p_value:#.2g}"


def number(value: float | None) -> str:
    """A score for people: in percent with one decimal ("n/a": none)."""
    return NO_CELL if value is None else percent(value)


def moment_text(iso: str) -> str:
    """A stored ISO time in the site's time zone, to the minute: "2026-12-02 14:03 CET"."""
    return timezone.localtime(datetime.fromisoformat(iso)).strftime("%Y-%m-%d %H:%M %Z")


def cell_text(cell: dict | None, synthetic_mark: str | None = None) -> str:
    if synthetic_mark is not None:
        return SYNTHETIC_CELL + synthetic_mark
    if cell is None:
        return NO_CELL
    if cell.get("ci_low") is None:
        return number(cell["score"])
    return f"{number(cell['score'])} [{number(cell['ci_low'])}, {number(cell['ci_high'])}]"


def p_cell(value: float | None) -> str:
    return NO_CELL if value is None else p_figure(value)


def campaign_cell_text(cell: dict | None, synthetic_mark: str | None = None) -> str:
    """A campaign cell: the score and interval; the human source's also its items and coverage
    of the gold, the mean annotator's how many annotators; a model's the difference (human −
    model, points) with its interval, p and Holm's adjusted p."""
    text = cell_text(cell, synthetic_mark)
    if synthetic_mark is None and cell is not None and "coverage" in cell:
        text += f" (n {cell['n_items']}, {cell['coverage']:.1%} of gold, {cell['n_missing']} missing)"
    if synthetic_mark is None and cell is not None and "n_annotators" in cell:
        text += f" ({cell['n_annotators']} annotators)"
    if synthetic_mark is None and cell is not None and "diff" in cell:
        difference = cell_text({"score": cell["diff"], "ci_low": cell["diff_ci_low"], "ci_high": cell["diff_ci_high"]})
        text += f"; diff {difference}, p {p_cell(cell['p_value'])}, Holm {p_cell(cell['p_holm'])}"
    if synthetic_mark is None and cell is not None and "score_audited" in cell:
        text += f"; audited gold {number(cell['score_audited'])}"
    return text


def campaign_grid(table: dict, cell=campaign_cell_text, headers: list[str] | None = None) -> tuple[list[str], list[list[str]]]:
    """(headers, rows of text) of the campaign table; ``cell`` writes a cell (a page writes
    them in its language), ``headers`` names the columns (default: their keys)."""
    headers = headers or ["subtask", *table["columns"]]
    rows = []
    for row in table["rows"]:
        mark = f" [{row['footnote']}]" if row["footnote"] else None
        rows.append([row["subtask"], *(cell(row["cells"][column], mark) for column in table["columns"])])
    return headers, rows


def _score_header(subtask: str) -> str:
    return f"{score_name(subtask)}, % [95% interval]"


DAWID_SKENE_COLUMN = "estimated accuracy (Dawid–Skene)"


def estimated_accuracies(report: dict) -> dict[str, float | None] | None:
    """Annotator source -> their Dawid–Skene estimated accuracy; None when the subtask does not
    offer it (or the report was computed before it existed)."""
    figures = report.get("dawid_skene") or {}
    if not figures.get("offered"):
        return None
    return {f"annotator:{row['annotator']}": row["accuracy"] for row in figures["annotators"]}


def dawid_skene_note(report: dict) -> str | None:
    figures = report.get("dawid_skene")
    if not figures:
        return None
    if not figures["offered"]:
        return figures["reason"]
    return (f"{DAWID_SKENE_COLUMN}: Dawid and Skene's model fitted to every answer without gold (crowd-kit 1.4.2's "
            f"DawidSkene; {figures['iterations']} rounds, classes {', '.join(figures['classes'])}): the prior of each "
            "class times the chance the annotator gives it when it is true, summed over the classes")


def source_grid(report: dict) -> tuple[list[str], list[list[str]]]:
    """(headers, rows of text) of a dataset report's sources: the score on the benchmark's gold
    (the headline) and on the audited gold; with Dawid–Skene, each annotator's estimated
    accuracy in a last column."""
    estimated = estimated_accuracies(report)
    headers = ["source", "scored on", _score_header(report["subtask"]), "items scored", "missing", "coverage",
               "audited gold, %", "items (audited gold)"]
    headers += [DAWID_SKENE_COLUMN] if estimated is not None else []
    rows = []
    for row in report["sources"]:
        if not row.get("available"):
            cells = [row["source"], NO_CELL, row["reason"], "", "", "", "", ""]
        else:
            low, high = row["intervals"]["score"]
            cells = [row["source"], row["scored_on"], cell_text({"score": row["score"], "ci_low": low, "ci_high": high}),
                     str(row["n_scored"]), str(row["n_missing"]), f"{row['coverage']:.1%}",
                     number(row.get("score_audited")), str(row.get("n_scored_audited", ""))]
        if estimated is not None:
            accuracy = estimated.get(row["source"])
            cells.append("" if accuracy is None else number(accuracy))
        rows.append(cells)
    return headers, rows


COMPARISON_HEADERS = ["human", "model", "items", "human, %", "model, %", "difference, points [95% interval]", "p",
                      "McNemar p (b, c)"]


def comparison_grid(report: dict) -> list[list[str]]:
    """The models beside the human sources, on the same items: one row a comparison."""
    return [[comparison["human"], comparison["model"], str(comparison["n_scored"]), number(comparison["score_human"]),
             number(comparison["score_model"]),
             cell_text({"score": comparison["diff"], "ci_low": comparison["diff_ci"][0], "ci_high": comparison["diff_ci"][1]}),
             p_cell(comparison.get("p_value")),
             f"{p_cell(comparison.get('mcnemar_p'))} ({comparison.get('n_a_only')}, {comparison.get('n_b_only')})"
             if "mcnemar_p" in comparison else NO_CELL] for comparison in report["comparisons"]]


CAMPAIGN_COMPARISON_HEADERS = ["subtask", "model", "items", "human, %", "model, %", "difference, points [95% interval]",
                               "p", "Holm p"]


def campaign_comparison_grid(table: dict) -> list[list[str]]:
    """Humans (the campaign's human source) and every model on the same items, one row per subtask and model."""
    rows = []
    for row in table["rows"]:
        human = row["cells"].get("human source")
        for column in table["columns"][len(("human source", "mean annotator")):]:
            cell = row["cells"][column]
            if cell is None or human is None:
                continue
            rows.append([row["subtask"], column, str(cell["n_items"]), cell_text(human), cell_text(cell),
                         cell_text({"score": cell["diff"], "ci_low": cell["diff_ci_low"], "ci_high": cell["diff_ci_high"]}),
                         p_cell(cell["p_value"]), p_cell(cell["p_holm"])])
    return rows


def _markdown_table(headers: list[str], rows: list[list]) -> str:
    def line(cells):
        return "| " + " | ".join(str(cell).replace("|", "\\|") for cell in cells) + " |"
    return "\n".join([line(headers), line(["---"] * len(headers)), *(line(row) for row in rows)])


TEX_SPECIALS = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}", "—": "---",
                "−": "$-$", "→": r"$\rightarrow$"}  # signs outside T1: pdflatex's utf8 input refuses them


def tex_escape(text: str) -> str:
    return "".join(TEX_SPECIALS.get(character, character) for character in str(text))


def tex_label(*parts: str) -> str:
    """A \\label key from names: ``tab:`` and the parts, each reduced to letters, digits and hyphens."""
    return "tab:" + ":".join(re.sub(r"[^A-Za-z0-9]+", "-", part).strip("-") or "x" for part in parts)


def _tex_table(headers: list[str], rows: list[list[str]], caption: str, notes: list[str], label: str,
               text_columns: int) -> str:
    """A booktabs table: the first ``text_columns`` columns (names) left-aligned, the figures right-aligned."""
    lines = [
        r"% needs \usepackage{booktabs}",
        r"\begin{table}",
        r"\centering",
        r"\begin{tabular}{" + "l" * text_columns + "r" * (len(headers) - text_columns) + "}",
        r"\toprule",
        " & ".join(tex_escape(header) for header in headers) + r" \\",
        r"\midrule",
        *(" & ".join(tex_escape(cell) for cell in row) + r" \\" for row in rows),
        r"\bottomrule",
        r"\end{tabular}",
        *(r"\par{\footnotesize " + tex_escape(note) + "}" for note in notes),
        r"\caption{" + tex_escape(caption) + "}",
        r"\label{" + label + "}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"


# A spreadsheet reads a cell starting with one of these as a formula (OWASP, "CSV injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_text(value: object) -> object:
    """A text cell a spreadsheet would read as a formula, written as text: prefixed with an
    apostrophe (OWASP's advice). Numbers are numbers and stay as they are."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def _csv(headers: list[str], rows: list[list]) -> str:
    """The table as CSV, every text cell safe to open in a spreadsheet (names come from
    organizers and uploads: a dataset or model named "=HYPERLINK(...)" stays text)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([spreadsheet_text(header) for header in headers])
    writer.writerows([spreadsheet_text(cell) for cell in row] for row in rows)
    return out.getvalue()


def difficulty_csv(report: dict) -> str:
    """The report's item difficulty as a table: one row per item, how many annotators answered
    it, their mean result (the share right; discourse: mean LAS) and each model's result."""
    difficulty = report["item_difficulty"]
    headers = ["id", "n_annotators", "human", *(f"model:{name}" for name in difficulty["models"])]
    return _csv(headers, [[item["id"], item["n_annotators"], "" if item["human"] is None else item["human"],
                           *(item["models"][name] for name in difficulty["models"])] for item in difficulty["items"]])


def _campaign_notes(table: dict) -> list[str]:
    notes = [f"[{index}] {note['dataset']} ({note['subtask']}): {note['text']}"
             for index, note in enumerate(table["footnotes"], start=1)]
    notes += [f"{column}: {text}" for column, text in table["notes"].items()]
    notes += [f"gold audit, {row['subtask']}: {audit_counts_text(row['gold_audit'])}" for row in table["rows"]
              if row.get("gold_audit")]
    return notes


def audit_counts_text(audit: dict) -> str:
    return f"{audit['n_audited']} audited, {audit['n_corrected']} corrected, {audit['n_withdrawn']} withdrawn"


def _caption(table: dict) -> str:
    return (f"{table['campaign']}: main score per subtask and source, 95% percentile-bootstrap interval "
            f"({table['resamples']} resamples, seed {table['seed']}); computed {moment_text(table['computed_at'])}")


CAMPAIGN_CSV_FIGURES = ("score", "ci_low", "ci_high", "n_items", "diff", "diff_ci_low", "diff_ci_high", "p_value",
                        "p_holm", "mcnemar_p", "n_a_only", "n_b_only", "score_audited")
# The gold audit's counts of the row's dataset, beside each of its cells.
CAMPAIGN_CSV_AUDIT = ("n_audited", "n_corrected", "n_withdrawn")


def campaign_csv(table: dict) -> str:
    """One row per (subtask, column), every number whole in a column of its own, the gold
    audit's counts of the row's dataset, whether its gold is synthetic, and its footnote or
    quotable sentence."""
    headers = ["subtask", "dataset", "column", *CAMPAIGN_CSV_FIGURES, *CAMPAIGN_CSV_AUDIT, "gold_synthetic", "note"]
    rows = []
    for row in table["rows"]:
        note = table["footnotes"][row["footnote"] - 1]["text"] if row["footnote"] else ""
        for column in table["columns"]:
            cell = row["cells"][column] or {}
            rows.append([row["subtask"], row["dataset"] or "", column,
                         *(cell.get(figure, "") if cell.get(figure) is not None else "" for figure in CAMPAIGN_CSV_FIGURES),
                         *((row.get("gold_audit") or {}).get(count, "") for count in CAMPAIGN_CSV_AUDIT),
                         str(row["gold_synthetic"]).lower(), note or ((cell.get("quote") or {}).get("sentence", ""))])
    return _csv(headers, rows)


def campaign_file(table: dict, fmt: str) -> str:
    """The campaign table in ``fmt`` (json, md, csv, tex)."""
    if fmt == "json":
        return json.dumps(table, ensure_ascii=False, indent=2)
    if fmt == "csv":
        return campaign_csv(table)
    with translation.override("en"):
        headers, rows = campaign_grid(table, campaign_cell_text if fmt == "md" else cell_text)
        comparisons = campaign_comparison_grid(table)
    notes = [SYNTHETIC_NOTE] * table["gold_synthetic"] + _campaign_notes(table)
    models_caption = (f"{table['campaign']}: humans ({table['human_source']}) and models on the same items; "
                      f"difference = human − model in points, paired 95% interval, p: paired randomization "
                      f"({table['test_rounds']} rounds), Holm-adjusted over each model's subtasks")
    if fmt == "tex":
        text = _tex_table(headers, rows, _caption(table), notes, tex_label(table["campaign"], "campaign"), 1)
        if comparisons:
            text += "\n" + _tex_table(CAMPAIGN_COMPARISON_HEADERS, comparisons, models_caption, [],
                                      tex_label(table["campaign"], "models"), 2)
        return text
    banner = f"**{SYNTHETIC_NOTE}**\n\n" if table["gold_synthetic"] else ""
    listed = "\n".join(f"- {note}" for note in _campaign_notes(table))
    text = f"# {table['campaign']}\n\n{banner}{_caption(table)}\n\n{_markdown_table(headers, rows)}\n\n{listed}\n"
    if comparisons:
        text += f"\n## {models_caption}\n\n{_markdown_table(CAMPAIGN_COMPARISON_HEADERS, comparisons)}\n"
    return text


# The gold audit's counts of the report's dataset, the same on every row of its CSV.
REPORT_CSV_AUDIT = ("n_audited", "n_corrected", "n_withdrawn")


REPORT_CSV_HEADERS = ["source", "kind", "scored_on", "score", "ci_low", "ci_high", "n_scored", "n_missing",
                      "n_answered", "coverage", "score_audited", "n_scored_audited", *REPORT_CSV_AUDIT,
                      "gold_synthetic", "reason", "dawid_skene_accuracy"]


def report_csv(report: dict) -> str:
    """One row per source, every number whole in a column of its own (empty: none): the score
    on the benchmark's gold and on the audited gold with the gold audit's counts, whether the
    gold is synthetic, why a source has no score, and an annotator's Dawid–Skene estimated
    accuracy (empty where the subtask does not offer it)."""
    estimated = estimated_accuracies(report) or {}
    audit = report.get("gold_audit") or {}
    rows = []
    for row in report["sources"]:
        low, high = row["intervals"]["score"] if row.get("available") else (None, None)
        figures = [row.get("score"), low, high, row.get("n_scored"), row.get("n_missing"), row.get("n_answered"),
                   row.get("coverage"), row.get("score_audited"), row.get("n_scored_audited"),
                   *(audit.get(count) for count in REPORT_CSV_AUDIT)]
        rows.append([row["source"], row["kind"], row.get("scored_on", ""), *("" if value is None else value for value in figures),
                     str(report["gold_synthetic"]).lower(), row.get("reason", ""),
                     "" if estimated.get(row["source"]) is None else estimated[row["source"]]])
    return _csv(REPORT_CSV_HEADERS, rows)


def _plot_picture(plot: Plot, plot_files: dict[str, str] | None) -> str:
    """The plot as a Markdown picture: the file written beside the report, else the SVG itself."""
    alt = re.sub(r"([\\\[\]])", r"\\\1", plot.alt)  # the intervals' brackets, escaped in the picture's text
    if plot_files is not None:
        return f"![{alt}]({plot_files[plot.key]})" if plot.key in plot_files else ""
    data = base64.b64encode(plot.svg.encode("utf-8")).decode("ascii")
    return f"![{alt}](data:image/svg+xml;base64,{data})"


def _agreement_rows(report: dict) -> list[list[str]]:
    """Each agreement figure by its name, its key beside it, the value rounded (3 decimals; counts whole)."""
    reasons = report["agreement"].get("reasons", {})
    return [[agreement_name(key), key, NO_CELL + (f" ({reasons[key]})" if key in reasons else "") if value is None
             else str(value) if isinstance(value, int) else f"{value:.3f}"]
            for key, value in report["agreement"].items() if key != "reasons"]


def report_file(report: dict, plots: list[Plot], fmt: str, plot_files: dict[str, str] | None = None) -> str:
    """A dataset's report in ``fmt``: JSON holds every figure whole; CSV the sources' figures
    whole; Markdown and TeX the sources table and the models beside humans on the same items,
    rounded; Markdown also the mean annotator, agreement, the commands and the plots (English
    ``plots``) with their text alternatives and data tables, each plot embedded or, with
    ``plot_files`` (plot key -> file name beside it), a picture of that file."""
    if fmt == "json":
        return json.dumps(report, ensure_ascii=False, indent=2)
    if fmt == "csv":
        return report_csv(report)
    with translation.override("en"):
        return _report_text(report, plots, fmt, plot_files)


def _report_text(report: dict, plots: list[Plot], fmt: str, plot_files: dict[str, str] | None) -> str:
    headers, rows = source_grid(report)
    notes = [report["banner"]] if report["banner"] else []
    if report["excluded"]:
        notes.append(f"{report['excluded']['note']}: {', '.join(report['excluded']['annotators']) or 'nobody'}")
    notes.append(f"gold audit: {audit_counts_text(report['gold_audit'])}; {report['gold_audit']['note']}")
    notes.append(report["procedure"]["control_gold"])
    if dawid_skene_note(report):
        notes.append(dawid_skene_note(report))
    pilot = report["sample"].get("pilot_items")
    if pilot:
        notes.append(f"pilot items (answered by every annotator, beyond k): {', '.join(pilot)}")
    caption = (f"{report['dataset']} ({report['subtask']}): {score_name(report['subtask'])} per source, 95% interval "
               f"({report['resamples']} resamples, seed {report['seed']}); computed {moment_text(report['computed_at'])}, "
               f"{'frozen' if report['frozen'] else 'not frozen'}")
    models_caption = (f"{report['dataset']}: models beside humans, on the same items (difference human − model in "
                      f"points, paired 95% interval; p: paired randomization, {report['test_rounds']} rounds)")
    comparisons = comparison_grid(report)
    if fmt == "tex":
        text = _tex_table(headers, rows, caption, notes, tex_label(report["dataset"], "scores"), 2)
        if comparisons:
            text += "\n" + _tex_table(COMPARISON_HEADERS, comparisons, models_caption, [report["notes"]["mcnemar"]],
                                      tex_label(report["dataset"], "models"), 2)
        return text
    parts = [f"# {report['dataset']}", *(f"**{note}**" for note in notes), caption, _markdown_table(headers, rows)]
    if comparisons:
        parts.append(f"## {models_caption}")
        parts.append(_markdown_table(COMPARISON_HEADERS, comparisons))
        parts += [comparison["quote"]["sentence"] for comparison in report["comparisons"] if "quote" in comparison]
        parts.append(report["notes"]["mcnemar"])
    if report["mean_annotator"]:
        group = report["mean_annotator"]
        parts.append(f"Mean annotator: {cell_text({'score': group['mean'], 'ci_low': group.get('ci_low'), 'ci_high': group.get('ci_high')})}"
                     f" (two-way bootstrap), min {number(group['min'])}, max {number(group['max'])}, "
                     f"{group['n_annotators']} annotators")
    if report["best_annotator"]:
        best = report["best_annotator"]
        parts.append(f"Best annotator ({best['name']}): {number(best['score'])}: {best['note']}")
    parts += ["## Agreement", _markdown_table(["figure", "key", "value"], _agreement_rows(report))]
    parts.append("## Reproduce\n\n" + "\n".join(f"    {command}" for command in report["commands"]))
    for plot in plots:
        parts.append(f"## {plot.title}")
        parts += [picture for picture in [_plot_picture(plot, plot_files)] if picture]
        parts += [plot.alt, _markdown_table(plot.headers, plot.rows)]
    return "\n\n".join(parts) + "\n"
