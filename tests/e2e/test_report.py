"""The organizer's report page in Chromium: the sources with scores and intervals, the plots
as inline SVG with their text alternative and data table, every download, the synthetic-gold
banner, and a model's submission uploaded by keyboard that joins the table and the plot."""

import json
import re

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from annotation.models import ModelSubmission
from annotation.results.formats import FORMATS
from tests.factories import make_user
from tests.organizer.test_report import model_file, wsd_dataset  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db(transaction=True)

SYNTHETIC = "synthetic gold — not a human baseline"
INTERVAL = re.compile(r"^\[[01]\.\d{4}, [01]\.\d{4}\]$")
HUMAN_SOURCES = ("annotator:ann1", "annotator:ann2", "majority", "adjudicated")
# The same sources as the page names them for people.
HUMAN_NAMES = ("annotator ann1", "annotator ann2", "majority", "adjudicated")


def source_row(page: Page, source: str):
    return page.locator("#scores tbody tr", has=page.locator("td", has_text=re.compile(rf"^{re.escape(source)}$")))


def expect_scored(page: Page, source: str, score: str) -> None:
    row = source_row(page, source)
    expect(row).to_have_count(1)
    expect(row.locator("td").nth(2)).to_have_text(score)
    expect(row.locator("td").nth(3)).to_have_text(INTERVAL)


def open_report(page: Page, login, live_server, dataset) -> None:
    login(page, make_user("organizer"))
    page.goto(live_server.url + reverse("organizer_report", args=[dataset.pk]))
    expect(page.get_by_role("heading", level=1)).to_contain_text(dataset.name)


def test_the_report_shows_sources_plots_and_downloads_and_takes_a_model_by_keyboard(
    page: Page, login, live_server, wsd_dataset, tmp_path  # noqa: F811 (fixture)
):
    open_report(page, login, live_server, wsd_dataset)
    expect(page.locator(".banner.synthetic")).to_have_count(0)
    expect_scored(page, "annotator ann1", "0.5000")
    expect_scored(page, "annotator ann2", "1.0000")
    for source in HUMAN_NAMES:
        expect(source_row(page, source)).to_have_count(1)

    # Every plot: inline SVG named by its <title>, described by its <desc>, with its data table
    # (opened from the keyboard) and its own download.
    figures = page.locator("figure.plot")
    count = figures.count()
    assert count >= 3  # scores, time and a confusion matrix per source at least
    for index in range(count):
        figure = figures.nth(index)
        svg = figure.locator("svg[role=img]")
        expect(svg).to_have_count(1)
        title = svg.locator("title").text_content()
        assert title and svg.locator("desc").text_content()
        expect(figure.get_by_role("img", name=title, exact=True)).to_be_visible()
        table = figure.locator("details table")
        expect(table).to_be_hidden()
        figure.locator("details summary").focus()
        page.keyboard.press("Enter")
        expect(table).to_be_visible()
        assert table.locator("tbody tr").count() >= 1
        with page.expect_download() as download_info:
            figure.get_by_role("link", name="SVG").click()
        download = download_info.value
        assert re.fullmatch(r"wsd-tiny\.report\.[\w.-]+\.svg", download.suggested_filename)
        drawn = open(download.path(), encoding="utf-8").read()
        assert drawn.startswith("<svg") and f"<title>{title}</title>" in drawn
    scores = page.locator("#plot-scores")
    expect(scores.locator("svg desc")).to_contain_text("annotator ann1: 50.0% [")

    # The report's formats from a page of their own: Chromium holds back a tab's downloads once
    # it has started several (the plots' above) in a short time.
    report = page.context.new_page()
    report.goto(page.url)
    for fmt in FORMATS:
        with report.expect_download() as download_info:
            report.locator("main").get_by_role("link", name=fmt, exact=True).click()
        download = download_info.value
        assert download.suggested_filename == f"wsd-tiny.report.{fmt}"
        content = open(download.path(), encoding="utf-8").read()
        assert "annotator:ann1" in content, fmt
        if fmt == "json":
            assert {row["source"] for row in json.loads(content)["sources"]} >= set(HUMAN_SOURCES)
    report.close()

    # A model's submission, by keyboard: the name, Tab to the file field, Tab to Upload, Enter.
    # The file is given to the focused field as the browser's file dialog would give it (that
    # dialog is the system's, not the page's; opening it from a key press is flaky in headless Chromium).
    submission = tmp_path / "gpt.jsonl"
    submission.write_bytes(model_file("ABCC").data)
    page.get_by_label("Model name").focus()
    page.keyboard.type("gpt")
    page.keyboard.press("Tab")
    file_field = page.get_by_label(re.compile("^Submission"))
    expect(file_field).to_be_focused()
    file_field.set_input_files(str(submission))
    page.keyboard.press("Tab")
    expect(page.locator("main").get_by_role("button", name="Upload")).to_be_focused()
    page.keyboard.press("Enter")

    # The upload computes the report again before the page comes back (inline with the tests'
    # immediate backend: seconds on a busy machine).
    expect(page.locator(".message.success")).to_contain_text("gpt", timeout=30_000)
    assert ModelSubmission.objects.get(dataset=wsd_dataset).name == "gpt"
    expect_scored(page, "model gpt", "0.6667")
    expect(page.locator("#comparisons")).to_contain_text("model gpt")
    expect(page.locator("#plot-scores svg desc")).to_contain_text("model gpt: 66.7% [")
    page.locator("#plot-scores details summary").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#plot-scores details table")).to_contain_text("model gpt")
    # and the model's confusion matrix, and the items' difficulty, humans against models (none without a model)
    expect(page.locator("figure.plot")).to_have_count(count + 2)


def test_a_report_of_synthetic_gold_carries_the_banner(page: Page, login, live_server, wsd_dataset):  # noqa: F811
    wsd_dataset.gold_synthetic = True
    wsd_dataset.save()
    open_report(page, login, live_server, wsd_dataset)
    banner = page.get_by_role("alert").filter(has_text=SYNTHETIC)
    expect(banner).to_be_visible()
    expect(page.locator("#plot-scores svg title")).to_contain_text(SYNTHETIC)
