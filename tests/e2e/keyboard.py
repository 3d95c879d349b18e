"""Answering an item by keyboard alone, the way an annotator does, with its key presses
counted: shared by the browser tests that walk the widgets."""

import re

from playwright.sync_api import Page, expect

from annotation.subtasks.discourse.relations import RELATION_GUIDES
from annotation.subtasks.discourse.widget import units_in_text_order

WORD = re.compile(r"\w+")
COUNT_KEYS = """
window.keyPresses = 0;
document.addEventListener("keydown", (event) => {
  if (!["Control", "Shift", "Alt", "Meta", "AltGraph"].includes(event.key)) window.keyPresses += 1;
}, true);
"""


def relation_prefix(label: str) -> str:
    """The fewest first letters after which Enter picks `label` (English matches come first)."""
    for length in range(1, len(label) + 1):
        typed = label[:length].lower()
        visible = [g for g in RELATION_GUIDES if g.label.lower().startswith(typed) or g.name.startswith(typed)]
        english = [g for g in visible if g.label.lower().startswith(typed)]
        if (english or visible)[0].label == label:
            return label[:length].lower()
    return label.lower()


def answer_by_keyboard(page: Page, key: str, record: dict, gold: dict) -> int:
    """Take the keyboard path for the gold answer; the key presses besides typed letters."""
    typed = 0

    def type_text(text: str) -> None:
        nonlocal typed
        before = page.evaluate("window.keyPresses")
        page.keyboard.type(text)
        typed += page.evaluate("window.keyPresses") - before

    if key in ("wsd", "coreference"):
        page.keyboard.press(gold["answer"].lower())
    elif key == "numerals":
        type_text(gold["answers"][0])
    elif key == "commas":
        if not gold["commas"] and not gold["optional"]:
            presses = page.evaluate("window.keyPresses") - typed + 1  # read before the page goes
            page.keyboard.press("n")  # saves at once
            return presses
        for marker in gold["commas"]:
            page.keyboard.press(f"Digit{marker % 10}")
        for marker in gold["optional"]:
            page.keyboard.press(f"Shift+Digit{marker % 10}")
    elif key == "morphosyntax":
        if gold["answer"] == "POPRAWNE":
            page.keyboard.press("p")
        else:
            old, new = WORD.findall(record["sentence"]), WORD.findall(gold["corrected_sentence"])
            assert len(old) == len(new)
            for index, (was, now) in enumerate(zip(old, new)):
                if was == now:
                    continue
                for digit in f"{index + 1:02d}" if len(old) > 10 else str(index + 1):
                    page.keyboard.press(f"Digit{digit}")
                expect(page.locator(".morph-word-input")).to_be_focused()
                type_text(now)
                page.keyboard.press("Enter")
                expect(page.locator(".morph-sentence")).to_be_focused()
    elif key == "discourse":
        shown = [unit.du_id for unit in units_in_text_order(record)]
        wanted = {unit["du_id"]: unit for unit in gold["discourse_units"]}
        for number, du_id in enumerate(shown, start=1):
            unit = wanted[du_id]
            if unit["head"] is None:
                page.keyboard.press("r")
                if number < len(shown):
                    page.keyboard.press("j")
                continue
            for digit in str(shown.index(unit["head"]) + 1):
                page.keyboard.press(f"Digit{digit}")
            page.keyboard.press("Enter")
            for letter in relation_prefix(unit["relation"]):
                page.keyboard.press(letter)
            page.keyboard.press("Enter")  # chooses the relation and moves on
        expect(page.locator("#du-tree .tree-valid")).to_be_visible()
    presses = page.evaluate("window.keyPresses") - typed + 1  # and the Enter that saves:
    page.keyboard.press("Enter")
    return presses
