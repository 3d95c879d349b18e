"""The report's plots, drawn on the server as SVG by matplotlib (no display, no script, no CDN).

Each plot comes with a text alternative (the SVG's <title> and <desc>, and the page's caption)
and the data table it draws. The SVG is made fit to be written into a page under a strict
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
from matplotlib.backends.backend_svg import FigureCanvasSVG  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

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


# One colour per model of the difficulty plot (then again from the first).
MODEL_COLOURS = ("#b05a00", "#1f4e79", "#2e7d32", "#6a1b9a", "#37474f")


@dataclass(frozen=True)
class Plot:
    key: str
    title: str
    alt: str  # the text alternative: what the plot shows, in words
    svg: str  # <svg> markup, CSP-safe
    headers: list[str]  # the data table drawn
    rows: list[list]


def _presentation(style: str) -> dict[str, str]:
    attributes = {}
    for declaration in style.split(";"):
        name, _, value = declaration.partition(":")
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


def _render(figure: Figure, title: str, alt: str) -> str:
    buffer = io.StringIO()
    with matplotlib.rc_context(RC):
        FigureCanvasSVG(figure).print_svg(buffer, metadata={"Date": None})
    return safe_svg(buffer.getvalue(), title, alt)


def _figure(report: dict, width: float, height: float) -> Figure:
    """A figure; with synthetic gold, the banner is drawn on it too (the SVG is downloadable alone)."""
    with matplotlib.rc_context(RC):
        figure = Figure(figsize=(width, height + (0.4 if report["banner"] else 0)), layout="constrained")
        if report["banner"]:
            figure.suptitle(report["banner"], color="#b05a00", fontweight="bold")
        return figure


def _title(report: dict, text: str) -> str:
    return f"{report['banner']}: {text}" if report["banner"] else text


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.4f}"


def scores_plot(report: dict) -> Plot | None:
    """Each available source's main score with its 95% interval."""
    rows = [row for row in report["sources"] if row.get("available")]
    if not rows:
        return None
    title = _title(report, f"{report['dataset']}: main score per source (95% interval)")
    table = [[row["source"], row["score"], *row["intervals"]["score"]] for row in rows]
    figure = _figure(report, 6.4, 0.45 * len(rows) + 1.2)
    with matplotlib.rc_context(RC):
        axes = figure.subplots()
        positions = list(range(len(rows)))[::-1]
        for position, (source, score, low, high) in zip(positions, table):
            color = "#b05a00" if source.startswith("model:") else "#1f4e79"
            errors = [[score - low], [high - score]] if low is not None else None
            axes.errorbar([score], [position], xerr=errors, fmt="o", color=color, capsize=3)
        axes.set_yticks(positions, [row[0] for row in table])
        axes.set_xlim(0, 1)
        axes.set_xlabel("score")
        axes.grid(axis="x", color="#dddddd")
    alt = "; ".join(f"{source}: {_number(score)} [{_number(low)}, {_number(high)}]" for source, score, low, high in table)
    return Plot("scores", title, f"{title}. {alt}.", _render(figure, title, alt),
                ["source", "score", "ci_low", "ci_high"], table)


def time_plot(report: dict) -> Plot | None:
    """The distribution of active time per submitted answer (a histogram, seconds)."""
    seconds = report["time"]["active_seconds"]
    if not seconds:
        return None
    title = _title(report, f"{report['dataset']}: active time per item")
    figure = _figure(report, 6.4, 3)
    with matplotlib.rc_context(RC):
        axes = figure.subplots()
        counts, edges, _ = axes.hist(seconds, bins=min(30, max(5, len(seconds) // 5)), color="#1f4e79")
        axes.set_xlabel("active seconds per item")
        axes.set_ylabel("answers")
    table = [[float(low), float(high), int(count)] for low, high, count in zip(edges, edges[1:], counts)]
    overall = report["time"]["overall"]
    alt = (f"{overall['n_items']} answers; median {_number(overall['median_s'])} s, "
           f"interquartile range {_number(overall['q1_s'])} to {_number(overall['q3_s'])} s")
    return Plot("time", title, f"{title}. {alt}.", _render(figure, title, alt),
                ["from_s", "to_s", "answers"], table)


def confusion_plot(report: dict, row: dict) -> Plot | None:
    """The confusion matrix (gold label x answered label) of one source, wsd and coreference."""
    confusion = row.get("breakdown", {}).get("confusion")
    if not confusion:
        return None
    labels, columns = confusion["labels"], confusion["columns"]
    matrix = [[confusion["rows"][gold][answer] for answer in columns] for gold in labels]
    title = _title(report, f"{report['dataset']}, {row['source']}: confusion matrix")
    figure = _figure(report, 4.2, 3.6)
    with matplotlib.rc_context(RC):
        axes = figure.subplots()
        axes.imshow(matrix, cmap="Blues")
        axes.set_xticks(range(len(columns)), columns)
        axes.set_yticks(range(len(labels)), labels)
        axes.set_xlabel("answered")
        axes.set_ylabel("gold")
        top = max(max(line) for line in matrix) or 1
        for y, line in enumerate(matrix):
            for x, count in enumerate(line):
                axes.text(x, y, str(count), ha="center", va="center", color="white" if count > top / 2 else "black")
    alt = "; ".join(f"gold {gold}: " + ", ".join(f"{answer} {count}" for answer, count in zip(columns, line))
                    for gold, line in zip(labels, matrix))
    return Plot(f"confusion-{row['source']}", title, f"{title}. {alt}.", _render(figure, title, alt),
                ["gold", *columns], [[gold, *line] for gold, line in zip(labels, matrix)])


def relations_plot(report: dict, row: dict) -> Plot | None:
    """The most frequent (gold relation, answered relation) pairs where the head is right (discourse)."""
    pairs = row.get("breakdown", {}).get("relation_confusions")
    if not pairs:
        return None
    title = _title(report, f"{report['dataset']}, {row['source']}: relation confusions (head right, relation wrong)")
    names = [f"{pair['gold']} → {pair['predicted']}" for pair in pairs]
    figure = _figure(report, 6.4, 0.35 * len(pairs) + 1.2)
    with matplotlib.rc_context(RC):
        axes = figure.subplots()
        axes.barh(list(range(len(pairs)))[::-1], [pair["count"] for pair in pairs], color="#1f4e79")
        axes.set_yticks(list(range(len(pairs)))[::-1], names)
        axes.set_xlabel("dependent DUs")
    alt = "; ".join(f"{name}: {pair['count']}" for name, pair in zip(names, pairs))
    return Plot(f"relations-{row['source']}", title, f"{title}. {alt}.", _render(figure, title, alt),
                ["gold", "predicted", "count"], [[pair["gold"], pair["predicted"], pair["count"]] for pair in pairs])


def difficulty_plot(report: dict) -> Plot | None:
    """Humans against models per item: each item at (the annotators' share right, the model's
    result), one colour per model, the items at one point (results rounded to 0.01) drawn as
    one marker sized by their number, so the drawing stays small whatever the dataset."""
    difficulty = report["item_difficulty"]
    if not difficulty["models"]:
        return None
    counts: Counter = Counter()
    for item in difficulty["items"]:
        if item["human"] is not None:
            for name in difficulty["models"]:
                counts[name, round(item["human"], 2), round(item["models"][name], 2)] += 1
    if not counts:
        return None
    title = _title(report, f"{report['dataset']}: annotators against models per item")
    figure = _figure(report, 6.4, 4)
    with matplotlib.rc_context(RC):
        axes = figure.subplots()
        for index, name in enumerate(difficulty["models"]):
            points = [(human, model, count) for (model_name, human, model), count in sorted(counts.items())
                      if model_name == name]
            axes.scatter([point[0] for point in points], [point[1] for point in points],
                         s=[12 + 6 * count ** 0.5 for _human, _model, count in points], alpha=0.6,
                         color=MODEL_COLOURS[index % len(MODEL_COLOURS)], label=name)
        axes.set_xlim(-0.05, 1.05)
        axes.set_ylim(-0.05, 1.05)
        axes.set_xlabel(f"annotators' mean {difficulty['figure']}")
        axes.set_ylabel(f"model's {difficulty['figure']}")
        axes.legend(loc="best")
        axes.grid(color="#dddddd")
    table = [[name, human, model, count] for (name, human, model), count in sorted(counts.items())]
    alt = (f"{difficulty['humans_only']['count']} items every annotator got right and every model wrong; "
           f"{difficulty['models_only']['count']} the reverse")
    return Plot("difficulty", title, f"{title}. {alt}.", _render(figure, title, alt),
                ["model", "annotators", "model_result", "items"], table)


def report_plots(report: dict) -> list[Plot]:
    """Every plot of a dataset's report, in the page's order."""
    plots = [scores_plot(report), time_plot(report), difficulty_plot(report)]
    for row in report["sources"]:
        if row.get("available"):
            plots += [confusion_plot(report, row), relations_plot(report, row)]
    return [plot for plot in plots if plot is not None]
