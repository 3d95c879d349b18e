"""An organizer's round trip in Chromium: upload, assign, resolve a flag, export."""

import json
import re

from playwright.sync_api import Page, expect

from annotation.models import Annotation, Assignment, Dataset, Flag
from tests.factories import make_user
from tests.organizer.conftest import sample_files, submit_answers


def test_organizer_imports_assigns_resolves_a_flag_and_exports(page: Page, live_server, login):
    organizer = make_user("organizer", username="olga")
    for name in ("ala", "bartek", "celina"):
        make_user(username=name)
    inputs, gold = sample_files("wsd")
    login(page, organizer)

    page.get_by_role("link", name=re.compile("Organizer pages")).click()
    page.get_by_role("link", name="Import a dataset").click()
    page.get_by_label("Dataset name").fill("wsd-A")
    page.get_by_label("Subtask").select_option("wsd")
    page.get_by_label("Inputs (JSONL)").set_input_files(str(inputs))
    page.get_by_label("Gold (JSONL, optional)").set_input_files(str(gold))
    page.locator("main").get_by_role("button", name="Import").click()
    expect(page.get_by_role("heading", name=re.compile("wsd-A"))).to_be_visible()
    dataset = Dataset.objects.get(name="wsd-A")

    page.get_by_role("link", name="Assign annotators").click()
    for name in ("ala", "bartek", "celina"):
        page.get_by_label(name).check()
    page.get_by_label("Annotators per item").fill("2")
    page.get_by_role("button", name="Assign", exact=True).click()
    expect(page.locator(".message.success")).to_contain_text(f"{2 * dataset.items.count()} assignments added")
    assert Assignment.objects.filter(dataset=dataset).count() == 2 * dataset.items.count()

    ala = dataset.assignments.filter(annotator__username="ala").first().annotator
    submit_answers(dataset, ala, every=3)
    flag = Flag.objects.create(item=dataset.items.first(), raised_by=ala, comment="Niejasne zdanie")
    page.reload()
    expect(page.locator("#open-flag-count")).to_have_text("1")
    row = page.locator(f"#flag-{flag.pk}")
    row.get_by_placeholder("Resolution note").fill("Zostaje, znaczenie A")
    row.get_by_role("button", name="Resolve").click()
    expect(page.locator(f"#flag-{flag.pk}")).to_contain_text("resolved")
    expect(page.locator(f"#flag-{flag.pk}")).to_contain_text("Zostaje, znaczenie A")
    expect(page.locator("#open-flag-count")).to_have_text("0")  # updated without a reload
    flag.refresh_from_db()
    assert flag.resolution_note == "Zostaje, znaczenie A"

    page.locator("tr", has_text="ala").get_by_role("link", name="Submission").click()
    expect(page.locator("main")).to_contain_text("left out")
    with page.expect_download() as download_info:
        page.get_by_role("link", name=re.compile("Download")).click()
    download = download_info.value
    lines = [json.loads(line) for line in open(download.path(), encoding="utf-8")]
    assert [line["id"] for line in lines] == list(
        Annotation.objects.filter(annotator=ala, status="submitted").order_by("item__ordinal").values_list("item__external_id", flat=True)
    )
    assert download.suggested_filename == "wsd-A.ala.submission.jsonl"


def test_the_upload_page_refuses_a_file_beyond_its_limit_before_sending_it(page: Page, live_server, login, settings):
    settings.POLIS_MAX_UPLOAD_BYTES = 1000
    login(page, make_user("organizer"))
    page.goto(live_server.url + "/organize/import/")
    expect(page.locator("main")).to_contain_text("The largest file this page takes is 1000")
    page.get_by_label("Dataset name").fill("too-big")
    page.get_by_label("Inputs (JSONL)").set_input_files(
        files=[{"name": "big.jsonl", "mimeType": "application/jsonl", "buffer": b"{}\n" * 1000}]
    )
    posts = []
    page.on("request", lambda request: posts.append(request) if request.method == "POST" else None)
    page.locator("main").get_by_role("button", name="Import").click()
    message = page.get_by_label("Inputs (JSONL)").evaluate("input => input.validationMessage")
    assert message.startswith("The largest file this page takes is 1000")
    assert posts == [] and not Dataset.objects.exists()
