"""Every problem list the same way (templates/annotation/organizer/_problems.html): the right
total, at most MAX_LISTED_PROBLEMS rows, each naming its field (a form's own error by the
field's label), and "this looks like a <subtask> file" for a file of another subtask."""

import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotation.core.problems import MAX_LISTED_PROBLEMS
from annotation.models import Dataset, ModelSubmission
from tests.organizer.conftest import import_sample, sample_files

pytestmark = pytest.mark.django_db

ROW = re.compile(r"<tr><td>[^<]*</td><td>\d*</td><td>")


def listed(html: str) -> int:
    section = html[html.index('id="problem-list"'):]
    return len(ROW.findall(section[: section.index("</section>")]))


def test_an_import_of_more_problems_than_are_listed_says_their_total(organizer_client):
    bad = SimpleUploadedFile("zle.jsonl", b"{nie json\n" * (MAX_LISTED_PROBLEMS + 280))
    response = organizer_client.post(reverse("organizer_import"), {"name": "c", "subtask": "commas", "inputs": bad})
    html = response.content.decode()
    assert response.status_code == 422
    assert f"{MAX_LISTED_PROBLEMS + 280} problems; nothing was changed" in html
    assert listed(html) == MAX_LISTED_PROBLEMS
    assert f"The first {MAX_LISTED_PROBLEMS} are listed; 280 more are not." in html


def test_a_model_upload_lists_as_many_problems_as_an_import(organizer_client):
    dataset = import_sample("wsd")
    lines = b"".join(json.dumps({"id": f"x{number}", "answer": 1}).encode() + b"\n"
                     for number in range(MAX_LISTED_PROBLEMS + 10))
    response = organizer_client.post(reverse("organizer_report", args=[dataset.pk]), {
        "name": "m", "submission": SimpleUploadedFile("model.jsonl", lines),
    })
    html = response.content.decode()
    assert response.status_code == 422
    total = int(re.search(r"(\d+) problems; nothing was changed", html)[1])
    assert total > MAX_LISTED_PROBLEMS + 10  # every line, and every item left unanswered
    assert listed(html) == MAX_LISTED_PROBLEMS
    assert f"{total - MAX_LISTED_PROBLEMS} more are not" in html
    assert not ModelSubmission.objects.exists()


@pytest.mark.parametrize(("url", "data", "label"), [
    ("organizer_import", {"name": "c", "subtask": "commas", "inputs": "empty"}, "Inputs (JSONL)"),
    ("organizer_accounts", {"action": "csv", "role": "annotator", "accounts": "empty"},
     "CSV file: one account a line, login name and e-mail"),
])
def test_an_empty_file_is_refused_in_the_list_naming_its_field(organizer_client, url, data, label):
    data = {name: SimpleUploadedFile("pusty.jsonl", b"") if value == "empty" else value for name, value in data.items()}
    html = organizer_client.post(reverse(url), data).content.decode()
    section = html[html.index('id="problem-list"'):]
    assert "1 problem; nothing was changed" in section
    assert f"<td>{label}</td><td>The submitted file is empty.</td>" in section


def test_a_file_of_another_subtask_is_said_to_look_like_one(organizer_client):
    inputs, _gold = sample_files("commas")
    response = organizer_client.post(reverse("organizer_import"), {
        "name": "w", "subtask": "wsd", "inputs": SimpleUploadedFile("c.jsonl", inputs.read_bytes()),
    })
    assert response.status_code == 422
    assert "this looks like a commas file, not a wsd one" in response.content.decode()
    assert not Dataset.objects.exists()


def test_gold_and_a_model_submission_of_another_subtask_are_said_to_look_like_one(organizer_client):
    dataset = import_sample("wsd", with_gold=False)
    _inputs, gold = sample_files("commas")
    response = organizer_client.post(reverse("organizer_import_gold", args=[dataset.pk]), {
        "gold": SimpleUploadedFile("g.jsonl", gold.read_bytes()),
    })
    assert "this looks like a commas file, not a wsd one" in response.content.decode()
    wsd = import_sample("wsd", name="wsd-2")
    submission = "".join(json.dumps({"id": item_id, "commas": [], "optional": []}) + "\n"
                         for item_id in wsd.items.values_list("external_id", flat=True))
    response = organizer_client.post(reverse("organizer_report", args=[wsd.pk]), {
        "name": "m", "submission": SimpleUploadedFile("m.jsonl", submission.encode()),
    })
    assert response.status_code == 422
    assert "this looks like a commas file, not a wsd one" in response.content.decode()
