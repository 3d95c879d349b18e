"""The discourse tree editor in the browser: a 10-unit passage by keyboard alone and by
mouse alone, the scorer's problems shown next to their units, undo and redo."""

import re

from playwright.sync_api import Locator, Page, expect

from annotation.models import Annotation
from annotation.subtasks.discourse.widget import units_in_text_order
from annotation.subtasks.problem_texts import TREE_PROBLEM_TEXTS
from tests.e2e.outcomes import expect_nothing_submitted, expect_submitted_and_next
from tests.widgets.test_discourse import passage

RECORD = passage(10)  # unit 2 has two parts around unit 3; the file is not in text order
SECOND = {**passage(5), "id": "p-second"}
DU = [unit.du_id for unit in units_in_text_order(RECORD)]  # DU[n - 1] is shown as number n

# The intended tree, by shown numbers: unit -> (head, relation, keys typed to pick the relation).
INTENDED = {
    2: (1, "Elaboration", "el"),
    3: (2, "Attribution", "at"),
    4: (1, "Cause", "ca"),
    5: (4, "Co-occurence", "co"),
    6: (1, "Contrast", ["c", "o", "n", "ArrowDown", "ArrowDown"]),  # Concession, Condition, Contrast
    7: (6, "Feedback dependence", "f"),
    8: (7, "Sequence-Elaboration", "se"),
    9: (10, "Question-Answer", "q"),
    10: (1, "Substitution", "su"),
}
ANSWER = {
    "discourse_units": [{"du_id": DU[0], "head": None, "relation": None}]
    + [
        {"du_id": DU[number - 1], "head": DU[head - 1], "relation": relation}
        for number, (head, relation, _letters) in sorted(INTENDED.items())
    ]
}


def row(page: Page, number: int) -> Locator:
    return page.locator(f'.du-row[data-number="{number}"]')


def type_keys(page: Page, keys: str | list[str]) -> None:
    for key in keys:
        page.keyboard.press(key)


def attach_by_keyboard(page: Page, head: int, letters: str | list[str] | None) -> None:
    """Head number + Enter, then the relation's first letters + Enter (or Escape: label later)."""
    type_keys(page, str(head))
    page.keyboard.press("Enter")
    if letters is None:
        page.keyboard.press("Escape")
        return
    type_keys(page, letters)
    page.keyboard.press("Enter")


def test_keyboard_alone_builds_and_submits_the_tree(page: Page, open_items):
    first, second = open_items("discourse", [RECORD, SECOND])
    expect(row(page, 1)).to_have_class(re.compile("is-selected"))
    # The split unit reads in its order, with a visible gap where unit 3 stands.
    expect(row(page, 2).locator(".du-text")).to_have_text(re.compile(r"To,\s*\[…\]\s*– to jest ważne\."))

    page.keyboard.press("r")  # unit 1 is the root
    page.keyboard.press("j")
    for number in range(2, 11):
        head, _relation, letters = INTENDED[number]
        # Unit 8 gets its head now and its label at the end ("attach all, then label").
        attach_by_keyboard(page, head, None if number == 8 else letters)
        if number == 8:
            page.keyboard.press("j")
    expect(row(page, 8)).to_contain_text(str(TREE_PROBLEM_TEXTS["missing_relation"]))
    type_keys(page, "kk")  # back from unit 10 to unit 8
    page.keyboard.press("l")
    type_keys(page, "se")
    page.keyboard.press("Enter")

    expect(page.locator("#du-tree .tree-valid")).to_be_visible()
    expect(page.locator(".du-problems")).to_have_count(0)
    expect(page.locator("#du-tree .tree-row")).to_have_count(10)
    expect(page.locator('#du-tree .tree-row[data-du="%s"]' % DU[8])).to_have_css("padding-left", re.compile("px"))
    page.keyboard.press("Enter")

    expect_submitted_and_next(page, first, second, ANSWER)


def test_mouse_alone_builds_and_submits_the_tree(page: Page, open_items):
    first, second = open_items("discourse", [RECORD, SECOND])

    row(page, 1).locator(".du-text").click()
    page.locator("#discourse-make-root").click()
    expect(row(page, 1).locator(".du-root-badge")).to_be_visible()
    for number in range(2, 11):
        head, relation, _letters = INTENDED[number]
        row(page, number).locator(".du-text").click()
        expect(row(page, number)).to_have_class(re.compile("is-selected"))
        row(page, head).locator(".du-set-head").click()
        expect(row(page, number).locator(".du-head-number")).to_have_text(str(head))
        page.locator(f'.relation-option[data-relation="{relation}"]').click()
        expect(row(page, number).locator(".du-relation")).to_have_text(relation)

    expect(page.locator("#du-tree .tree-valid")).to_be_visible()
    page.locator("#action-save").click()

    expect_submitted_and_next(page, first, second, ANSWER)


def test_selecting_a_unit_highlights_its_head_and_dependents(page: Page, open_items):
    open_items("discourse", [RECORD])
    page.keyboard.press("r")
    page.keyboard.press("j")
    attach_by_keyboard(page, 1, "el")  # 2 → 1, now on 3
    attach_by_keyboard(page, 2, "at")  # 3 → 2, now on 4
    attach_by_keyboard(page, 2, "ca")  # 4 → 2

    row(page, 2).locator(".du-text").click()
    expect(row(page, 1)).to_have_class(re.compile("is-head"))
    expect(row(page, 3)).to_have_class(re.compile("is-dependent"))
    expect(row(page, 4)).to_have_class(re.compile("is-dependent"))
    expect(row(page, 5)).not_to_have_class(re.compile("is-dependent|is-head"))
    expect(page.locator(f'#du-tree .tree-row[data-du="{DU[0]}"]')).to_have_class(re.compile("is-head"))


def test_a_cycle_and_a_second_root_are_shown_and_block_submission(page: Page, open_items):
    (item,) = open_items("discourse", [RECORD])
    page.keyboard.press("r")
    page.keyboard.press("j")
    for number in range(2, 11):
        if number == 5:
            type_keys(page, "rj")  # a second root
        else:
            attach_by_keyboard(page, number - 1, "el")  # the label moves the selection on
    expect(row(page, 10)).to_have_class(re.compile("is-selected"))
    second_root = str(TREE_PROBLEM_TEXTS["multiple_roots"])
    expect(row(page, 1).locator(".du-problems")).to_contain_text(second_root)
    expect(row(page, 5).locator(".du-problems")).to_contain_text(second_root)

    page.keyboard.press("Enter")
    expect(page.locator("#answer-problems li")).not_to_have_count(0)
    expect(page).to_have_url(re.compile(re.escape(item.url) + "$"))

    # Unit 5 back under unit 4 fixes the roots; unit 2 under unit 3 closes a cycle 2 → 3 → 2.
    type_keys(page, "kkkkk")
    expect(row(page, 5)).to_have_class(re.compile("is-selected"))
    attach_by_keyboard(page, 4, "el")
    row(page, 2).locator(".du-text").click()
    attach_by_keyboard(page, 3, None)
    cycle = str(TREE_PROBLEM_TEXTS["cycle"])
    expect(row(page, 2).locator(".du-problems")).to_contain_text(cycle)
    expect(row(page, 3).locator(".du-problems")).to_contain_text(cycle)
    expect(row(page, 1).locator(".du-problems")).to_have_count(0)
    expect(page.locator("#du-tree .tree-detached .tree-row")).not_to_have_count(0)

    page.keyboard.press("Enter")
    expect(page.locator("#answer-problems li")).to_contain_text(["cycle"])
    expect_nothing_submitted(page, item)


def test_undo_restores_the_previous_head_and_redo_reapplies_it(page: Page, open_items):
    (item,) = open_items("discourse", [RECORD])
    page.keyboard.press("r")
    page.keyboard.press("j")
    attach_by_keyboard(page, 1, "el")  # 2 → 1
    attach_by_keyboard(page, 2, "ca")  # 3 → 2, Cause
    page.keyboard.press("k")
    attach_by_keyboard(page, 1, "ca")  # 3 moves to 1: its label stays, no relation asked
    expect(row(page, 3).locator(".du-head-number")).to_have_text("1")
    expect(row(page, 3).locator(".du-relation")).to_have_text("Cause")
    expect(page.locator("#discourse-relation-filter")).not_to_be_focused()

    page.keyboard.press("Control+z")
    expect(row(page, 3).locator(".du-head-number")).to_have_text("2")
    expect(row(page, 3).locator(".du-relation")).to_have_text("Cause")
    # The redrawn rows keep the selection and its highlights.
    expect(row(page, 3)).to_have_class(re.compile("is-selected"))
    expect(row(page, 2)).to_have_class(re.compile("is-head"))
    page.keyboard.press("Control+Shift+z")
    expect(row(page, 3).locator(".du-head-number")).to_have_text("1")
    page.keyboard.press("Control+z")
    expect(row(page, 3).locator(".du-head-number")).to_have_text("2")

    # While typing in the relation filter, Ctrl+Z edits the text, not the tree.
    page.keyboard.press("l")
    type_keys(page, "co")
    page.keyboard.press("Control+z")
    expect(row(page, 3).locator(".du-head-number")).to_have_text("2")
    page.keyboard.press("Escape")

    expect(page.locator("#save-status > [data-kind=ok]")).to_have_count(1)
    page.wait_for_timeout(100)
    stored = item.stored()
    assert stored.status == Annotation.Status.DRAFT
    assert {"du_id": DU[2], "head": DU[1], "relation": "Cause"} in stored.answer["discourse_units"]


def test_the_relation_picker_explains_the_highlighted_relation_in_polish(page: Page, open_items):
    open_items("discourse", [RECORD])
    info = page.locator("#relation-info")
    page.keyboard.press("r")  # unit 1 is the root
    page.keyboard.press("j")
    attach_by_keyboard(page, 1, None)
    page.keyboard.press("l")
    expect(info).to_be_hidden()

    type_keys(page, "co")  # English first: Co-occurence
    expect(info).to_be_visible()
    expect(info).to_contain_text("Co-occurence")
    expect(info).to_contain_text("współwystępowanie")
    page.keyboard.press("Control+a")
    page.keyboard.type("przyz")  # Polish: przyzwolenie is Concession
    expect(page.locator(".relation-option:not([hidden])")).to_have_count(1)
    expect(info).to_contain_text("Concession")
    expect(info).to_contain_text("Choć padał deszcz")
    page.keyboard.press("Enter")

    expect(row(page, 2).locator(".du-relation")).to_have_text("Concession")  # the stored label
