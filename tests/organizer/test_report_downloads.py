"""The report's downloads and plots follow one set of rules: the Markdown shows the plots, the
CSV has one value per column under one header row, the TeX tables are labelled, left-align their
names and include models beside humans on the same items, numbers are rounded for people in
text and tables and whole in JSON, and every plot is titled, names its metric and shows the
markers at 0 and 1 whole. Pages and plots speak the page's language (names for keys, the
decimal comma in Polish) and show times in the site's time zone."""

import base64
import csv
import io
import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ElementTree
from datetime import UTC, datetime, timedelta

import pytest
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone, translation

from annotation.models import StoredReport
from annotation.results.formats import REPORT_CSV_HEADERS, p_figure
from annotation.results.plots import SCORE_LIMITS, render, report_plots, scores_drawing
from annotation.results.report import dataset_report, p_text
from annotation.results.services import create_campaign, upload_model_submission
from annotation.training.plot import control_accuracy_figure
from annotation.training.selectors import ControlSeries
from tests.organizer.test_report import model_file, organizer_client, wsd_dataset  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

SVG_TEXT = "{http://www.w3.org/2000/svg}text"


def download(client, url: str, fmt: str) -> str:
    return client.get(f"{url}?format={fmt}").content.decode()


@pytest.fixture
def with_model(wsd_dataset):  # noqa: F811
    upload_model_submission(dataset=wsd_dataset, name="m", submission=model_file("ABCC"))
    return wsd_dataset


def report_url(dataset) -> str:
    return reverse("organizer_report", args=[dataset.pk])


def test_the_markdown_shows_every_plot_and_has_no_float_noise(with_model):
    client = organizer_client()
    markdown = download(client, report_url(with_model), "md")
    stored = StoredReport.objects.get()
    english = [plot for plot in stored.plots if plot["language"] == "en"]
    pictures = re.findall(r"!\[(?:\\.|[^\]\\])*\]\(data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)\)", markdown)
    assert len(pictures) == len(english) >= 4
    assert [ElementTree.fromstring(base64.b64decode(picture)).find("{http://www.w3.org/2000/svg}title").text
            for picture in pictures] == [plot["title"] for plot in english]
    text = re.sub(r"\(data:image[^)]*\)", "", markdown)
    assert not re.search(r"\d\.\d{5,}", text)  # 13.333333333333334 s, 0.7374999999999999: rounded for people
    assert "| annotator:ann1 | answered items | 50.0 [" in text  # percent, one decimal
    assert "## Agreement" in text and "| Krippendorff's alpha | alpha |" in text  # the name, the key beside it


def test_the_csv_has_one_value_per_column_and_one_header_row(with_model):
    client = organizer_client()
    rows = list(csv.reader(io.StringIO(download(client, report_url(with_model), "csv"))))
    assert rows[0] == REPORT_CSV_HEADERS
    report = json.loads(download(client, report_url(with_model), "json"))
    assert len(rows) == 1 + len(report["sources"])
    for line, source in zip(rows[1:], report["sources"]):
        row = dict(zip(rows[0], line))
        assert row["source"] == source["source"]
        # Whole numbers, each in its own column, the same as the JSON's.
        assert float(row["score"]) == source["score"]
        assert [float(row["ci_low"]), float(row["ci_high"])] == source["intervals"]["score"]
        assert int(row["n_scored"]) == source["n_scored"] and float(row["coverage"]) == source["coverage"]
        # The score on the audited gold and the gold audit's counts, each in its own column too.
        assert float(row["score_audited"]) == source["score_audited"]
        assert int(row["n_scored_audited"]) == source["n_scored_audited"]
        assert [int(row[count]) for count in ("n_audited", "n_corrected", "n_withdrawn")] == [
            report["gold_audit"][count] for count in ("n_audited", "n_corrected", "n_withdrawn")]


def test_the_campaign_csv_has_no_banner_row(with_model):
    with_model.gold_synthetic = True
    with_model.save()
    campaign = create_campaign(name="test-csv", datasets=[with_model])
    text = download(organizer_client(), reverse("organizer_campaign", args=[campaign.pk]), "csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert "synthetic gold" not in text.splitlines()[1]
    assert {row["subtask"] for row in rows} == {"morphosyntax", "numerals", "wsd", "coreference", "discourse", "commas"}
    assert {row["gold_synthetic"] for row in rows if row["subtask"] == "wsd"} == {"true"}


def test_the_tex_tables_are_labelled_left_align_names_and_set_models_beside_humans(with_model):
    client = organizer_client()
    tex = download(client, report_url(with_model), "tex")
    # The names left, the figures right: score, items, missing, coverage, the audited gold's score
    # and items, the Dawid–Skene estimated accuracy.
    assert r"\begin{tabular}{llrrrrrrr}" in tex and r"\label{tab:wsd-tiny:scores}" in tex
    assert r"\label{tab:wsd-tiny:models}" in tex and "majority & model:m & 3 & 50.0 & 75.0 &" in tex
    assert not re.search(r"\d\d:\d\d:\d\d", tex)  # computed to the minute, no seconds or microseconds
    computed = timezone.localtime(StoredReport.objects.get().computed_at)
    assert f"computed {computed:%Y-%m-%d}" in tex and ("CET" in tex or "CEST" in tex)  # the site's time zone
    campaign = create_campaign(name="test-tex", datasets=[with_model])
    table = download(client, reverse("organizer_campaign", args=[campaign.pk]), "tex")
    assert r"\label{tab:test-tex:campaign}" in table and r"\begin{tabular}{lrrr}" in table
    assert r"\label{tab:test-tex:models}" in table and r"\begin{tabular}{llrrrrrr}" in table
    assert "wsd & model:m & 3 & 50.0 [" in table and "−" not in table  # a minus pdflatex reads: $-$


def test_p_values_read_as_people_write_them():
    assert [p_figure(value) for value in (0.0004, 0.001, 0.01234, 0.05, 0.2345, 1.0)] == \
        ["< 0.001", "0.0010", "0.012", "0.050", "0.23", "1.0"]
    assert (p_text(0.0004), p_text(0.2345), p_text(None)) == ("p < 0.001", "p = 0.23", "no test")


def test_plots_are_titled_name_the_metric_and_show_the_ends_whole(with_model):
    report = dataset_report(with_model, resamples=50)
    drawing = scores_drawing(report)
    axes = drawing.figure.axes[0]
    assert axes.get_xlim() == SCORE_LIMITS and SCORE_LIMITS[0] < 0 and SCORE_LIMITS[1] > 1
    assert axes.get_xlabel() == "macro-F1" and "macro-F1" in axes.get_title()
    drawn = [element.text for element in ElementTree.fromstring(render(drawing, "svg")).iter(SVG_TEXT)]
    assert axes.get_title() in drawn and "macro-F1" in drawn  # the title and the metric are drawn
    assert render(drawing, "pdf").startswith(b"%PDF")
    for plot in report_plots(report):
        texts = [element.text for element in ElementTree.fromstring(plot.svg).iter(SVG_TEXT)]
        assert any(text and plot.title.startswith(text) for text in texts), plot.key


def test_plots_are_drawn_in_the_pages_language(with_model):
    client = organizer_client()
    url = report_url(with_model)
    polish = client.get(f"{url}?plot=scores", HTTP_ACCEPT_LANGUAGE="pl").content.decode()
    english = client.get(f"{url}?plot=scores", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "makro-F1 według źródła" in polish and "anotator ann1: 50,0% [0,0%, 50,0%]" in polish
    assert "macro-F1 per source" in english and "annotator ann1: 50.0% [0.0%, 50.0%]" in english
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="pl").content.decode()
    assert "makro-F1 według źródła" in page and "per source" not in page
    with translation.override("pl"):
        ticks = [element.text for plot in report_plots(dataset_report(with_model, resamples=20)) if plot.key == "scores"
                 for element in ElementTree.fromstring(plot.svg).iter(SVG_TEXT)]
    assert "0,2" in ticks and "0.2" not in ticks  # the axis too


def test_the_polish_report_page_names_keys_and_writes_decimal_commas(with_model):
    client = organizer_client()
    page = client.get(report_url(with_model), HTTP_ACCEPT_LANGUAGE="pl").content.decode()
    for english in ("answered items", "all gold items", "macro-F1 averages", ">alpha<", ">fleiss_kappa<",
                    "annotator:ann1", "model:m<", "macro_f1 ", "accuracy "):
        assert english not in page, english
    assert "pozycje z odpowiedzią" in page and "makro-F1 to średnia F1" in page and "trafność 0,6667" in page
    assert "alfa Krippendorffa" in page and "kappa Fleissa" in page and "anotator ann1" in page
    assert "50,0% [0,0, 50,0]" in page and "10\xa0000 rund" in page and "50.0%" not in page
    campaign = create_campaign(name="test-pl", datasets=[with_model])
    table = client.get(reverse("organizer_campaign", args=[campaign.pk]), HTTP_ACCEPT_LANGUAGE="pl").content.decode()
    head = table.split("<thead>", 1)[1].split("</thead>", 1)[0]
    assert "podzadanie" in head and "źródło ludzkie" in head and "średni anotator" in head and "model m" in head
    assert "mean annotator" not in head and "human source" not in head
    cells = re.findall(r'<td class="num">([^<]*)</td>', table.split('id="campaign-table"', 1)[1].split("</table>", 1)[0])
    numbers = [cell for cell in cells if re.search(r"\d", cell)]
    assert numbers and all("," in cell and not re.search(r"\d\.\d", cell) for cell in numbers)
    assert "0,7500 [" in table and "(2 anotatorzy)" in table and "różnica" in table
    assert "50,0% [0,0, 50,0]" in table and "50.0%" not in table  # the quotable sentence too
    # The downloads keep the decimal point and the keys whatever the page's language.
    markdown = client.get(f"{report_url(with_model)}?format=md", HTTP_ACCEPT_LANGUAGE="pl").content.decode()
    assert "| annotator:ann1 | answered items | 50.0 [" in markdown


def test_the_export_page_names_its_sources_in_polish(with_model):
    page = organizer_client().get(reverse("organizer_exports", args=[with_model.pk]),
                                  HTTP_ACCEPT_LANGUAGE="pl").content.decode()
    assert "anotator ann1" in page and "większość uzupełniona rozstrzygnięciami" in page
    assert "rozstrzygnięte" in page and "wszystkie odpowiedzi" in page
    assert "filled from" not in page and "<code>--source majority --fill adjudicated</code>" in page


def test_the_report_page_shows_times_in_the_sites_time_zone(with_model):
    client = organizer_client()
    client.get(report_url(with_model))
    computed = datetime.fromisoformat(StoredReport.objects.get().report["computed_at"])  # stored in UTC
    page = client.get(report_url(with_model)).content.decode()
    local = timezone.localtime(computed)
    assert local.utcoffset() in (timedelta(hours=1), timedelta(hours=2))  # Europe/Warsaw, the default
    assert f'">{local:%Y-%m-%d %H:%M}</time></dd>' in page
    StoredReport.objects.all().delete()
    with override_settings(TIME_ZONE="UTC"):  # a site in another time zone
        client.get(report_url(with_model))
        computed = datetime.fromisoformat(StoredReport.objects.get().report["computed_at"])
        utc = client.get(report_url(with_model)).content.decode()
    assert f'">{computed.astimezone(UTC):%Y-%m-%d %H:%M}</time></dd>' in utc


def test_the_control_plot_shows_local_time_and_its_legend_covers_no_point():
    times = [datetime(2026, 7, 1, 10, minute, tzinfo=UTC) for minute in (0, 20, 40)]
    series = [ControlSeries("ann1", times, [1.0, 0.0, 1.0]), ControlSeries("ann2", times, [1.0, 1.0, 1.0])]
    figure = control_accuracy_figure(series, 0.6, "Control", "none")
    figure.draw_without_rendering()
    axes = figure.axes[0]
    labels = [label.get_text() for label in axes.get_xticklabels() if label.get_text()]
    # 10:00 UTC is 12:00 in Warsaw (CEST).
    assert labels and all(re.search(r"\b12:\d\d", label) and "10:" not in label for label in labels), labels
    legend = axes.get_legend().get_window_extent()
    assert not legend.overlaps(axes.get_window_extent())  # beside the axes: no point under it
    assert "Europe/Warsaw" in axes.get_xlabel()


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="needs pdflatex (Debian's texlive-latex-recommended)")
def test_the_tex_tables_compile_and_their_labels_resolve(with_model, tmp_path):
    client = organizer_client()
    campaign = create_campaign(name="test-pdf", datasets=[with_model])
    tables = [download(client, report_url(with_model), "tex"),
              download(client, reverse("organizer_campaign", args=[campaign.pk]), "tex")]
    references = " ".join(rf"\ref{{{label}}}" for text in tables for label in re.findall(r"\\label\{([^}]+)\}", text))
    (tmp_path / "tables.tex").write_text(
        "\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage[utf8]{inputenc}\n\\usepackage{lmodern}\n"
        "\\usepackage{booktabs}\n\\begin{document}\n" + references + "\n" + "\n".join(tables) + "\\end{document}\n",
        encoding="utf-8")
    for _run in range(2):  # the second run resolves the references
        compiled = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "tables.tex"],
                                  cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert compiled.returncode == 0, compiled.stdout[-3000:]
    log = (tmp_path / "tables.log").read_text(encoding="utf-8", errors="replace")
    assert references.count(r"\ref") == 4 and "undefined" not in log.lower()
