"""Key presses per item, by keyboard alone, on the sample items with real (or, for discourse,
synthetic) answer keys: each widget's path is taken in the browser and its keydown events are
counted (a chord such as Shift+5 counts once; letters of a typed answer are counted apart).
The figures are printed (pytest -s) and bounded here; README.md quotes them."""

import json
import re
import statistics
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from annotation.discourse_relations import RELATION_GUIDES
from annotation.widgets.discourse import units_in_text_order
from tests.widgets.item_pages import assigned_items

DEMO = Path(__file__).resolve().parents[2] / "demo" / "data"
ITEMS_PER_WIDGET = 4
WORD = re.compile(r"\w+")
COUNT_KEYS = """
window.keyPresses = 0;
document.addEventListener("keydown", (event) => {
  if (!["Control", "Shift", "Alt", "Meta", "AltGraph"].includes(event.key)) window.keyPresses += 1;
}, true);
"""


def samples(key: str, gold_name: str = "dev.gold.jsonl") -> list[tuple[dict, dict]]:
    read = lambda name: [json.loads(line) for line in (DEMO / key / name).read_text().splitlines() if line]  # noqa: E731
    gold = {line["id"]: line for line in read(gold_name)}
    return [(record, gold[record["id"]]) for record in read("dev.inputs.jsonl")[:ITEMS_PER_WIDGET]]


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
            page.keyboard.press("n")  # saves at once
            return page.evaluate("window.keyPresses") - typed
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
    page.keyboard.press("Enter")
    return page.evaluate("window.keyPresses") - typed


@pytest.mark.parametrize(
    ("key", "gold_name", "most"),
    [
        ("wsd", "dev.gold.jsonl", 2),
        ("coreference", "dev.gold.jsonl", 2),
        ("numerals", "dev.gold.jsonl", 1),
        ("commas", "dev.gold.jsonl", 5),
        ("morphosyntax", "dev.gold.jsonl", 8),
        ("discourse", "dev.SYNTHETIC-gold.jsonl", 120),
    ],
)
def test_key_presses_per_item(page: Page, live_server, login, key, gold_name, most):
    pairs = samples(key, gold_name)
    items = assigned_items(key, [record for record, _ in pairs])
    login(page, items[0].annotator)
    counts = []
    for item, (record, gold) in zip(items, pairs):
        page.goto(live_server.url + item.url)
        page.evaluate(COUNT_KEYS)
        counts.append(answer_by_keyboard(page, key, record, gold))
        expect(page).not_to_have_url(re.compile(re.escape(item.url) + "$"))
        assert item.stored().status == "submitted"
    print(f"\nkey presses per item, {key}: {counts} (median {statistics.median(counts)})")
    assert max(counts) <= most
