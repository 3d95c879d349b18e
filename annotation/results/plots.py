"""The report's plots, drawn on the server by matplotlib (no display, no script, no CDN).

Each plot is drawn in the active language (``translation.override(code)``: its title, axes,
text alternative and data table, numbers with that language's decimal separator), titled with
what it shows and the metric it plots, and comes with a text alternative (the SVG's <title>
and <desc>, and the page's caption) and the data table it draws.

One drawing function per plot (``scores_drawing``, ``time_drawing``, ``difficulty_drawing``,
``confusion_drawing``, ``relations_drawing``; ``report_drawings`` for all of a report) gives a ``Drawing``, and
``render(drawing, "svg" | "pdf")`` writes it; ``report_plots`` gives the SVG ``Plot`` rows a
computed report stores and pages show.

The SVG is made fit to be written into a page under a strict
Content-Security-Policy: matplotlib's style attributes and <style> element become SVG
presentation attributes (style-src 'self' allows those, not inline CSS), and nothing but
drawing elements remains.
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ElementTree
from collections import Counter
from dataclasses import dataclass

import matplotlib
from django.utils.formats import get_format
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from matplotlib.backends.backend_pdf import FigureCanvasPdf  # noqa: E402
from matplotlib.backends.backend_svg import FigureCanvasSVG  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

from annotation.results.labels import metric_name, score_name, source_name

matplotlib.use("Agg")  # before anything draws: never a display


SVG = "http://www.w3.org/2000/svg"


XLINK = "http://www.w3.org/1999/xlink"


ElementTree.register_namespace("", SVG)


ElementTree.register_namespace("xlink", XLINK)


# The CSS properties matplotlib writes that are SVG presentation attributes of the same name.
PRESENTATION = {
    "fill", "fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-opacity", "stroke-linecap",
    "stroke-linejoin", "stroke-dasharray", "stroke-dashoffset", "stroke-miterlimit", "opacity", "font-size",
    "font-family", "font-weight", "font-style", "text-anchor", "clip-path", "dominant-baseline",
}


FONT = re.compile(r"^(?:(?P<style>italic|oblique|normal)\s+)?(?:(?P<weight>bold|normal|\d00)\s+)?"
                  r"(?P<size>[\d.]+px)\s+(?P<family>.+)$")


RC = {"svg.fonttype": "none", "svg.hashsalt": "polis-report", "font.size": 9}


# The score axis shows 0 and 1 whole: a marker at either end is drawn in full, not cut in half.
SCORE_LIMITS = (-0.05, 1.05)


# One colour per model of the difficulty plot (then again from the first).
MODEL_COLOURS = ("#b05a00", "#1f4e79", "#2e7d32", "#6a1b9a", "#37474f")


@dataclass(frozen=True)
class Plot:
    """A plot as a computed report stores it: its SVG, drawn in ``language``."""

    key: str
    title: str
    alt: str  # the text alternative: what the plot shows, in words
    svg: str  # <svg> markup, CSP-safe
    headers: list[str]  # the data table drawn
    rows: list[list]
    language: str = "en"


@dataclass(frozen=True)
class Drawing:
    """A plot drawn, before it is written: ``render(drawing, "svg" | "pdf")``."""

    key: str
    title: str
    alt: str
    figure: Figure
    headers: list[str]
    rows: list[list]


def _presentation(style: str) -> dict[str, str]:
    attributes = {}
    for declaration in style.split(";"):
        name, _colon, value = declaration.partition(":")
        name, value = name.strip(), value.strip()
        if name == "font" and (font := FONT.match(value)):
            attributes.update({f"font-{part}": font[part] for part in ("style", "weight", "size", "family") if font[part]})
        elif name in PRESENTATION and value:
            attributes[name] = value
    return attributes


def safe_svg(data: str, title: str, alt: str) -> str:
    """matplotlib's SVG with presentation attributes instead of CSS, a <title> and <desc>, role=img."""
    root = ElementTree.fromstring(data)
    for parent in root.iter():
        for child in list(parent):
            if child.tag in (f"{{{SVG}}}style", f"{{{SVG}}}script", f"{{{SVG}}}metadata"):
                parent.remove(child)
    for element in root.iter():
        style = element.attrib.pop("style", None)
        if style:
            for name, value in _presentation(style).items():
                element.set(name, value)
        for name in [name for name in element.attrib if name.startswith("on")]:
            del element.attrib[name]
    root.set("role", "img")
    root.set("stroke-linejoin", "round")  # what matplotlib's <style> said for every element
    title_element, desc_element = ElementTree.Element(f"{{{SVG}}}title"), ElementTree.Element(f"{{{SVG}}}desc")
    title_element.text, desc_element.text = title, alt
    root.insert(0, desc_element)
    root.insert(0, title_element)
    return ElementTree.tostring(root, encoding="unicode")


RENDERINGS = ("svg", "pdf")


def render(drawing: Drawing, fmt: str = "svg") -> str | bytes:
    """The drawing as ``svg`` (CSP-safe markup, with its title and text alternative) or ``pdf``
    (bytes, fonts embedded), both without a date, so the same report gives the same bytes."""
    if fmt not in RENDERINGS:
        raise ValueError(f"a plot is rendered as {' or '.join(RENDERINGS)}, not {fmt!r}")
    with matplotlib.rc_context(RC):
        if fmt == "pdf":
            out = io.BytesIO()
            FigureCanvasPdf(drawing.figure).print_pdf(out, metadata={"CreationDate": None, "Title": drawing.title})
            return out.getvalue()
        buffer = io.StringIO()
        FigureCanvasSVG(drawing.figure).print_svg(buffer, metadata={"Date": None})
    return safe_svg(buffer.getvalue(), drawing.title, drawing.alt)


def number_text(value: float | None, decimals: int) -> str:
    """A number for people, rounded, with the active language's decimal separator ("—": none)."""
    if value is None:
        return "—"
    return f"{value:.{decimals}f}".replace(".", get_format("DECIMAL_SEPARATOR"))


def percent_text(value: float | None) -> str:
    """A share (0..1) as a percent with one decimal, "81.2%" ("81,2%" in Polish)."""
    return "—" if value is None else number_text(100 * value, 1) + "%"


def _ticks(decimals: int) -> FuncFormatter:
    return FuncFormatter(lambda value, _position: number_text(value, decimals))


def _figure(report: dict, width: float, height: float) -> Figure:
    """A figure; with synthetic gold, the banner is drawn on it too (the SVG is downloadable alone)."""
    with matplotlib.rc_context(RC):
        figure = Figure(figsize=(width, height + (0.4 if report["banner"] else 0)), layout="constrained")
        if report["banner"]:
            figure.suptitle(_(report["banner"]), color="#b05a00", fontweight="bold")
        return figure


def _title(report: dict, text: str) -> str:
    return f"{_(report['banner'])}: {text}" if report["banner"] else text


def scores_drawing(report: dict) -> Drawing | None:
    """Each available source's main score with its 95% interval, on a 0..1 axis named for the metric."""
    rows = [row for row in report["sources"] if row.get("available")]
    if not rows:
        return None
    metric = score_name(report["subtask"])
    shown = _("%(dataset)s: %(metric)s per source (95%% interval)") % {"dataset": report["dataset"], "metric": metric}
    title = _title(report, shown)
    table = [[source_name(row["source"]), row["score"], *row["intervals"]["score"]] for row in rows]
    figure = _figure(report, 6.4, 0.45 * len(rows) + 1.4)
    with matplotlib.rc_context(RC):
        axes = figure.subplots()
        positions = list(range(len(rows)))[::-1]
        for position, row, (_name, score, low, high) in zip(positions, rows, table):
            color = "#b05a00" if row["kind"] == "model" else "#1f4e79"
            errors = [[score - low], [high - score]] if low is not None else None
            axes.errorbar([score], [position], xerr=errors, fmt="o", color=color, capsize=3, clip_on=False)
        axes.set_yticks(positions, [line[0] for line in table])
        axes.set_xlim(*SCORE_LIMITS)
        axes.xaxis.set_major_formatter(_ticks(1))
        axes.set_xlabel(metric)
        axes.set_title(shown)
        axes.grid(axis="x", color="#dddddd")
    alt = "; ".join(f"{name}: {percent_text(score)} [{percent_text(low)}, {percent_text(high)}]"
                    for name, score, low, high in table)
    return Drawing("scores", title, f"{title}. {alt}.", figure,
                   [_("source"), f"{metric} (%)", _("95% interval from (%)"), _("95% interval to (%)")],
                   [[name, *(number_text(None if value is None else 100 * value, 1) for value in values)]
                    for name, *values in table])


def time_drawing(report: dict) -> Drawing | None:
    """The distribution of active time per submitted answer (a histogram, seconds)."""
    seconds = report["time"]["active_seconds"]
    if not seconds:
        return None
    shown = _("%(dataset)s: active time per item") % {"dataset": report["dataset"]}
    title = _title(report, shown)
    figure = _figure(report, 6.4, 3.2)
    with matplotlib.rc_context(RC):
        axes = figure.subplots()
        counts, edges, _patches = axes.hist(seconds, bins=min(30, max(5, len(seconds) // 5)), color="#1f4e79")
        axes.xaxis.set_major_formatter(_ticks(0))
        axes.set_xlabel(_("active seconds per item"))
        axes.set_ylabel(_("answers"))
        axes.set_title(shown)
    table = [[number_text(float(low), 1), number_text(float(high), 1), int(count)]
             for low, high, count in zip(edges, edges[1:], counts)]
    overall = report["time"]["overall"]
    alt = _("%(answers)s answers; median %(median)s s, interquartile range %(q1)s to %(q3)s s") % {
        "answers": overall["n_items"], "median": number_text(overall["median_s"], 1),
        "q1": number_text(overall["q1_s"], 1), "q3": number_text(overall["q3_s"], 1)}
    return Drawing("time", title, f"{title}. {alt}.", figure, [_("from (s)"), _("to (s)"), _("answers")], table)


def confusion_drawing(report: dict, row: dict) -> Drawing | None:
    """The confusion matrix (gold label x answered label) of one source, wsd and coreference."""
    confusion = row.get("breakdown", {}).get("confusion")
    if not confusion:
        return None
    labels, columns = confusion["labels"], confusion["columns"]
    matrix = [[confusion["rows"][gold][answer] for answer in columns] for gold in labels]
    shown = _("%(dataset)s, %(source)s: confusion matrix (answers per gold label)") % {
        "dataset": report["dataset"], "source": source_name(row["source"])}
    title = _title(report, shown)
    figure = _figure(report, 4.6, 4)
    with matplotlib.rc_context(RC):
        axes = figure.subplots()
        axes.imshow(matrix, cmap="Blues")
        axes.set_xticks(range(len(columns)), columns)
        axes.set_yticks(range(len(labels)), labels)
        axes.set_xlabel(_("answered"))
        axes.set_ylabel(_("gold"))
        axes.set_title(shown, wrap=True)
        top = max(max(line) for line in matrix) or 1
        for y, line in enumerate(matrix):
            for x, count in enumerate(line):
                axes.text(x, y, str(count), ha="center", va="center", color="white" if count > top / 2 else "black")
    alt = "; ".join(_("gold %(label)s: %(counts)s") % {
        "label": gold, "counts": ", ".join(f"{answer} {count}" for answer, count in zip(columns, line))}
        for gold, line in zip(labels, matrix))
    return Drawing(f"confusion-{row['source']}", title, f"{title}. {alt}.", figure,
                   [_("gold"), *columns], [[gold, *line] for gold, line in zip(labels, matrix)])


def relations_drawing(report: dict, row: dict) -> Drawing | None:
    """The most frequent (gold relation, answered relation) pairs where the head is right (discourse)."""
    pairs = row.get("breakdown", {}).get("relation_confusions")
    if not pairs:
        return None
    shown = _("%(dataset)s, %(source)s: relation confusions (head right, relation wrong)") % {
        "dataset": report["dataset"], "source": source_name(row["source"])}
    title = _title(report, shown)
    names = [f"{pair['gold']} → {pair['predicted']}" for pair in pairs]
    figure = _figure(report, 6.4, 0.35 * len(pairs) + 1.4)
    with matplotlib.rc_context(RC):
        axes = figure.subplots()
        axes.barh(list(range(len(pairs)))[::-1], [pair["count"] for pair in pairs], color="#1f4e79")
        axes.set_yticks(list(range(len(pairs)))[::-1], names)
        axes.set_xlabel(_("dependent discourse units"))
        axes.set_title(shown, wrap=True)
    alt = "; ".join(f"{name}: {pair['count']}" for name, pair in zip(names, pairs))
    return Drawing(f"relations-{row['source']}", title, f"{title}. {alt}.", figure,
                   [_("gold"), _("answered"), _("count")],
                   [[pair["gold"], pair["predicted"], pair["count"]] for pair in pairs])


def report_drawings(report: dict) -> list[Drawing]:
    """Every plot of a dataset's report, in the page's order, drawn in the active language."""
    drawings = [scores_drawing(report), time_drawing(report), difficulty_drawing(report)]
    for row in report["sources"]:
        if row.get("available"):
            drawings += [confusion_drawing(report, row), relations_drawing(report, row)]
    return [drawing for drawing in drawings if drawing is not None]


def stored_plot(drawing: Drawing) -> Plot:
    """A drawing as the SVG plot a computed report stores, marked with the active language."""
    return Plot(drawing.key, drawing.title, drawing.alt, render(drawing, "svg"), drawing.headers, drawing.rows,
                get_language())


def difficulty_drawing(report: dict) -> Drawing | None:
    """Humans against models per item: each item at (the annotators' mean item figure, the
    model's), one colour per model, the items at one point (results rounded to 0.01) drawn as
    one marker sized by their number, so the drawing stays small whatever the dataset."""
    difficulty = report.get("item_difficulty")  # a report computed before the gold audit has none
    if not difficulty or not difficulty["models"]:
        return None
    counts: Counter = Counter()
    for item in difficulty["items"]:
        if item["human"] is not None:
            for name in difficulty["models"]:
                counts[name, round(item["human"], 2), round(item["models"][name], 2)] += 1
    if not counts:
        return None
    figure_name = metric_name(difficulty["figure"])
    shown = _("%(dataset)s: annotators against models per item (%(metric)s)") % {
        "dataset": report["dataset"], "metric": figure_name}
    title = _title(report, shown)
    figure = _figure(report, 6.4, 4)
    with matplotlib.rc_context(RC):
        axes = figure.subplots()
        for index, name in enumerate(difficulty["models"]):
            points = [(human, model, count) for (model_name, human, model), count in sorted(counts.items())
                      if model_name == name]
            axes.scatter([point[0] for point in points], [point[1] for point in points],
                         s=[12 + 6 * count ** 0.5 for _human, _model, count in points], alpha=0.6,
                         color=MODEL_COLOURS[index % len(MODEL_COLOURS)], label=source_name(f"model:{name}"))
        axes.set_xlim(*SCORE_LIMITS)
        axes.set_ylim(*SCORE_LIMITS)
        axes.xaxis.set_major_formatter(_ticks(1))
        axes.yaxis.set_major_formatter(_ticks(1))
        axes.set_xlabel(_("annotators' mean %(metric)s") % {"metric": figure_name})
        axes.set_ylabel(_("model's %(metric)s") % {"metric": figure_name})
        axes.set_title(shown, wrap=True)
        axes.legend(loc="best")
        axes.grid(color="#dddddd")
    alt = _("%(humans_only)s items every annotator got right and every model wrong; %(models_only)s the reverse") % {
        "humans_only": difficulty["humans_only"]["count"], "models_only": difficulty["models_only"]["count"]}
    return Drawing("difficulty", title, f"{title}. {alt}.", figure,
                   [_("model"), _("annotators' mean"), _("model's result"), _("items")],
                   [[source_name(f"model:{name}"), number_text(human, 2), number_text(model, 2), count]
                    for (name, human, model), count in sorted(counts.items())])


def report_plots(report: dict) -> list[Plot]:
    """Every plot of a dataset's report as SVG, drawn in the active language."""
    return [stored_plot(drawing) for drawing in report_drawings(report)]


def plot_part_key(language: str, key: str) -> str:
    """The key a computed report stores plot ``key`` drawn in ``language`` under."""
    return f"{language}/{key}"
