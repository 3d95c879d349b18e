"""The report and the campaign table as files: JSON (every figure), Markdown, LaTeX (booktabs) and CSV.

A cell is the score and its 95% interval, "0.8123 [0.7900, 0.8311]"; a dataset with synthetic
gold shows "—" and a footnote; a source that has no score shows "n/a".
"""

from __future__ import annotations

import csv
import io
import json

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


def number(value: float | None) -> str:
    return NO_CELL if value is None else f"{value:.4f}"


def cell_text(cell: dict | None, synthetic_mark: str | None = None) -> str:
    if synthetic_mark is not None:
        return SYNTHETIC_CELL + synthetic_mark
    if cell is None:
        return NO_CELL
    if cell.get("ci_low") is None:
        return number(cell["score"])
    return f"{number(cell['score'])} [{number(cell['ci_low'])}, {number(cell['ci_high'])}]"


def p_cell(value: float | None) -> str:
    return NO_CELL if value is None else f"{value:.4f}"


def campaign_cell_text(cell: dict | None, synthetic_mark: str | None = None) -> str:
    """A campaign cell: the score and interval; the human source's also its items and coverage
    of the gold, the mean annotator's how many annotators; a model's the difference (human −
    model) with its interval, p and Holm's adjusted p."""
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


def campaign_grid(table: dict) -> tuple[list[str], list[list[str]]]:
    """(headers, rows of text) of the campaign table."""
    headers = ["subtask", *table["columns"]]
    rows = []
    for row in table["rows"]:
        mark = f" [{row['footnote']}]" if row["footnote"] else None
        rows.append([row["subtask"], *(campaign_cell_text(row["cells"][column], mark) for column in table["columns"])])
    return headers, rows


def source_grid(report: dict) -> tuple[list[str], list[list[str]]]:
    """(headers, rows of text) of a dataset report's sources."""
    headers = ["source", "scored on", "score [95% interval]", "items scored", "missing", "coverage",
               "audited gold", "items (audited gold)"]
    rows = []
    for row in report["sources"]:
        if not row.get("available"):
            rows.append([row["source"], NO_CELL, row["reason"], "", "", "", "", ""])
            continue
        low, high = row["intervals"]["score"]
        rows.append([row["source"], row["scored_on"], cell_text({"score": row["score"], "ci_low": low, "ci_high": high}),
                     str(row["n_scored"]), str(row["n_missing"]), f"{row['coverage']:.1%}",
                     number(row.get("score_audited")), str(row.get("n_scored_audited", ""))])
    return headers, rows


def _markdown_table(headers: list[str], rows: list[list]) -> str:
    def line(cells):
        return "| " + " | ".join(str(cell).replace("|", "\\|") for cell in cells) + " |"
    return "\n".join([line(headers), line(["---"] * len(headers)), *(line(row) for row in rows)])


TEX_SPECIALS = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}", "—": "---"}


def tex_escape(text: str) -> str:
    return "".join(TEX_SPECIALS.get(character, character) for character in str(text))


def _tex_table(headers: list[str], rows: list[list[str]], caption: str, notes: list[str]) -> str:
    lines = [
        r"% needs \usepackage{booktabs}",
        r"\begin{table}",
        r"\centering",
        r"\begin{tabular}{l" + "r" * (len(headers) - 1) + "}",
        r"\toprule",
        " & ".join(tex_escape(header) for header in headers) + r" \\",
        r"\midrule",
        *(" & ".join(tex_escape(cell) for cell in row) + r" \\" for row in rows),
        r"\bottomrule",
        r"\end{tabular}",
        *(r"\par{\footnotesize " + tex_escape(note) + "}" for note in notes),
        r"\caption{" + tex_escape(caption) + "}",
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
            f"({table['resamples']} resamples, seed {table['seed']}); computed {table['computed_at']}")


CAMPAIGN_CSV_FIGURES = ("score", "ci_low", "ci_high", "n_items", "diff", "diff_ci_low", "diff_ci_high", "p_value",
                        "p_holm", "mcnemar_p", "n_a_only", "n_b_only", "score_audited")
# The gold audit's counts of the row's dataset, beside each of its cells.
CAMPAIGN_CSV_AUDIT = ("n_audited", "n_corrected", "n_withdrawn")


def campaign_csv(table: dict) -> str:
    """One row per (subtask, column) with every number, and the footnote."""
    headers = ["subtask", "dataset", "column", *CAMPAIGN_CSV_FIGURES, *CAMPAIGN_CSV_AUDIT, "note"]
    rows = [[SYNTHETIC_NOTE]] if table["gold_synthetic"] else []
    for row in table["rows"]:
        note = table["footnotes"][row["footnote"] - 1]["text"] if row["footnote"] else ""
        for column in table["columns"]:
            cell = row["cells"][column] or {}
            rows.append([row["subtask"], row["dataset"] or "", column,
                         *(cell.get(figure, "") if cell.get(figure) is not None else "" for figure in CAMPAIGN_CSV_FIGURES),
                         *((row.get("gold_audit") or {}).get(count, "") for count in CAMPAIGN_CSV_AUDIT),
                         note or ((cell.get("quote") or {}).get("sentence", ""))])
    return _csv(headers, rows)


def campaign_file(table: dict, fmt: str) -> str:
    """The campaign table in ``fmt`` (json, md, csv, tex)."""
    if fmt == "json":
        return json.dumps(table, ensure_ascii=False, indent=2)
    if fmt == "csv":
        return campaign_csv(table)
    headers, rows = campaign_grid(table)
    if fmt == "tex":
        return _tex_table(headers, rows, _caption(table), [SYNTHETIC_NOTE] * table["gold_synthetic"] + _campaign_notes(table))
    banner = f"**{SYNTHETIC_NOTE}**\n\n" if table["gold_synthetic"] else ""
    notes = "\n".join(f"- {note}" for note in _campaign_notes(table))
    return f"# {table['campaign']}\n\n{banner}{_caption(table)}\n\n{_markdown_table(headers, rows)}\n\n{notes}\n"


def report_file(report: dict, plots: list[Plot], fmt: str, plot_files: dict[str, str] | None = None) -> str:
    """A dataset's report in ``fmt``: JSON holds every figure; the others the sources table,
    the comparisons, and each plot's text alternative and data table; Markdown shows the
    plots written as ``plot_files`` (plot key -> file name beside it)."""
    if fmt == "json":
        return json.dumps(report, ensure_ascii=False, indent=2)
    headers, rows = source_grid(report)
    notes = [report["banner"]] if report["banner"] else []
    if report["excluded"]:
        notes.append(f"{report['excluded']['note']}: {', '.join(report['excluded']['annotators']) or 'nobody'}")
    notes.append(f"gold audit: {audit_counts_text(report['gold_audit'])}; {report['gold_audit']['note']}")
    notes.append(report["procedure"]["control_gold"])
    if fmt == "csv":
        return _csv(headers, [[note] for note in notes] + rows)
    caption = (f"{report['dataset']} ({report['subtask']}): main score per source, 95% interval "
               f"({report['resamples']} resamples, seed {report['seed']}); computed {report['computed_at']}, "
               f"{'frozen' if report['frozen'] else 'not frozen'}")
    if fmt == "tex":
        return _tex_table(headers, rows, caption, notes)
    parts = [f"# {report['dataset']}", *(f"**{note}**" for note in notes), caption, _markdown_table(headers, rows)]
    if report["comparisons"]:
        parts.append("## Models beside humans, on the same items (difference human − model, paired 95% interval)")
        parts.append(_markdown_table(
            ["human", "model", "items", "human", "model", "difference [95% interval]", "p", "McNemar p (b, c)"],
            [[comparison["human"], comparison["model"], str(comparison["n_scored"]), number(comparison["score_human"]),
              number(comparison["score_model"]),
              cell_text({"score": comparison["diff"], "ci_low": comparison["diff_ci"][0],
                         "ci_high": comparison["diff_ci"][1]}),
              p_cell(comparison.get("p_value")),
              f"{p_cell(comparison.get('mcnemar_p'))} ({comparison.get('n_a_only')}, {comparison.get('n_b_only')})"
              if "mcnemar_p" in comparison else NO_CELL] for comparison in report["comparisons"]],
        ))
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
    parts.append("## Reproduce\n\n" + "\n".join(f"    {command}" for command in report["commands"]))
    for plot in plots:
        parts.append(f"## {plot.title}")
        if plot_files and plot.key in plot_files:
            parts.append(f"![{plot.alt}]({plot_files[plot.key]})")
        parts += [plot.alt, _markdown_table(plot.headers, plot.rows)]
    return "\n\n".join(parts) + "\n"
