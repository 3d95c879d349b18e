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

from tests.e2e.keyboard import COUNT_KEYS, answer_by_keyboard
from tests.item_pages import assigned_items

DEMO = Path(__file__).resolve().parents[2] / "demo" / "data"
ITEMS_PER_WIDGET = 4


def samples(key: str, gold_name: str = "dev.gold.jsonl") -> list[tuple[dict, dict]]:
    def read(name: str) -> list[dict]:
        return [json.loads(line) for line in (DEMO / key / name).read_text().splitlines() if line]

    gold = {line["id"]: line for line in read(gold_name)}
    return [(record, gold[record["id"]]) for record in read("dev.inputs.jsonl")[:ITEMS_PER_WIDGET]]


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
