"""A new user's walk in Polish: the organizer imports, assigns, makes an account and exports;
an annotator passes the demo's training rounds and answers one item of every subtask by
keyboard with the guideline open and looks at their answers. No page shows a string of the
catalogue left in English, nor a note meant for developers."""

import re
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from playwright.sync_api import Page, expect

from annotation.models import Annotation, Assignment, Dataset, Study
from annotation.training.selectors import training_items
from scoring.subtasks import SUBTASKS
from tests.e2e.keyboard import COUNT_KEYS, answer_by_keyboard
from tests.e2e.test_accessibility import PAGES, WORKED_STUDY, Visitor, campaign  # noqa: F401 (campaign: the fixture)
from tests.factories import gold_against_answers, make_user
from tests.organizer.conftest import sample_files

CATALOGUE = Path(settings.BASE_DIR) / "locale" / "pl" / "LC_MESSAGES" / "django.po"
ENTRY = re.compile(r'^msgid ((?:".*"\n)+)msgstr ((?:".*"\n)+)', re.MULTILINE)
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%%|\{\w*\}")
DEVELOPER_NOTES = re.compile(r"\bseed\b|\bprompt|\bNone\b|Traceback")
# An annotator never needs the words of the files behind the items.
FILE_WORDS = re.compile(r"\bJSON\b|TARGET|\[\[")


def _joined(quoted: str) -> str:
    return "".join(line[1:-1] for line in quoted.splitlines()).replace('\\"', '"').replace("\\n", "\n")


def english_phrases() -> list[str]:
    """Pieces of the catalogue's English strings (between placeholders) that are long enough
    to be unmistakable and whose Polish differs: any of them on a page is English left over."""
    phrases = set()
    for match in ENTRY.finditer(CATALOGUE.read_text(encoding="utf-8")):
        english, polish = _joined(match[1]), _joined(match[2])
        if not english or english == polish:
            continue
        for piece in PLACEHOLDER.split(english):
            piece = piece.strip(" .:;,()")
            if len(piece) >= 14 and " " in piece and piece not in polish:
                phrases.add(piece)
    return sorted(phrases)


def assert_polish(page: Page, phrases: list[str], where: str, annotator: bool = False,
                  developer_notes: bool = True) -> None:
    text = page.locator("body").inner_text()
    left = [phrase for phrase in phrases if phrase in text]
    assert not left, f"{where}: English on the page: {left}"
    for notes in (DEVELOPER_NOTES, FILE_WORDS) if annotator else (DEVELOPER_NOTES,) if developer_notes else ():
        assert not notes.search(text), f"{where}: {notes.search(text)[0]!r}"


def leave_the_widget_to_the_keys(page: Page, key: str) -> None:
    """Where answer_by_keyboard starts: the numerals field focused, no card focused."""
    if key == "numerals":
        page.keyboard.press("i")
    elif key in ("wsd", "coreference", "morphosyntax"):
        page.evaluate("document.activeElement.blur()")


def pass_the_training_round(page: Page, live_server, phrases: list[str], dataset: Dataset) -> None:
    """Continue leads to the training round: answer each item with its gold, read the feedback."""
    page.goto(f"{live_server.url}/annotate/{dataset.pk}/")
    for number, item in enumerate(training_items(dataset), 1):
        expect(page).to_have_url(re.compile(rf"/training/{number}/$"))
        page.wait_for_function("() => window.Polis !== undefined")
        page.evaluate(COUNT_KEYS)
        assert_polish(page, phrases, f"{dataset.subtask} training item {number}", annotator=True)
        leave_the_widget_to_the_keys(page, dataset.subtask)
        answer_by_keyboard(page, dataset.subtask, item.payload, item.gold.payload)
        expect(page.locator("#training-explanation")).to_be_visible()  # every demo training item has one
        assert_polish(page, phrases, f"{dataset.subtask} training feedback {number}", annotator=True)
        expect(page.locator("#training-next")).to_be_focused()
        page.keyboard.press("Enter")
    expect(page.locator("#training-continue")).to_be_focused()
    assert_polish(page, phrases, f"{dataset.subtask} training outcome", annotator=True)


def test_the_walk_shows_polish_only(page: Page, live_server, login, tmp_path):
    phrases = english_phrases()
    page.context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": "pl", "url": live_server.url}])
    call_command("load_demo", verbosity=0)
    organizer = make_user("organizer", username="olga")

    login(page, organizer)
    inputs, gold = sample_files("wsd")
    page.goto(f"{live_server.url}/organize/import/")
    assert_polish(page, phrases, "import")
    bad = tmp_path / "zle.jsonl"
    bad.write_text('{"id": "a"}\n{"id": "a"}\n{nie json\n', encoding="utf-8")
    page.locator("input[name=name]").fill("zly")
    page.locator("select[name=subtask]").select_option("wsd")
    page.locator("input[name=inputs]").set_input_files(str(bad))
    page.locator("main button[type=submit]").click()
    problems = page.locator(".problems")
    expect(problems).to_contain_text("występuje dwa razy (pierwszy raz w wierszu 1)")
    expect(problems).to_contain_text("nie jest poprawnym JSON-em")
    expect(problems).to_contain_text("zle.jsonl")
    assert_polish(page, phrases, "import refused")
    assert "duplicate id" not in problems.inner_text() and "is required" not in problems.inner_text()
    page.locator("input[name=name]").fill("wsd-spacer")
    page.locator("select[name=subtask]").select_option("wsd")
    page.locator("input[name=inputs]").set_input_files(str(inputs))
    page.locator("input[name=gold]").set_input_files(str(gold))
    page.locator("main button[type=submit]").click()
    expect(page.locator("h1")).to_contain_text("wsd-spacer")
    assert_polish(page, phrases, "dataset page")
    page.goto(f"{live_server.url}/organize/")
    assert_polish(page, phrases, "dataset list")
    dataset = Dataset.objects.get(name="wsd-spacer")
    page.goto(f"{live_server.url}/organize/{dataset.pk}/assign/")
    assert_polish(page, phrases, "assign")
    page.locator("input[name=annotators]").first.check()
    page.locator("input[name=per_item]").fill("3")
    page.locator("form", has=page.locator("input[name=per_item]")).locator("button[type=submit]").click()
    expect(page.locator("main")).to_contain_text("3 anotatorów")  # the refusal, in Polish
    assert_polish(page, phrases, "assign refused")
    page.goto(f"{live_server.url}/organize/accounts/")
    page.locator("input[name=name]").fill("nowa")
    page.locator("main form", has=page.locator("input[name=name]")).locator("button[type=submit]").click()
    expect(page.locator("#password-links")).to_be_visible()
    assert_polish(page, phrases, "accounts")

    annotator = Assignment.objects.filter(annotator__username="annotator1").first().annotator
    annotator.set_password("pass-Polis-123")
    annotator.save()
    page.context.clear_cookies()
    page.context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": "pl", "url": live_server.url}])
    login(page, annotator)
    assert_polish(page, phrases, "home", annotator=True)
    trained = 0
    for key in tuple(SUBTASKS):
        assignment = Assignment.objects.select_related("item__gold").get(
            annotator=annotator, dataset__name=f"demo-{key}", position=1
        )
        if training_items(assignment.dataset):
            pass_the_training_round(page, live_server, phrases, assignment.dataset)
            trained += 1
        page.goto(f"{live_server.url}/annotate/{assignment.dataset_id}/1/")
        page.evaluate(COUNT_KEYS)
        page.keyboard.press("Escape")
        page.keyboard.press("Shift+G")
        expect(page.locator("#guideline")).to_have_attribute("open", "")
        assert_polish(page, phrases, f"{key} item", annotator=True)
        page.keyboard.press("Shift+G")  # closed again
        leave_the_widget_to_the_keys(page, key)
        answer_by_keyboard(page, key, assignment.item.payload, assignment.item.gold.payload)
        expect(page).not_to_have_url(re.compile(rf"/annotate/{assignment.dataset_id}/1/$"))
        assert_polish(page, phrases, f"{key} after saving", annotator=True)
    assert trained >= 2  # the demo gives some datasets a training round
    page.goto(f"{live_server.url}/my-answers/")
    expect(page.locator("tbody tr")).to_have_count(Annotation.objects.filter(annotator=annotator).count())
    assert_polish(page, phrases, "my answers", annotator=True)

    page.context.clear_cookies()
    page.context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": "pl", "url": live_server.url}])
    login(page, organizer)
    morphosyntax = Dataset.objects.get(name="demo-morphosyntax")
    page.goto(f"{live_server.url}/organize/{morphosyntax.pk}/export/annotator1/")
    assert_polish(page, phrases, "export")
    page.goto(f"{live_server.url}/organize/{morphosyntax.pk}/training/")  # the demo's procedure
    expect(page.locator("#qualification-table tr[data-annotator=annotator1]")).to_contain_text("1,00")
    assert_polish(page, phrases, "training and control")
    answered = Dataset.objects.get(name="demo-answered-wsd")
    gold_against_answers(answered)
    page.goto(f"{live_server.url}/audit/{answered.pk}/")
    expect(page.locator(".audit-item").first).to_be_visible()
    assert_polish(page, phrases, "gold audit")
    decision = page.locator(".audit-decision").first
    decision.locator("input[name=kind]").first.check()
    decision.locator("textarea[name=note]").fill("Klucz jest dobry.")
    decision.locator("button[type=submit]").click()
    expect(page.locator(".audit-item .tag.ok")).to_have_count(1)
    assert_polish(page, phrases, "gold audit decided")


def test_every_organizer_and_adjudicator_page_and_problem_list_is_in_polish(browser, live_server, campaign, tmp_path):  # noqa: F811
    """Every page of the accessibility table (each organizer's and adjudicator's page among them,
    a page added later included, since that table must list it) and every problem list of an
    upload shows no string of the catalogue left in English."""
    phrases = english_phrases()
    visitor = Visitor(browser, live_server.url, campaign)
    for state in PAGES:
        page = visitor.open(state, 1280)
        # An organizer's page may name what a developer does (the sample's seed): English only is checked.
        assert_polish(page, phrases, f"{state.name} ({state.role}, {state.shows})", developer_notes=state.role in (
            "anonymous", "annotator"))

    page = visitor.open(next(state for state in PAGES if state.name == "organizer_datasets"), 1280)
    bad = tmp_path / "zle.jsonl"
    bad.write_text('{"id": "a"}\n{"id": "a"}\n{nie json\n', encoding="utf-8")
    empty = tmp_path / "pusty.csv"
    empty.write_bytes(b"")
    inputs, _gold = sample_files("commas")
    wsd = Dataset.objects.get(name="demo-wsd")
    uploads = [  # (page, the form's file fields and their files, other fields to fill)
        ("/organize/import/", {"inputs": inputs}, {"name": "zly", "subtask": "wsd"}),
        (f"/organize/{wsd.pk}/gold/", {"gold": bad}, {}),
        (f"/organize/{wsd.pk}/report/", {"submission": bad}, {"name": "model-zly"}),
        (f"/organize/{wsd.pk}/training/", {"inputs": bad, "gold": bad}, {}),
        ("/organize/accounts/", {"accounts": empty}, {}),
        # The study's reconciliation: a file that is no panel export.
        (f"/organize/studies/{Study.objects.get(name=WORKED_STUDY).pk}/", {"export": bad}, {}),
    ]
    for path, files, fields in uploads:
        page.goto(live_server.url + path)
        form = page.locator("form", has=page.locator(f"input[type=file][name={next(iter(files))}]"))
        for name, value in fields.items():
            field = form.locator(f"[name={name}]")
            field.select_option(value) if field.evaluate("e => e.tagName") == "SELECT" else field.fill(value)
        for name, file in files.items():
            form.locator(f"input[type=file][name={name}]").set_input_files(str(file))
        form.locator("button[type=submit]").last.click()
        heading = page.locator("#problem-list-heading")
        expect(heading).to_be_focused()
        expect(heading).to_contain_text("niczego nie zmieniono")
        assert_polish(page, phrases, f"the problem list of {path}", developer_notes=False)
