"""Control-item accuracy over time as an SVG line plot (matplotlib, Agg backend: no display).

One line per annotator: after each submitted control answer, their mean correctness so far;
a dashed line marks the dataset's threshold. The page shows it as an <img> of its own URL,
so the SVG's own styling never meets the page's Content-Security-Policy.
"""

from __future__ import annotations

import io

import matplotlib
from matplotlib.figure import Figure  # noqa: E402

from annotation.training.selectors import ControlSeries

matplotlib.use("Agg")  # before anything draws: never a display


RC = {"svg.fonttype": "none", "svg.hashsalt": "polis-control", "font.size": 9}


def control_accuracy_svg(series: list[ControlSeries], threshold: float | None, title: str, no_data: str) -> bytes:
    with matplotlib.rc_context(RC):
        figure = Figure(figsize=(7, 3.2))
        axes = figure.add_subplot()
        for line in series:
            axes.plot(line.times, line.accuracy, marker="o", markersize=3, label=line.annotator)
        if threshold is not None:
            axes.axhline(threshold, linestyle="--", color="#b00020", linewidth=1)
        if not series:
            axes.text(0.5, 0.5, no_data, ha="center", va="center", transform=axes.transAxes)
        else:
            axes.legend(loc="lower left", fontsize=8)
            figure.autofmt_xdate()
        axes.set_ylim(-0.02, 1.02)
        axes.set_title(title)
        axes.grid(alpha=0.3)
        figure.tight_layout()
        out = io.BytesIO()
        figure.savefig(out, format="svg", metadata={"Date": None})
    return out.getvalue()
