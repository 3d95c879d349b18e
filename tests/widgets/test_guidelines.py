"""The guidelines speak to a person using this UI: no notes for developers, no output-format
rules, no field names or raw markers; their worked examples agree with the sample answer keys;
the discourse relations have a Polish name, definition and example each."""

import json
import re
from pathlib import Path

import pytest
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.html import strip_tags
from django.utils.translation import gettext

from annotation.subtasks.discourse.relations import RELATION_GUIDES
from annotation.subtasks.widgets import widget_for
from scoring.subtasks import SUBTASKS
from scoring.subtasks.discourse import RELATIONS

DEMO = Path(__file__).resolve().parents[2] / "demo" / "data"
# What a guideline must not say: where it came from, what models are told about their output,
# JSON field names, markers the UI does not show.
FORBIDDEN = re.compile(
    r"seed|prompt|szablon|pominięto|model|JSON|„commas”|„optional”|corrected_sentence|"
    r"\bpole order\b|du_id|\[\[|TARGET|\[/T\]|\[T\]…",
    re.IGNORECASE,
)


def guideline(key: str) -> str:
    context = widget_for(key).context({}, None) if key == "discourse" else {}
    return render_to_string(f"annotation/guidelines/{key}.html", context)


@pytest.mark.parametrize("key", tuple(SUBTASKS))
def test_every_guideline_is_for_the_annotator_with_worked_examples(key):
    text = guideline(key)
    assert not FORBIDDEN.search(strip_tags(text)), FORBIDDEN.search(strip_tags(text))
    for heading in ("Co rozstrzygasz", "Jak odpowiadasz", "Zasady", "Przykłady"):
        assert f"<h4>{heading}</h4>" in text
    examples = text.split('class="guideline-examples')[1].split("</ol>")[0]
    assert 2 <= examples.count("<li>") <= 3


def test_the_coreference_guideline_draws_mentions_as_the_widget_does():
    """The widget's badges (a letter on the mention's colour), never the file's markers [A]…[T]."""
    text = guideline("coreference")
    assert not re.search(r"\[/?[A-DT]\]", strip_tags(text))
    for letter in "ABCDT":
        assert f'<mark class="mention mention-{letter}"><span class="mention-badge">{letter}</span>' in text
    assert 'class="guideline-examples coref-guideline"' in text  # the widget's colours apply (coreference.css)


def test_the_commas_guideline_names_the_line_as_the_widget_does():
    with translation.override("pl"):
        reads = gettext("Reads as:")
    assert f"„{reads}”" in guideline("commas") and "Czyta się" not in guideline("commas")


def _records(key: str, split: str) -> dict[str, dict]:
    path = DEMO / key / split
    return {record["id"]: record for record in map(json.loads, path.read_text().splitlines()) if record}


# Worked examples taken from the sample items, with the answer the guideline gives.
EXAMPLES = [
    ("morphosyntax", "dev", "Mamy świetnej ekipę", {"answer": "NIEPOPRAWNE", "corrected_sentence": "Mamy świetną ekipę i to jest szansa, żeby pójść do przodu."}),
    ("morphosyntax", "dev", "Francja nie ma dobrej reputacji.", {"answer": "POPRAWNE", "corrected_sentence": ""}),
    ("numerals", "dev", "My operujemy [[3]] jednostkami.", {"answers": ["trzema"]}),
    ("numerals", "dev", "Był rok [[1919]].", {"answers": ["tysiąc dziewięćset dziewiętnasty"]}),
    ("wsd", "dev", "Marzy mi się kolczyk w", {"answer": "A"}),
    ("wsd", "dev", "blokując centralny", {"answer": "D"}),
    ("wsd", "dev", "pod różową ścianą", {"answer": "D"}),
    ("coreference", "dev", "przedstawił [C]prymasowi", {"answer": "A"}),
    ("coreference", "dev", "[T]którymi[/T] właśnie podrzucił", {"answer": "B"}),
    ("commas", "dev", "Nikt [1] nie [2] stoi [3] na [4] trawie [5] trzymając", {"commas": [5], "optional": []}),
    ("commas", "dev", "Nikt [1] nie [2] gra [3] w [4] hokeja [5] na [6] trawie.", {"commas": [], "optional": []}),
]


@pytest.mark.parametrize(("key", "split", "fragment", "answer"), EXAMPLES)
def test_worked_examples_agree_with_the_real_answer_keys(key, split, fragment, answer):
    inputs = _records(key, f"{split}.inputs.jsonl")
    gold = _records(key, f"{split}.gold.jsonl")
    (item_id,) = [item_id for item_id, record in inputs.items() if fragment in json.dumps(record, ensure_ascii=False)]
    assert {field: value for field, value in gold[item_id].items() if field != "id"} == answer


def test_every_relation_has_a_polish_name_definition_and_example_in_the_benchmark_order():
    assert tuple(guide.label for guide in RELATION_GUIDES) == RELATIONS
    for guide in RELATION_GUIDES:
        assert guide.name and guide.definition and "⟨" in guide.example and "|" in guide.example
    text = guideline("discourse")
    assert text.count("<tr><td><code>") == len(RELATIONS)
    assert "opracowaniem własnym projektu" in text
