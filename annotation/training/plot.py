"""Control-item accuracy over time as an SVG line plot (matplotlib, Agg backend: no display).

One line per annotator: after each submitted control answer, their mean correctness so far;
a dashed line marks the dataset's threshold. The time axis is in the site's time zone
(``settings.TIME_ZONE``), as the pages' times are, and the legend stands beside the axes, so
it never covers a point. The page shows it as an <img> of its own URL, so the SVG's own
styling never meets the page's Content-Security-Policy.
"""

from __future__ import annotations

import io

import matplotlib
from django.utils import timezone
from django.utils.translation import gettext as _
from matplotlib.figure import Figure  # noqa: E402

from annotation.training.selectors import ControlSeries

matplotlib.use("Agg")  # before anything draws: never a display


RC = {"svg.fonttype": "none", "svg.hashsalt": "polis-control", "font.size": 9}


def control_accuracy_figure(series: list[ControlSeries], threshold: float | None, title: str, no_data: str) -> Figure:
    """The plot, drawn in the active language; times shown in the site's time zone."""
    zone = timezone.get_current_timezone()
    with matplotlib.rc_context({**RC, "timezone": str(zone)}):
        figure = Figure(figsize=(7.6, 3.4), layout="constrained")
        axes = figure.add_subplot()
        for line in series:
            axes.plot([timezone.localtime(moment, zone) for moment in line.times], line.accuracy,
                      marker="o", markersize=3, label=line.annotator, clip_on=False)
        if threshold is not None:
            axes.axhline(threshold, linestyle="--", color="#b00020", linewidth=1, label=_("threshold"))
        if not series:
            axes.text(0.5, 0.5, no_data, ha="center", va="center", transform=axes.transAxes)
        else:
            axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0, fontsize=8)
            axes.tick_params(axis="x", labelrotation=30)
        axes.set_ylim(-0.05, 1.05)
        axes.set_xlabel(_("time (%(zone)s)") % {"zone": zone})
        axes.set_ylabel(_("control accuracy so far"))
        axes.set_title(title)
        axes.grid(alpha=0.3)
    return figure


def control_accuracy_svg(series: list[ControlSeries], threshold: float | None, title: str, no_data: str) -> bytes:
    figure = control_accuracy_figure(series, threshold, title, no_data)
    out = io.BytesIO()
    with matplotlib.rc_context({**RC, "timezone": str(timezone.get_current_timezone())}):
        figure.savefig(out, format="svg", metadata={"Date": None})
    return out.getvalue()
