"""A refused upload in Chromium: the page opens at its problem list, the list's heading focused,
and the files chosen are still in the form, ready to be sent again once corrected."""

import json

from playwright.sync_api import Page, expect

from annotation.models import ModelSubmission
from tests.factories import make_user
from tests.organizer.conftest import import_sample, sample_files


def test_a_refused_model_upload_opens_at_its_problems_with_the_file_kept(page: Page, live_server, login, tmp_path):
    dataset = import_sample("wsd")
    login(page, make_user("organizer", username="olga"))
    bad = tmp_path / "model.jsonl"
    bad.write_text("".join(json.dumps({"id": f"x{n}", "answer": 1}) + "\n" for n in range(300)), encoding="utf-8")
    page.set_viewport_size({"width": 1024, "height": 700})
    page.goto(f"{live_server.url}/organize/{dataset.pk}/report/")
    page.get_by_label("Model name").fill("model-A")
    page.get_by_label("Submission (JSONL, every item answered)").set_input_files(str(bad))
    page.get_by_role("button", name="Upload").click()
    heading = page.locator("#problem-list-heading")
    expect(heading).to_be_focused()
    expect(heading).to_be_in_viewport()
    files = page.get_by_label("Submission (JSONL, every item answered)")
    assert files.evaluate("input => Array.from(input.files, (file) => [file.name, file.size])") == [
        ["model.jsonl", bad.stat().st_size]
    ]
    assert not ModelSubmission.objects.exists()


def test_a_refused_import_keeps_both_files_and_a_good_one_goes_through(page: Page, live_server, login, tmp_path):
    login(page, make_user("organizer", username="olga"))
    inputs, gold = sample_files("wsd")
    page.goto(f"{live_server.url}/organize/import/")
    page.get_by_label("Dataset name").fill("wsd-A")
    page.get_by_label("Subtask").select_option("commas")  # the wrong subtask
    page.get_by_label("Inputs (JSONL)").set_input_files(str(inputs))
    page.get_by_label("Gold (JSONL, optional)").set_input_files(str(gold))
    page.locator("main").get_by_role("button", name="Import").click()
    expect(page.locator("#problem-list-heading")).to_be_focused()
    expect(page.locator("#problem-list")).to_contain_text("this looks like a wsd file, not a commas one")
    for label, path in (("Inputs (JSONL)", inputs), ("Gold (JSONL, optional)", gold)):
        assert page.get_by_label(label).evaluate("input => input.files.length && input.files[0].name") == path.name
    page.get_by_label("Dataset name").fill("wsd-A")
    page.get_by_label("Subtask").select_option("wsd")
    page.locator("main").get_by_role("button", name="Import").click()
    expect(page.get_by_role("heading", name="wsd-A")).to_be_visible()


def test_a_one_time_link_is_copied_by_its_button(page: Page, live_server, login):
    login(page, make_user("organizer", username="olga"))
    make_user("annotator")  # the role's group: a live-server test's database was flushed, without the migration's groups
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page.goto(f"{live_server.url}/organize/accounts/")
    page.locator("input[name=name]").fill("nowa")
    page.locator("main form", has=page.locator("input[name=name]")).get_by_role("button").click()
    link = page.locator("#password-links code.password-link").inner_text()
    page.get_by_role("button", name="Copy the link").click()
    expect(page.locator("#password-links .copy-status")).to_have_text("Copied.")
    assert page.evaluate("navigator.clipboard.readText()") == link
